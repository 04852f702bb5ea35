#pragma once
// ZeroRedundancyOptimizer (torch.distributed.optim.ZeroRedundancyOptimizer,
// PyTorch 1.10 semantics): wraps an optimizer type and shards the parameters,
// and with them the optimizer state, across the ranks of a process group.
// Each rank builds a local optimizer over its shard only, steps it, and the
// updated parameters are broadcast from their owners, so every rank ends each
// step with the same parameters as the unsharded optimizer would give, while
// holding about 1 / world_size of its state.
//
//   ZeroRedundancyOptimizer zero(model->parameters(),
//                                zero_optimizer<optim::Adam>({.lr = 1e-3}),
//                                {.parameters_as_bucket_view = true});
//   loss.backward();                      // gradients averaged across ranks (DDP)
//   zero.step();
//   zero.consolidate_state_dict(0);       // every rank
//   if (rank == 0) save("opt.safetensors", zero.state_dict());
//
// It is an optim::Optimizer: param_groups() are the full groups (schedulers
// change their options; step() passes them to the local optimizer), and the
// methods below hide the base class's state_dict, load_state_dict and
// add_param_group, which are not virtual: call them on the
// ZeroRedundancyOptimizer itself. Every method that communicates must be
// called on every rank of the group, in the same order. docs/distributed.md,
// "ZeroRedundancyOptimizer".
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <ember/distributed/process_group.h>
#include <ember/optim/optimizer.h>

namespace ember::distributed {

// torch's optimizer_class with its **defaults: the options every group starts
// from and how a rank builds its local optimizer over its groups (each group
// already holds complete options).
struct ShardOptimizer {
  optim::Dict defaults;
  std::function<std::unique_ptr<optim::Optimizer>(std::vector<optim::ParamGroup> groups)> make;
};

// The ShardOptimizer of optimizer type Opt (optim::SGD, optim::Adam, ...)
// with its options struct.
template <class Opt>
ShardOptimizer zero_optimizer(const typename Opt::Options& options = {}) {
  return {optim::to_dict(options), [options](std::vector<optim::ParamGroup> groups) {
            return std::unique_ptr<optim::Optimizer>(std::make_unique<Opt>(std::move(groups), options));
          }};
}

struct ZeroRedundancyOptimizerOptions {
  // The group the parameters are sharded over; null: the default group.
  std::shared_ptr<ProcessGroup> process_group = nullptr;
  // Each rank's parameters become views into one flat buffer per rank, so
  // that step() broadcasts one buffer per rank instead of one tensor per
  // parameter (all parameters must then share one dtype and device; a
  // parameter given other data later, e.g. by Module::to, is put back into a
  // rebuilt bucket at the next step).
  bool parameters_as_bucket_view = false;
  // torch 1.10's overlap_with_ddp: the optimizer step runs inside a DDP
  // communication hook made by hook_with_zero_step(_interleaved)
  // (ember/distributed/ddp/ddp_zero_hook.h), each DDP bucket wholly owned by
  // rank bucket_index % world_size. The partition waits until DDP has rebuilt
  // its buckets: the first two iterations update nothing. step() is then a
  // no-op (a warning); one parameter group only.
  bool overlap_with_ddp = false;
};

class ZeroRedundancyOptimizer : public optim::Optimizer {
 public:
  ZeroRedundancyOptimizer(std::vector<Tensor> params, ShardOptimizer optimizer,
                          const ZeroRedundancyOptimizerOptions& options = {});
  ZeroRedundancyOptimizer(std::vector<optim::ParamGroup> groups, ShardOptimizer optimizer,
                          const ZeroRedundancyOptimizerOptions& options = {});
  ~ZeroRedundancyOptimizer() override;

  // Steps the local optimizer over this rank's shard (with the current
  // options of param_groups()), then broadcasts every rank's updated
  // parameters. Returns the closure's loss.
  Tensor step(const Closure& closure = nullptr) override;

  // Appends a group and partitions its parameters (the earlier groups keep
  // their ranks, as torch: the sizes the greedy assignment balances carry
  // over). Every rank must call it.
  void add_param_group(optim::ParamGroup group);

  // Gathers the local optimizers' states on rank `to`, one rank's shard at a
  // time, straight into the unsharded layout (Note [Consolidating one shard
  // at a time]). Every rank must call it; the other ranks keep nothing.
  void consolidate_state_dict(int64_t to = 0);
  // On the rank that consolidated last: the unsharded optimizer's
  // state_dict (torch.optim's layout, the parameters numbered over
  // param_groups()), with the current group options. An ember::Error on any
  // other rank, or before consolidate_state_dict.
  optim::OptimizerStateDict state_dict() const;
  // Loads an unsharded state_dict (state_dict() of this class or of the
  // plain optimizer, saved under any world size): each rank keeps the state
  // of its own shard. Groups and their sizes must match param_groups(), and
  // every state tensor that is not 0-d must have its parameter's shape.
  void load_state_dict(const optim::OptimizerStateDict& state_dict);

  // overlap_with_ddp: whether the partition by DDP buckets is in place (from
  // the third iteration's backward pass on).
  bool overlap_initialized() const { return overlap_.status == OverlapStatus::kInitialized; }

  // For the hooks of ddp_zero_hook.h (overlap_with_ddp only). DDP has
  // rebuilt its buckets: remember bucket `index`'s parameters (its first
  // backward pass after the rebuild), or partition by the remembered buckets
  // (bucket 0 of the next one). Returns overlap_initialized().
  bool overlap_observe_bucket(bool ddp_rebuilt, int64_t index, const std::vector<Tensor>& params);
  // The rank that steps bucket `index`'s parameters.
  int64_t overlap_bucket_owner(int64_t index) const;
  int64_t overlap_num_buckets() const { return static_cast<int64_t>(overlap_.params_per_bucket.size()); }
  // Steps this rank's `params` (a subset of its shard) with `grads` (same
  // order; undefined: not updated); the shard's other parameters are left alone.
  void overlap_local_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads);
  // Broadcasts bucket `index`'s parameters from their owner (asynchronous;
  // overlap_wait_broadcasts() waits for every one launched).
  void overlap_broadcast_bucket(int64_t index);
  void overlap_wait_broadcasts();

  // This rank's optimizer over its shard.
  optim::Optimizer& local_optimizer() { return *local_; }
  const optim::Optimizer& local_optimizer() const { return *local_; }
  const std::shared_ptr<ProcessGroup>& process_group() const { return group_; }
  // The rank (of the process group) that steps `param`.
  int64_t owner_rank(const Tensor& param) const;
  // The parameters rank r steps, per group (torch's _partition_parameters()[r]).
  std::vector<std::vector<Tensor>> shard(int64_t rank) const;

 private:
  void partition_new_groups();
  void build_buckets();
  bool buckets_intact() const;
  void sync_params();
  void push_group_options();
  void pull_group_options();

  void check_partitioned(const char* what) const;

  enum class OverlapStatus { kOff, kUninitialized, kDdpRebuiltBuckets, kInitialized };
  struct Overlap {
    OverlapStatus status = OverlapStatus::kOff;
    std::vector<std::vector<Tensor>> params_per_bucket;
    std::vector<std::shared_ptr<Work>> broadcasts;
  };

  std::shared_ptr<ProcessGroup> group_;
  Overlap overlap_;
  ShardOptimizer make_;
  bool bucket_view_;
  std::unique_ptr<optim::Optimizer> local_;
  // shards_[group][rank]: the group's parameters that rank steps, largest first.
  std::vector<std::vector<std::vector<Tensor>>> shards_;
  // Elements assigned to each rank so far (over every group).
  std::vector<int64_t> rank_sizes_;
  // parameters_as_bucket_view: one flat buffer per rank.
  std::vector<Tensor> buckets_;
  // The state gathered by consolidate_state_dict on this rank.
  std::optional<optim::OptimizerStateDict> consolidated_;
};

}  // namespace ember::distributed
