// hook_with_zero_step(_interleaved): see ember/distributed/ddp/ddp_zero_hook.h
// and Note [ZeRO overlapped with DDP] in zero_overlap.cpp.
#include <ember/distributed/ddp/ddp_zero_hook.h>

#include <vector>

namespace ember::distributed::detail {

// What the hooks saw in this backward pass: each bucket's reduction and its
// parameters and offsets (GradBucket copies).
struct ZeroHookIteration {
  std::vector<std::shared_ptr<CommFuture>> reduced;
  std::vector<GradBucket> buckets;
  void clear() {
    reduced.clear();
    buckets.clear();
  }
};

namespace {

constexpr const char* kName = "hook_with_zero_step";

// The averaged gradients of bucket's parameters: slices of its reduced buffer.
std::vector<Tensor> averaged_gradients(const GradBucket& bucket, const Tensor& reduced) {
  const Tensor flat = reduced.reshape({-1});
  std::vector<Tensor> grads;
  for (size_t i = 0; i < bucket.parameters().size(); ++i) {
    const Tensor& p = bucket.parameters()[i];
    grads.push_back(flat.narrow(0, bucket.offsets()[i], p.numel()).view(p.sizes()));
  }
  return grads;
}

// Records the bucket of this backward pass; false until ZeRO is partitioned.
bool record(const ZeroHookContext& context, GradBucket& bucket, const std::shared_ptr<CommFuture>& reduced) {
  ZeroRedundancyOptimizer& zero = *context.zero;
  if (!zero.overlap_observe_bucket(context.ddp->has_rebuilt_buckets(), bucket.index(), bucket.parameters()))
    return false;
  ZeroHookIteration& it = *context.iteration;
  EMBER_CHECK(bucket.index() == static_cast<int64_t>(it.buckets.size()), kName, ": bucket ", bucket.index(),
              " arrived after ", it.buckets.size(), " buckets of this backward pass (expected them in order from 0)");
  EMBER_CHECK(bucket.index() < zero.overlap_num_buckets(), kName, ": bucket ", bucket.index(), " of ",
              zero.overlap_num_buckets(), " (DDP's buckets changed since ZeroRedundancyOptimizer was partitioned)");
  it.reduced.push_back(reduced);
  it.buckets.push_back(bucket);
  return true;
}

// Steps this rank's part of bucket b (if it owns it) with the reduced value,
// then broadcasts the bucket's parameters from their owner.
void step_and_broadcast(ZeroRedundancyOptimizer& zero, const GradBucket& bucket, const Tensor& reduced) {
  const int64_t b = bucket.index();
  if (zero.overlap_bucket_owner(b) == zero.process_group()->rank())
    zero.overlap_local_step(bucket.parameters(), averaged_gradients(bucket, reduced));
  zero.overlap_broadcast_bucket(b);
}

}  // namespace

ZeroHookContext make_zero_hook_context(DistributedDataParallel& ddp, ZeroRedundancyOptimizer& zero) {
  // Raises now, at registration, unless zero was built with overlap_with_ddp.
  (void)zero.overlap_observe_bucket(/*ddp_rebuilt=*/false, 0, {});
  return {&ddp, &zero, std::make_shared<ZeroHookIteration>()};
}

std::shared_ptr<CommFuture> zero_step_after_last_bucket(const ZeroHookContext& context, GradBucket& bucket,
                                                        std::shared_ptr<CommFuture> reduced) {
  if (!record(context, bucket, reduced)) return reduced;
  ZeroRedundancyOptimizer& zero = *context.zero;
  ZeroHookIteration& it = *context.iteration;
  if (bucket.index() + 1 < zero.overlap_num_buckets()) return reduced;
  // The last bucket: every rank collects every bucket's reduction, in bucket
  // order (a continuation that communicates then runs at the same point on
  // every rank), steps its own and broadcasts each.
  for (size_t b = 0; b < it.buckets.size(); ++b) step_and_broadcast(zero, it.buckets[b], it.reduced[b]->wait());
  zero.overlap_wait_broadcasts();  // updated before the next forward pass
  it.clear();
  return reduced;
}

std::shared_ptr<CommFuture> zero_step_per_bucket(const ZeroHookContext& context, GradBucket& bucket,
                                                 std::shared_ptr<CommFuture> reduced) {
  if (!record(context, bucket, reduced)) return reduced;
  ZeroRedundancyOptimizer* zero = context.zero;
  std::shared_ptr<ZeroHookIteration> it = context.iteration;
  GradBucket saved = bucket;
  // DDP collects the buckets in order at the end of the backward pass
  // (Note [Lazy continuations]): each step and broadcast runs then.
  return reduced->then([zero, it, saved](const Tensor& value) {
    step_and_broadcast(*zero, saved, value);
    if (saved.index() + 1 == zero->overlap_num_buckets()) {
      zero->overlap_wait_broadcasts();
      it->clear();
    }
    return value;
  });
}

}  // namespace ember::distributed::detail
