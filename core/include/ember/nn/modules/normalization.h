#pragma once
// Normalization layers over nn::functional normalization: BatchNorm1d/2d/3d,
// InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, LocalResponseNorm. Parameters
// and buffers carry PyTorch's names (weight, bias, running_mean, running_var,
// num_batches_tracked (int64)), so PyTorch state_dicts load as they are.
//
//   nn::BatchNorm2d bn(64);
//   nn::BatchNorm1d cma({.num_features = 8, .momentum = std::nullopt});   // cumulative average
//   nn::InstanceNorm2d in({.num_features = 3, .affine = true, .track_running_stats = true});
//   nn::LayerNorm ln({512});
//   nn::GroupNorm gn(4, 32);                                               // num_groups, num_channels
#include <functional>
#include <optional>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// BatchNorm{1,2,3}dOptions, in PyTorch's argument order. momentum nullopt:
// cumulative moving average (momentum = 1 / num_batches_tracked).
struct BatchNormOptions {
  int64_t num_features = 0;
  double eps = 1e-5;
  std::optional<double> momentum = 0.1;
  bool affine = true;
  bool track_running_stats = true;
};

// InstanceNorm{1,2,3}dOptions (PyTorch's defaults: no affine, no running stats).
struct InstanceNormOptions {
  int64_t num_features = 0;
  double eps = 1e-5;
  double momentum = 0.1;
  bool affine = false;
  bool track_running_stats = false;
};

enum class NormKind { Batch, Instance };

// BatchNorm and InstanceNorm (PyTorch's _NormBase): weight (ones) and bias
// (zeros) [C] when affine; running_mean (zeros), running_var (ones) [C] and
// num_batches_tracked (0-d int64) when track_running_stats. Training mode
// normalizes with batch statistics and updates the running ones; eval mode
// uses the running statistics (batch statistics without them).
template <NormKind K, size_t D>
class NormImpl : public Module {
 public:
  using Options = std::conditional_t<K == NormKind::Batch, BatchNormOptions, InstanceNormOptions>;
  explicit NormImpl(const Options& options);
  explicit NormImpl(int64_t num_features) : NormImpl(Options{.num_features = num_features}) {}
  void reset_running_stats();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  // Checkpoints from before PyTorch 0.4.1 have no num_batches_tracked.
  std::vector<std::string> optional_state_keys() const override { return {"num_batches_tracked"}; }

  Options options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
  // When set, a BatchNorm's training-mode forward (after its input checks)
  // is this function instead of the local batch statistics:
  // distributed::convert_sync_batchnorm sets it to SyncBatchNorm's, which
  // normalizes with statistics gathered from every rank (Note [Converting
  // batch norms in place] in distributed/src/sync_batch_norm.cpp). Eval mode
  // is unaffected.
  std::function<Tensor(const Tensor& input)> training_forward;
};

using BatchNorm1dImpl = NormImpl<NormKind::Batch, 1>;
using BatchNorm2dImpl = NormImpl<NormKind::Batch, 2>;
using BatchNorm3dImpl = NormImpl<NormKind::Batch, 3>;
using InstanceNorm1dImpl = NormImpl<NormKind::Instance, 1>;
using InstanceNorm2dImpl = NormImpl<NormKind::Instance, 2>;
using InstanceNorm3dImpl = NormImpl<NormKind::Instance, 3>;
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;
EMBER_MODULE(BatchNorm1d);
EMBER_MODULE(BatchNorm2d);
EMBER_MODULE(BatchNorm3d);
EMBER_MODULE(InstanceNorm1d);
EMBER_MODULE(InstanceNorm2d);
EMBER_MODULE(InstanceNorm3d);

struct LayerNormOptions {
  std::vector<int64_t> normalized_shape;
  double eps = 1e-5;
  bool elementwise_affine = true;
};

// Normalizes over the trailing normalized_shape dims; weight (ones) and bias
// (zeros) of normalized_shape when elementwise_affine.
class LayerNormImpl : public Module {
 public:
  using Options = LayerNormOptions;
  explicit LayerNormImpl(const LayerNormOptions& options);
  explicit LayerNormImpl(std::vector<int64_t> normalized_shape)
      : LayerNormImpl(LayerNormOptions{.normalized_shape = std::move(normalized_shape)}) {}
  explicit LayerNormImpl(int64_t normalized_size) : LayerNormImpl(std::vector<int64_t>{normalized_size}) {}
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;

  LayerNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(LayerNorm);

struct GroupNormOptions {
  int64_t num_groups = 0;
  int64_t num_channels = 0;
  double eps = 1e-5;
  bool affine = true;
};

// weight (ones) and bias (zeros) [num_channels] when affine.
class GroupNormImpl : public Module {
 public:
  using Options = GroupNormOptions;
  explicit GroupNormImpl(const GroupNormOptions& options);
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions{.num_groups = num_groups, .num_channels = num_channels}) {}
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;

  GroupNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(GroupNorm);

struct LocalResponseNormOptions {
  int64_t size = 0;
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 1.0;
};

class LocalResponseNormImpl : public Module {
 public:
  using Options = LocalResponseNormOptions;
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options);
  explicit LocalResponseNormImpl(int64_t size) : LocalResponseNormImpl(LocalResponseNormOptions{.size = size}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;

  LocalResponseNormOptions options;
};
EMBER_MODULE(LocalResponseNorm);

}  // namespace ember::nn
