// ZeroRedundancyOptimizer's side of overlap_with_ddp (torch 1.10's
// _OverlapInfo, _init_zero_for_overlap, _local_step with gradients and
// _broadcast_bucket): the partition by DistributedDataParallel's buckets and
// the partial steps the hooks of ddp_zero_hook.h run.
//
// Note [ZeRO overlapped with DDP]: DDP's buckets are final only after their
// rebuild (the second iteration's forward pass), so the second backward pass
// records each bucket's parameters and bucket 0 of the third one partitions:
// bucket b belongs to rank b % world_size (torch's assignment without
// shard_buckets). From then on the hook steps each rank's buckets with their
// averaged gradients and broadcasts every bucket from its owner, inside the
// backward pass. torch allows this only with NCCL (pytorch#62300: Gloo may
// hang); here every collective of the hooks is launched at the same point of
// each rank's collective sequence (Note [Lazy continuations] in comm_future.h),
// so Gloo works.
#include <ember/distributed/zero_redundancy_optimizer.h>

#include <unordered_map>
#include <unordered_set>

#include <ember/autograd/grad_mode.h>

namespace ember::distributed {

namespace {
constexpr const char* kName = "ZeroRedundancyOptimizer";
}  // namespace

bool ZeroRedundancyOptimizer::overlap_observe_bucket(bool ddp_rebuilt, int64_t index,
                                                     const std::vector<Tensor>& params) {
  EMBER_CHECK(overlap_.status != OverlapStatus::kOff, kName,
              " must be constructed with overlap_with_ddp = true to be used with hook_with_zero_step");
  if (!ddp_rebuilt || overlap_.status == OverlapStatus::kInitialized) return overlap_initialized();
  if (overlap_.status == OverlapStatus::kUninitialized) overlap_.status = OverlapStatus::kDdpRebuiltBuckets;
  if (index != 0 || overlap_.params_per_bucket.empty()) {
    // The first backward pass after the rebuild: record the buckets.
    EMBER_CHECK(index == overlap_num_buckets(), kName, ": DDP's bucket ", index, " arrived after ",
                overlap_num_buckets(), " buckets (expected them in order from 0)");
    EMBER_CHECK(!params.empty(), kName, ": DDP's bucket ", index, " holds no parameter");
    overlap_.params_per_bucket.push_back(params);
    return false;
  }
  // Bucket 0 again: every bucket is known; partition by them.
  NoGradGuard no_grad;
  const auto& group = param_groups()[0];
  std::unordered_set<const TensorImpl*> optimized;
  for (const Tensor& p : group.params) optimized.insert(p.impl());
  const int64_t world = group_->size();
  std::vector<std::vector<Tensor>> per_rank(static_cast<size_t>(world));
  std::unordered_set<const TensorImpl*> in_buckets;
  std::fill(rank_sizes_.begin(), rank_sizes_.end(), 0);
  for (int64_t b = 0; b < overlap_num_buckets(); ++b) {
    const int64_t owner = overlap_bucket_owner(b);
    for (const Tensor& p : overlap_.params_per_bucket[static_cast<size_t>(b)]) {
      EMBER_CHECK(optimized.count(p.impl()), kName, ": DDP's bucket ", b,
                  " holds a parameter this optimizer does not (overlap_with_ddp needs the optimizer to hold "
                  "the DDP model's parameters)");
      in_buckets.insert(p.impl());
      per_rank[static_cast<size_t>(owner)].push_back(p);
      rank_sizes_[static_cast<size_t>(owner)] += p.numel();
    }
  }
  for (size_t k = 0; k < group.params.size(); ++k)
    EMBER_CHECK(in_buckets.count(group.params[k].impl()) || !group.params[k].requires_grad(), kName,
                ": parameter ", k, " of the optimizer is in no DDP bucket (overlap_with_ddp steps only the "
                "parameters DDP reduces)");
  shards_ = {std::move(per_rank)};
  std::vector<optim::ParamGroup> local_groups;
  local_groups.emplace_back(shards_[0][static_cast<size_t>(group_->rank())], group.options);
  local_ = make_.make(std::move(local_groups));
  EMBER_CHECK(local_ != nullptr, kName, ": the optimizer factory returned null");
  if (bucket_view_) build_buckets();
  overlap_.status = OverlapStatus::kInitialized;
  return true;
}

int64_t ZeroRedundancyOptimizer::overlap_bucket_owner(int64_t index) const {
  EMBER_CHECK(index >= 0 && index < overlap_num_buckets(), kName, ": bucket ", index, " is outside [0, ",
              overlap_num_buckets(), ")");
  return index % group_->size();
}

void ZeroRedundancyOptimizer::overlap_local_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  EMBER_CHECK(overlap_initialized(), kName, ": overlap_local_step before the partition");
  EMBER_CHECK(params.size() == grads.size(), kName, ": ", params.size(), " parameters and ", grads.size(),
              " gradients");
  NoGradGuard no_grad;
  if (bucket_view_ && !buckets_intact()) build_buckets();
  push_group_options();
  // The local optimizer steps every parameter with a gradient: give it the
  // averaged gradients of `params` and hide the others' for the step.
  std::unordered_map<const TensorImpl*, Tensor> given;
  for (size_t k = 0; k < params.size(); ++k) given[params[k].impl()] = grads[k];
  std::vector<Tensor>& local = local_->param_groups()[0].params;
  std::vector<Tensor> saved;
  saved.reserve(local.size());
  for (Tensor& p : local) {
    saved.push_back(p.grad());
    auto it = given.find(p.impl());
    p.mutable_grad() = it == given.end() ? Tensor() : it->second;
    if (it != given.end()) given.erase(it);
  }
  EMBER_CHECK(given.empty(), kName, ": overlap_local_step got ", given.size(),
              " parameters that rank ", group_->rank(), " does not step");
  local_->step();
  for (size_t k = 0; k < local.size(); ++k) local[k].mutable_grad() = saved[k];
  pull_group_options();
}

void ZeroRedundancyOptimizer::overlap_broadcast_bucket(int64_t index) {
  const int64_t owner = overlap_bucket_owner(index);
  for (const Tensor& p : overlap_.params_per_bucket[static_cast<size_t>(index)]) {
    if (!p.requires_grad()) continue;
    Tensor data = p.detach();
    overlap_.broadcasts.push_back(group_->broadcast(data, {.root_rank = owner}));
  }
}

void ZeroRedundancyOptimizer::overlap_wait_broadcasts() {
  for (auto& w : overlap_.broadcasts) w->wait();
  overlap_.broadcasts.clear();
}

}  // namespace ember::distributed
