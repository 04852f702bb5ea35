#pragma once
// DDP communication hooks that run ZeroRedundancyOptimizer's step inside the
// backward pass (torch.distributed.algorithms.ddp_comm_hooks.ddp_zero_hook,
// PyTorch 1.10):
//
//   ZeroRedundancyOptimizer zero(model->parameters(), zero_optimizer<optim::SGD>({.lr = 0.1}),
//                                {.overlap_with_ddp = true});
//   DistributedDataParallel ddp(model);
//   ddp.register_comm_hook(nullptr, ddp_comm_hooks::hook_with_zero_step(ddp_comm_hooks::allreduce_hook, ddp, zero));
//   for (...) {
//     Tensor loss = ddp.forward([&] { return loss_fn(model(x), y); });
//     loss.backward();  // reduces the gradients and steps the parameters
//   }                   // (no zero.step(): the first two iterations update nothing)
//
// hook_with_zero_step steps once the last bucket's gradients are ready (the
// backward computation stays contiguous; the step overlaps the outstanding
// all_reduces); hook_with_zero_step_interleaved steps each bucket as its
// reduction is collected, the parameter broadcasts interleaving with the
// all_reduces. Both wrap another hook (allreduce_hook, fp16_compress_hook,
// ...), whose averaged gradients the step uses. ddp and zero must outlive the
// hook. Note [ZeRO overlapped with DDP] in zero_overlap.cpp.
#include <memory>
#include <type_traits>

#include <ember/distributed/ddp/distributed_data_parallel.h>
#include <ember/distributed/zero_redundancy_optimizer.h>

namespace ember::distributed {

namespace detail {
// The hooks' shared per-iteration record and its two ways to step.
struct ZeroHookIteration;
struct ZeroHookContext {
  DistributedDataParallel* ddp;
  ZeroRedundancyOptimizer* zero;
  std::shared_ptr<ZeroHookIteration> iteration;
};
ZeroHookContext make_zero_hook_context(DistributedDataParallel& ddp, ZeroRedundancyOptimizer& zero);
std::shared_ptr<CommFuture> zero_step_after_last_bucket(const ZeroHookContext& context, GradBucket& bucket,
                                                        std::shared_ptr<CommFuture> reduced);
std::shared_ptr<CommFuture> zero_step_per_bucket(const ZeroHookContext& context, GradBucket& bucket,
                                                 std::shared_ptr<CommFuture> reduced);
}  // namespace detail

namespace ddp_comm_hooks {

template <class State = ProcessGroup>
CommHook<State> hook_with_zero_step(std::type_identity_t<CommHook<State>> hook, DistributedDataParallel& ddp,
                                    ZeroRedundancyOptimizer& zero) {
  distributed::detail::ZeroHookContext context = distributed::detail::make_zero_hook_context(ddp, zero);
  return [hook = std::move(hook), context](const std::shared_ptr<State>& state, GradBucket& bucket) {
    return distributed::detail::zero_step_after_last_bucket(context, bucket, hook(state, bucket));
  };
}

template <class State = ProcessGroup>
CommHook<State> hook_with_zero_step_interleaved(std::type_identity_t<CommHook<State>> hook,
                                                DistributedDataParallel& ddp, ZeroRedundancyOptimizer& zero) {
  distributed::detail::ZeroHookContext context = distributed::detail::make_zero_hook_context(ddp, zero);
  return [hook = std::move(hook), context](const std::shared_ptr<State>& state, GradBucket& bucket) {
    return distributed::detail::zero_step_per_bucket(context, bucket, hook(state, bucket));
  };
}

}  // namespace ddp_comm_hooks
}  // namespace ember::distributed
