#include <ember/distributed/ddp/default_hooks.h>

#include <ember/core/error.h>

namespace ember::distributed::ddp_comm_hooks {

namespace {

std::shared_ptr<ProcessGroup> group_of(const std::shared_ptr<ProcessGroup>& state, const GradBucket& bucket) {
  std::shared_ptr<ProcessGroup> group = state ? state : bucket.process_group();
  EMBER_CHECK(group != nullptr, "DDP communication hook: bucket ", bucket.index(), " has no process group");
  return group;
}

std::shared_ptr<CommFuture> compress(const std::shared_ptr<ProcessGroup>& state, GradBucket& bucket, DType dtype) {
  std::shared_ptr<ProcessGroup> group = group_of(state, bucket);
  Tensor compressed = bucket.buffer().to(dtype).div_(group->size());
  Tensor decompressed = bucket.buffer();
  return CommFuture::from_work(group->all_reduce(compressed))->then([decompressed](const Tensor& reduced) {
    Tensor out = decompressed;
    out.copy_(reduced);
    return out;
  });
}

}  // namespace

std::shared_ptr<CommFuture> allreduce_hook(const std::shared_ptr<ProcessGroup>& process_group, GradBucket& bucket) {
  std::shared_ptr<ProcessGroup> group = group_of(process_group, bucket);
  Tensor buffer = bucket.buffer();
  buffer.div_(group->size());
  return CommFuture::from_work(group->all_reduce(buffer));
}

std::shared_ptr<CommFuture> fp16_compress_hook(const std::shared_ptr<ProcessGroup>& process_group, GradBucket& bucket) {
  return compress(process_group, bucket, DType::Float16);
}

std::shared_ptr<CommFuture> bf16_compress_hook(const std::shared_ptr<ProcessGroup>& process_group, GradBucket& bucket) {
  return compress(process_group, bucket, DType::BFloat16);
}

namespace detail {

std::shared_ptr<CommFuture> run_cast(GradBucket& bucket, DType dtype,
                                     const std::function<std::shared_ptr<CommFuture>(GradBucket&)>& hook) {
  Tensor original = bucket.buffer();
  GradBucket cast(bucket.index(), bucket.is_last(), original.to(dtype), bucket.parameters(), bucket.offsets(),
                  bucket.process_group());
  std::shared_ptr<CommFuture> reduced = hook(cast);
  EMBER_CHECK(reduced != nullptr, "compress wrapper: the wrapped hook returned no future for bucket ",
              bucket.index());
  return reduced->then([original](const Tensor& value) {
    Tensor out = original;
    out.copy_(value.reshape({-1}));
    return out;
  });
}

}  // namespace detail

}  // namespace ember::distributed::ddp_comm_hooks
