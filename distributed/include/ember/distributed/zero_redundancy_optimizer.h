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

  std::shared_ptr<ProcessGroup> group_;
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
