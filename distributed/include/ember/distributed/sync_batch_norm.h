#pragma once
// SyncBatchNorm (torch.nn.SyncBatchNorm): batch normalization whose
// training-mode statistics are those of the whole batch across the ranks of
// a process group, as if one process normalized the concatenation of every
// rank's batch. Each rank all-gathers every rank's (mean, invstd, count) and
// combines them (torch's batch_norm_gather_stats_with_counts: ranks may hold
// different batch sizes, or none); the running statistics are updated with
// the global mean and unbiased variance; backward all-reduces the per-channel
// sums of dy and dy * (x - mean). Eval mode, and a group of one rank, is
// plain batch norm. Gradients of weight and bias stay per rank (DDP averages
// them, as in PyTorch).
//
//   auto bn = distributed::SyncBatchNorm({.num_features = 64}, group);   // group null: the default group
//   model = distributed::convert_sync_batchnorm(model);                  // every BatchNorm{1,2,3}d, in place
//
// docs/distributed.md, "SyncBatchNorm".
#include <memory>
#include <ostream>

#include <ember/distributed/process_group.h>
#include <ember/nn/module.h>
#include <ember/nn/modules/normalization.h>

namespace ember::distributed {

// Training-mode synchronized batch norm of input [N, C, ...] (N may be 0 on
// some ranks) over group (torch's sync_batch_norm.apply): normalizes with
// the global batch statistics and, when running_mean / running_var are
// given, updates them with momentum `average_factor`. weight / bias may be
// undefined. Every rank of the group must call it with the same C.
Tensor sync_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                       const Tensor& running_var, double eps, double average_factor,
                       const std::shared_ptr<ProcessGroup>& group);

// torch.nn.SyncBatchNorm: BatchNorm's options, parameters and buffers
// (weight, bias, running_mean, running_var, num_batches_tracked), any input
// of at least 2 dimensions.
class SyncBatchNormImpl : public nn::Module {
 public:
  using Options = nn::BatchNormOptions;
  // group null: the default group, looked up at each forward.
  explicit SyncBatchNormImpl(const nn::BatchNormOptions& options, std::shared_ptr<ProcessGroup> group = nullptr);
  explicit SyncBatchNormImpl(int64_t num_features) : SyncBatchNormImpl(nn::BatchNormOptions{.num_features = num_features}) {}
  void reset_running_stats();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  std::vector<std::string> optional_state_keys() const override { return {"num_batches_tracked"}; }
  const std::shared_ptr<ProcessGroup>& process_group() const { return group_; }

  nn::BatchNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  std::shared_ptr<ProcessGroup> group_;
};
EMBER_MODULE(SyncBatchNorm);

// torch.nn.SyncBatchNorm.convert_sync_batchnorm: every BatchNorm1d/2d/3d in
// module's tree (module included) becomes a SyncBatchNorm over group (null:
// the default group) in place: the same module objects, so parents that hold
// them as typed members call the synchronized forward, with the same
// parameters, buffers, names and options; they print as "SyncBatchNorm".
// Returns module.
std::shared_ptr<nn::Module> convert_sync_batchnorm(std::shared_ptr<nn::Module> module,
                                                   std::shared_ptr<ProcessGroup> group = nullptr);
template <class Holder>
  requires requires(const Holder& h) { typename Holder::ImplType; h.ptr(); }
Holder convert_sync_batchnorm(Holder holder, std::shared_ptr<ProcessGroup> group = nullptr) {
  convert_sync_batchnorm(std::shared_ptr<nn::Module>(holder.ptr()), std::move(group));
  return holder;
}

// Whether module is a SyncBatchNorm or a batch norm that
// convert_sync_batchnorm converted.
bool is_sync_batchnorm(const nn::Module& module);

}  // namespace ember::distributed
