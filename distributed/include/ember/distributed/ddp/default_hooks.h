#pragma once
// Built-in DDP communication hooks whose state is a process group (null: the
// DDP's group), torch.distributed.algorithms.ddp_comm_hooks.default_hooks:
//
//   ddp.register_comm_hook(nullptr, ddp_comm_hooks::fp16_compress_hook);
//   ddp.register_comm_hook(powersgd_state, ddp_comm_hooks::fp16_compress_wrapper(ddp_comm_hooks::powerSGD_hook));
#include <functional>
#include <memory>

#include <ember/core/dtype.h>
#include <ember/distributed/ddp/comm_future.h>
#include <ember/distributed/ddp/grad_bucket.h>
#include <ember/distributed/process_group.h>

namespace ember::distributed::ddp_comm_hooks {

// Divides the bucket by the group size and all-reduces it in place (what DDP
// does without a hook).
std::shared_ptr<CommFuture> allreduce_hook(const std::shared_ptr<ProcessGroup>& process_group, GradBucket& bucket);
// All-reduces a float16 (bfloat16) copy of bucket / group size and casts the
// result back into the bucket: half the bytes on the wire, float16's
// (bfloat16's) rounding in the result.
std::shared_ptr<CommFuture> fp16_compress_hook(const std::shared_ptr<ProcessGroup>& process_group, GradBucket& bucket);
std::shared_ptr<CommFuture> bf16_compress_hook(const std::shared_ptr<ProcessGroup>& process_group, GradBucket& bucket);

namespace detail {
// Hands hook a copy of the bucket cast to dtype and casts its result back
// into the bucket's buffer.
std::shared_ptr<CommFuture> run_cast(GradBucket& bucket, DType dtype,
                                     const std::function<std::shared_ptr<CommFuture>(GradBucket&)>& hook);
}  // namespace detail

// Composes float16 (bfloat16) compression with any hook: the wrapped hook sees
// and reduces a float16 (bfloat16) buffer (torch's fp16_compress_wrapper).
template <class Hook>
auto fp16_compress_wrapper(Hook hook) {
  return [hook = std::move(hook)](const auto& state, GradBucket& bucket) {
    return detail::run_cast(bucket, DType::Float16, [&](GradBucket& cast) { return hook(state, cast); });
  };
}
template <class Hook>
auto bf16_compress_wrapper(Hook hook) {
  return [hook = std::move(hook)](const auto& state, GradBucket& bucket) {
    return detail::run_cast(bucket, DType::BFloat16, [&](GradBucket& cast) { return hook(state, cast); });
  };
}

}  // namespace ember::distributed::ddp_comm_hooks
