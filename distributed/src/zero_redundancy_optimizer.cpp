// ZeroRedundancyOptimizer (torch/distributed/optim/zero_redundancy_optimizer.py,
// PyTorch 1.10): partition, local optimizer, parameter broadcasts and the
// consolidated state. See ember/distributed/zero_redundancy_optimizer.h.
#include <ember/distributed/zero_redundancy_optimizer.h>

#include <unordered_map>

#include <ember/autograd/grad_mode.h>
#include <ember/core/warning.h>
#include <ember/distributed/init.h>
#include <ember/ops/factories.h>

#include "zero_partition.h"
#include "zero_state_exchange.h"

namespace ember::distributed {

namespace {

constexpr const char* kName = "ZeroRedundancyOptimizer";
// The point-to-point tag of consolidate_state_dict's messages.
constexpr int64_t kConsolidateTag = 0x2e50;

std::vector<optim::ParamGroup> one_group(std::vector<Tensor> params) {
  std::vector<optim::ParamGroup> groups;
  groups.emplace_back(std::move(params));
  return groups;
}

// A deep copy of a state (tensors cloned), so that what consolidation keeps
// does not change with later steps.
optim::ParamState clone_state(const optim::ParamState& state) {
  optim::ParamState out;
  for (const auto& [key, value] : state) {
    if (value.is_tensor()) {
      const Tensor& t = value.to_tensor();
      out[key] = t.defined() ? t.detach().clone() : t;
    } else if (value.is_tensor_list()) {
      std::vector<Tensor> list;
      for (const Tensor& t : value.to_tensor_list()) list.push_back(t.defined() ? t.detach().clone() : t);
      out[key] = list;
    } else {
      out[key] = value;
    }
  }
  return out;
}

std::string shape_string(const Tensor& t) {
  std::string s = "[";
  for (int64_t d = 0; d < t.dim(); ++d) s += (d ? ", " : "") + std::to_string(t.size(d));
  return s + "]";
}

}  // namespace

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(std::vector<Tensor> params, ShardOptimizer optimizer,
                                                 const ZeroRedundancyOptimizerOptions& options)
    : ZeroRedundancyOptimizer(one_group(std::move(params)), std::move(optimizer), options) {}

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(std::vector<optim::ParamGroup> groups, ShardOptimizer optimizer,
                                                 const ZeroRedundancyOptimizerOptions& options)
    : Optimizer(kName, optimizer.defaults),
      group_(options.process_group ? options.process_group : default_process_group()),
      make_(std::move(optimizer)),
      bucket_view_(options.parameters_as_bucket_view) {
  EMBER_CHECK(make_.make != nullptr, kName, ": no optimizer to build (ShardOptimizer::make is empty)");
  size_t count = 0;
  for (const auto& g : groups) count += g.params.size();
  EMBER_CHECK(count > 0, kName, ": did not receive any parameters");
  rank_sizes_.assign(static_cast<size_t>(group_->size()), 0);
  if (options.overlap_with_ddp) {
    EMBER_CHECK(groups.size() == 1, kName, ": overlap_with_ddp supports a single parameter group, got ",
                groups.size());
    overlap_.status = OverlapStatus::kUninitialized;
  }
  init_groups(std::move(groups));
  partition_new_groups();
}

ZeroRedundancyOptimizer::~ZeroRedundancyOptimizer() = default;

// Partitions the groups not partitioned yet (new ones, also those added
// through the base class's add_param_group) and gives this rank's part of
// each to the local optimizer.
void ZeroRedundancyOptimizer::partition_new_groups() {
  if (overlap_.status != OverlapStatus::kOff) return;  // partitioned by DDP's buckets (overlap_initialize)
  const auto& groups = param_groups();
  if (shards_.size() == groups.size()) return;
  const auto rank = static_cast<size_t>(group_->rank());
  std::vector<optim::ParamGroup> local_groups;
  for (size_t g = shards_.size(); g < groups.size(); ++g) {
    shards_.push_back(detail::partition_by_size(groups[g].params, rank_sizes_));
    local_groups.emplace_back(shards_[g][rank], groups[g].options);
  }
  if (!local_) {
    local_ = make_.make(std::move(local_groups));
    EMBER_CHECK(local_ != nullptr, kName, ": the optimizer factory returned null");
  } else {
    for (auto& g : local_groups) local_->add_param_group(std::move(g));
  }
  if (bucket_view_) build_buckets();
}

// Note [Parameters as bucket views]: as torch's parameters_as_bucket_view,
// the parameters rank r steps are copied, group by group in assignment
// order, into one flat buffer buckets_[r], and each parameter's data is set
// to its slice of it (Tensor::set_data: the parameter objects, their
// gradients and the modules holding them stay the same). The local
// optimizer's in-place updates then write into the bucket, and one
// broadcast per rank syncs everything. Rebuilt when a group is added, and by
// step() when a parameter no longer views its slice (Module::to, set_data).
// Frozen parameters (requires_grad false) stay out of the buckets and out of
// the per-parameter broadcasts (torch 1.10's trainable-only buckets): no
// optimizer changes them, so every rank already holds the same values.
void ZeroRedundancyOptimizer::build_buckets() {
  NoGradGuard no_grad;
  const auto& all = param_groups();
  Tensor first;
  for (const auto& g : all)
    for (const Tensor& p : g.params)
      if (!first.defined() && p.requires_grad()) first = p;
  std::vector<Tensor> buckets;
  if (!first.defined()) {  // everything frozen: nothing to broadcast
    buckets_.assign(static_cast<size_t>(group_->size()), Tensor());
    return;
  }
  for (int64_t r = 0; r < group_->size(); ++r) {
    int64_t total = 0;
    for (const auto& group_shards : shards_)
      for (const Tensor& p : group_shards[r]) {
        if (!p.requires_grad()) continue;
        EMBER_CHECK(p.dtype() == first.dtype() && p.device() == first.device(), kName,
                    ": parameters_as_bucket_view needs every parameter to have one dtype and device (got ",
                    p.dtype(), " on ", p.device(), " and ", first.dtype(), " on ", first.device(), ")");
        total += p.numel();
      }
    Tensor bucket = empty({total}, TensorOptions(first.dtype()).device(first.device()));
    int64_t offset = 0;
    for (const auto& group_shards : shards_)
      for (const Tensor& p : group_shards[r]) {
        if (!p.requires_grad()) continue;
        Tensor slice = bucket.narrow(0, offset, p.numel());
        slice.copy_(p.detach().reshape({-1}));
        p.set_data(slice.view(p.sizes()));
        offset += p.numel();
      }
    buckets.push_back(std::move(bucket));
  }
  buckets_ = std::move(buckets);
}

// Whether every parameter still views its slice of its bucket (Module::to,
// set_data or load code may have given it other data since).
bool ZeroRedundancyOptimizer::buckets_intact() const {
  for (int64_t r = 0; r < group_->size(); ++r) {
    if (!buckets_[static_cast<size_t>(r)].defined()) continue;  // every parameter frozen
    const auto* base = static_cast<const char*>(buckets_[static_cast<size_t>(r)].data_ptr());
    int64_t offset = 0;
    for (const auto& group_shards : shards_)
      for (const Tensor& p : group_shards[static_cast<size_t>(r)]) {
        if (!p.requires_grad()) continue;
        const Tensor& bucket = buckets_[static_cast<size_t>(r)];
        if (p.dtype() != bucket.dtype() || !p.is_contiguous() ||
            static_cast<const char*>(p.data_ptr()) != base + offset * bucket.element_size())
          return false;
        offset += p.numel();
      }
  }
  return true;
}

void ZeroRedundancyOptimizer::sync_params() {
  NoGradGuard no_grad;
  std::vector<std::shared_ptr<Work>> works;
  for (int64_t r = 0; r < group_->size(); ++r) {
    if (bucket_view_) {
      if (buckets_[r].defined() && buckets_[r].numel() > 0) works.push_back(group_->broadcast(buckets_[r], {.root_rank = r}));
      continue;
    }
    for (const auto& group_shards : shards_)
      for (const Tensor& p : group_shards[r]) {
        if (!p.requires_grad()) continue;  // frozen: the same on every rank
        Tensor data = p.detach();
        works.push_back(group_->broadcast(data, {.root_rank = r}));
      }
  }
  for (auto& w : works) w->wait();
}

void ZeroRedundancyOptimizer::push_group_options() {
  for (size_t g = 0; g < param_groups().size(); ++g) local_->param_groups()[g].options = param_groups()[g].options;
}

void ZeroRedundancyOptimizer::pull_group_options() {
  for (size_t g = 0; g < param_groups().size(); ++g) param_groups()[g].options = local_->param_groups()[g].options;
}

Tensor ZeroRedundancyOptimizer::step(const Closure& closure) {
  if (overlap_.status != OverlapStatus::kOff) {
    // torch 1.10 logs the same and returns None: the DDP hook steps.
    EMBER_WARN(kName, ": step() should not be included in the training loop when overlap_with_ddp is set (the "
               "DDP communication hook from hook_with_zero_step steps the parameters)");
    return Tensor();
  }
  partition_new_groups();
  // A parameter given new data since the buckets were built would miss the
  // broadcasts: rebuild them from the parameters' current values.
  if (bucket_view_ && !buckets_intact()) build_buckets();
  push_group_options();
  Tensor loss = local_->step(closure);
  sync_params();
  pull_group_options();
  return loss;
}

void ZeroRedundancyOptimizer::add_param_group(optim::ParamGroup group) {
  EMBER_CHECK(overlap_.status == OverlapStatus::kOff, kName,
              ": overlap_with_ddp supports a single parameter group; add_param_group is not allowed");
  Optimizer::add_param_group(std::move(group));
  partition_new_groups();
}

void ZeroRedundancyOptimizer::check_partitioned(const char* what) const {
  EMBER_CHECK(overlap_.status == OverlapStatus::kOff || overlap_.status == OverlapStatus::kInitialized, kName, ".",
              what, ": with overlap_with_ddp the parameters are partitioned once DistributedDataParallel has rebuilt "
              "its buckets (in the third iteration's backward pass); call it after that");
}

int64_t ZeroRedundancyOptimizer::owner_rank(const Tensor& param) const {
  check_partitioned("owner_rank");
  for (const auto& group_shards : shards_)
    for (size_t r = 0; r < group_shards.size(); ++r)
      for (const Tensor& p : group_shards[r])
        if (p.is_same(param)) return static_cast<int64_t>(r);
  EMBER_FAIL(kName, ": the tensor is none of its parameters");
}

std::vector<std::vector<Tensor>> ZeroRedundancyOptimizer::shard(int64_t rank) const {
  check_partitioned("shard");
  EMBER_CHECK(rank >= 0 && rank < group_->size(), kName, ": rank ", rank, " is outside [0, ", group_->size(), ")");
  std::vector<std::vector<Tensor>> out;
  for (const auto& group_shards : shards_) out.push_back(group_shards[static_cast<size_t>(rank)]);
  return out;
}

// Note [Consolidating one shard at a time]: torch 1.10 broadcasts every
// rank's pickled state to every rank and keeps the list of all ranks' states
// on the target rank until state_dict() merges them (pytorch#68181: a peak of
// several copies of the whole state). Here the target rank receives the
// shards point to point, in rank order, and moves each one's entries into the
// unsharded state_dict at once, renumbered from the sender's local indices to
// the global ones; the serialized bytes of a shard are freed before the next
// one is received. Peak on the target: the full state plus one shard twice
// (its bytes and its tensors, while they are parsed); on every other rank:
// its own state plus its serialized bytes, until the target received them.
void ZeroRedundancyOptimizer::consolidate_state_dict(int64_t to) {
  check_partitioned("consolidate_state_dict");
  partition_new_groups();
  const int64_t world = group_->size();
  const int64_t rank = group_->rank();
  EMBER_CHECK(to >= 0 && to < world, kName, ".consolidate_state_dict: to = ", to,
              " is not a rank of the process group (size ", world, ")");
  push_group_options();
  consolidated_.reset();
  if (rank != to) {
    detail::send_optimizer_state(*group_, local_->state_dict(), to, kConsolidateTag);
    return;
  }
  optim::OptimizerStateDict full = Optimizer::state_dict();  // the groups, numbered globally; no state
  std::unordered_map<const TensorImpl*, int64_t> global_index;
  {
    int64_t i = 0;
    for (const auto& g : param_groups())
      for (const Tensor& p : g.params) global_index[p.impl()] = i++;
  }
  for (int64_t r = 0; r < world; ++r) {
    optim::OptimizerStateDict local =
        r == rank ? local_->state_dict() : detail::recv_optimizer_state(*group_, r, kConsolidateTag);
    EMBER_CHECK(local.param_groups.size() == shards_.size(), kName, ": rank ", r, " sent the state of ",
                local.param_groups.size(), " parameter groups, this rank has ", shards_.size(),
                " (add_param_group must be called on every rank)");
    for (size_t g = 0; g < shards_.size(); ++g) {
      const auto& params = shards_[g][static_cast<size_t>(r)];
      const auto& indices = local.param_groups[g].params;
      EMBER_CHECK(indices.size() == params.size(), kName, ": rank ", r, " sent ", indices.size(),
                  " parameters for group ", g, ", its shard has ", params.size());
      for (size_t k = 0; k < params.size(); ++k) {
        auto it = local.state.find(indices[k]);
        if (it == local.state.end()) continue;
        full.state[global_index.at(params[k].impl())] =
            r == rank ? clone_state(it->second) : std::move(it->second);
      }
    }
  }
  consolidated_ = std::move(full);
}

optim::OptimizerStateDict ZeroRedundancyOptimizer::state_dict() const {
  EMBER_CHECK(consolidated_.has_value(), kName, ": the optimizer state has not been consolidated on rank ",
              group_->rank(), ": call consolidate_state_dict(to) on every rank first, then state_dict() on rank to");
  EMBER_CHECK(consolidated_->param_groups.size() == param_groups().size(), kName,
              ": parameter groups were added since consolidate_state_dict; consolidate again");
  optim::OptimizerStateDict out = *consolidated_;
  // The state as consolidated, the options as they are now (torch's
  // super().state_dict() for the groups).
  for (size_t g = 0; g < param_groups().size(); ++g) out.param_groups[g].options = param_groups()[g].options;
  return out;
}

void ZeroRedundancyOptimizer::load_state_dict(const optim::OptimizerStateDict& sd) {
  check_partitioned("load_state_dict");
  partition_new_groups();
  const auto& groups = param_groups();
  EMBER_CHECK(sd.param_groups.size() == groups.size(), kName,
              ": loaded state dict has a different number of parameter groups (", sd.param_groups.size(), " saved, ",
              groups.size(), " in the optimizer)");
  // Saved index -> parameter, in the flattened group order (torch's id_map).
  std::map<int64_t, Tensor> by_id;
  for (size_t g = 0; g < groups.size(); ++g) {
    EMBER_CHECK(sd.param_groups[g].params.size() == groups[g].params.size(), kName,
                ": loaded state dict contains a parameter group that doesn't match the size of optimizer's group ",
                g, " (", sd.param_groups[g].params.size(), " saved, ", groups[g].params.size(), " here)");
    for (size_t k = 0; k < groups[g].params.size(); ++k) by_id[sd.param_groups[g].params[k]] = groups[g].params[k];
  }
  // This rank's local state_dict: the local optimizer's numbering, the saved options.
  std::unordered_map<const TensorImpl*, int64_t> local_index;
  optim::OptimizerStateDict local;
  {
    int64_t i = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      optim::OptimizerStateDict::Group lg;
      lg.options = sd.param_groups[g].options;
      for (const Tensor& p : local_->param_groups()[g].params) {
        local_index[p.impl()] = i;
        lg.params.push_back(i++);
      }
      local.param_groups.push_back(std::move(lg));
    }
  }
  for (const auto& [id, state] : sd.state) {
    auto it = by_id.find(id);
    EMBER_CHECK(it != by_id.end(), kName, ": loaded state dict has state for parameter ", id,
                ", which is in none of its parameter groups");
    const Tensor& param = it->second;
    for (const auto& [key, value] : state) {
      if (!value.is_tensor() || !value.to_tensor().defined() || value.to_tensor().dim() == 0) continue;
      const Tensor& t = value.to_tensor();
      EMBER_CHECK(t.sizes() == param.sizes(), kName, ": loaded state '", key, "' of parameter ", id, " has shape ",
                  shape_string(t), ", the parameter has shape ", shape_string(param),
                  " (a state dict of another model?)");
    }
    auto mine = local_index.find(param.impl());
    if (mine != local_index.end()) local.state[mine->second] = state;
  }
  local_->load_state_dict(local);
  pull_group_options();
}

}  // namespace ember::distributed
