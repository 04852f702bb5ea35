#include <ember/distributed/work.h>

#include <ember/core/error.h>

namespace ember::distributed {

Work::Work(std::string op, uint64_t sequence_number, std::vector<Tensor> outputs)
    : op_(std::move(op)), sequence_number_(sequence_number), outputs_(std::move(outputs)) {}

bool Work::is_completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::is_success() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !error_;
}

std::exception_ptr Work::exception() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

bool Work::wait(std::chrono::milliseconds timeout) {
  if (timeout < std::chrono::milliseconds(0)) {
    std::function<void()> runner;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!completed_) runner = std::move(inline_runner_);
      inline_runner_ = nullptr;
    }
    if (runner) runner();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout < std::chrono::milliseconds(0)) {
    finished_.wait(lock, [&] { return completed_; });
  } else if (!finished_.wait_for(lock, timeout, [&] { return completed_; })) {
    EMBER_FAIL("Work::wait: ", op_, " (sequence number ", sequence_number_, ") did not complete within ",
               timeout.count(), " ms");
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EMBER_CHECK(!completed_, "Work::finish: ", op_, " (sequence number ", sequence_number_, ") finished twice");
    completed_ = true;
    error_ = std::move(error);
  }
  finished_.notify_all();
}

void Work::set_inline_runner(std::function<void()> runner) {
  std::lock_guard<std::mutex> lock(mutex_);
  inline_runner_ = std::move(runner);
}

int64_t Work::source_rank() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return source_rank_;
}

void Work::set_source_rank(int64_t rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  source_rank_ = rank;
}

}  // namespace ember::distributed
