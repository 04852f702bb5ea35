#pragma once
// Work: the handle of a collective in flight (c10d's Work). A process group
// returns it at once and runs the collective on its own thread; wait()
// blocks until it finishes and rethrows its error.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::distributed {

// wait() without a timeout: until the collective finishes (or fails on its
// own timeout, which every collective has).
inline constexpr std::chrono::milliseconds kNoTimeout{-1};

class Work {
 public:
  Work(std::string op, uint64_t sequence_number, std::vector<Tensor> outputs = {});
  virtual ~Work() = default;
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  // True once the collective finished, successfully or not. (Virtual: an
  // NCCL work asks its CUDA event.)
  virtual bool is_completed() const;
  // True once it finished without an error.
  bool is_success() const;
  // The collective's error once it failed (null otherwise).
  std::exception_ptr exception() const;
  // Blocks until the collective finished; rethrows its error (an
  // ember::Error). With a timeout, raises an ember::Error naming the op and
  // its sequence number if it is not finished by then; the collective itself
  // goes on (and may still finish: wait again). Returns true, as c10d's.
  // (Virtual: an NCCL work's wait() makes the caller's stream wait instead.)
  virtual bool wait(std::chrono::milliseconds timeout = kNoTimeout);
  // The tensors the collective wrote (for an in-place op, its input).
  const std::vector<Tensor>& result() const { return outputs_; }

  // "all_reduce", "broadcast", "barrier", ...
  const std::string& op() const { return op_; }
  // The process group's count of collectives before this one: the same on
  // every rank for the same call.
  uint64_t sequence_number() const { return sequence_number_; }

  // For backends: marks the work finished (error null on success) and wakes
  // the waiters.
  void finish(std::exception_ptr error = nullptr);
  // For backends: wait() without a timeout first calls runner, once, which
  // may run the collective on the waiting thread instead of leaving it to
  // the backend's worker (Note [Inline collectives] in
  // process_group_gloo.cpp). wait(timeout) never calls it: it must return by
  // the timeout.
  void set_inline_runner(std::function<void()> runner);
  // The rank a recv_anysource received from (-1 before it finished, and for
  // other ops).
  int64_t source_rank() const;
  void set_source_rank(int64_t rank);

 private:
  std::string op_;
  uint64_t sequence_number_;
  std::vector<Tensor> outputs_;
  mutable std::mutex mutex_;
  std::condition_variable finished_;
  bool completed_ = false;
  std::exception_ptr error_;
  int64_t source_rank_ = -1;
  std::function<void()> inline_runner_;
};

}  // namespace ember::distributed
