#pragma once
// CommFuture: the value a DDP communication hook returns (torch.futures.Future
// of the bucket's reduced gradients). It wraps a collective's Work, or a value
// ready now, and chains continuations with then().
//
// Note [Lazy continuations]: a continuation runs when the future is waited,
// on the waiting thread, not when the collective finishes (c10d runs them on
// its worker). DistributedDataParallel waits for its buckets in bucket order
// at the end of the backward pass, so a continuation that launches a further
// collective (PowerSGD's P and Q all_reduces) launches it at the same point of
// the collective sequence on every rank, which keeps the ranks' orders equal.
// Collectives a hook launches at once (its first all_reduce) still overlap
// the rest of the backward pass.
#include <functional>
#include <memory>
#include <mutex>

#include <ember/core/tensor.h>
#include <ember/distributed/work.h>

namespace ember::distributed {

class CommFuture : public std::enable_shared_from_this<CommFuture> {
 public:
  // A future that computes its value when first waited.
  explicit CommFuture(std::function<Tensor()> compute);
  CommFuture(const CommFuture&) = delete;
  CommFuture& operator=(const CommFuture&) = delete;

  // A future whose value is `value`.
  static std::shared_ptr<CommFuture> ready(Tensor value);
  // The future of an in-place collective: its value is work's first result
  // tensor once work finished.
  static std::shared_ptr<CommFuture> from_work(std::shared_ptr<Work> work);

  // The future of fn(this future's value) (Note [Lazy continuations]).
  std::shared_ptr<CommFuture> then(std::function<Tensor(const Tensor&)> fn);
  // Computes the value once (rethrowing the collective's or a continuation's
  // error, every time it is waited) and returns it.
  Tensor wait();
  bool is_completed() const;

 private:
  mutable std::mutex mutex_;
  std::function<Tensor()> compute_;
  bool completed_ = false;
  Tensor value_;
  std::exception_ptr error_;
};

}  // namespace ember::distributed
