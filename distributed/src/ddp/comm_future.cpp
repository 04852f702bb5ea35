#include <ember/distributed/ddp/comm_future.h>

#include <ember/core/error.h>

namespace ember::distributed {

CommFuture::CommFuture(std::function<Tensor()> compute) : compute_(std::move(compute)) {
  EMBER_CHECK(static_cast<bool>(compute_), "CommFuture: the computation is empty");
}

std::shared_ptr<CommFuture> CommFuture::ready(Tensor value) {
  return std::make_shared<CommFuture>([value = std::move(value)] { return value; });
}

std::shared_ptr<CommFuture> CommFuture::from_work(std::shared_ptr<Work> work) {
  EMBER_CHECK(work != nullptr, "CommFuture::from_work: the work is null");
  return std::make_shared<CommFuture>([work = std::move(work)] {
    work->wait();
    EMBER_CHECK(!work->result().empty(), "CommFuture::from_work: ", work->op(), " (sequence number ",
                work->sequence_number(), ") has no result tensor");
    return work->result()[0];
  });
}

std::shared_ptr<CommFuture> CommFuture::then(std::function<Tensor(const Tensor&)> fn) {
  EMBER_CHECK(static_cast<bool>(fn), "CommFuture::then: the continuation is empty");
  return std::make_shared<CommFuture>(
      [self = shared_from_this(), fn = std::move(fn)] { return fn(self->wait()); });
}

Tensor CommFuture::wait() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!completed_) {
    try {
      value_ = compute_();
    } catch (...) {
      error_ = std::current_exception();
    }
    completed_ = true;
    compute_ = nullptr;  // frees what the computation captured
  }
  if (error_) std::rethrow_exception(error_);
  return value_;
}

bool CommFuture::is_completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

}  // namespace ember::distributed
