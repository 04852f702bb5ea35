#pragma once
// Normalizations, as torch.nn.functional: batch_norm, instance_norm,
// layer_norm, group_norm, local_response_norm. float32 batch and layer
// normalization run on oneDNN (batch_norm keeps a channels-last input's
// layout); float64 is composed of Tensor ops (gradcheck). All differentiable,
// twice.
//
//   using namespace ember::nn::functional;
//   Tensor y = batch_norm(x, running_mean, running_var, {.weight = w, .bias = b, .training = true});
//   Tensor z = layer_norm(x, {512}, {.weight = g, .bias = b});
#include <optional>

#include "ember/core/tensor.h"

namespace ember::nn::functional {

struct BatchNormFuncOptions {
  Tensor weight = {};
  Tensor bias = {};
  // Batch statistics (and, when running_mean/var are given, their update);
  // otherwise the running statistics normalize.
  bool training = false;
  // running = (1 - momentum) * running + momentum * batch_stat (the variance
  // unbiased). nullopt: cumulative average, momentum = 1 / num_batches_tracked.
  std::optional<double> momentum = 0.1;
  double eps = 1e-5;
  // Ember extension for the BatchNorm modules: a 0-d int64 counter,
  // incremented in place by each training call with running statistics.
  Tensor num_batches_tracked = {};
};

// input [N, C, ...]; running_mean/var [C] or undefined (then batch
// statistics are always used, as PyTorch).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});

struct InstanceNormFuncOptions {
  Tensor running_mean = {};
  Tensor running_var = {};
  Tensor weight = {};
  Tensor bias = {};
  bool use_input_stats = true;
  double momentum = 0.1;
  double eps = 1e-5;
};
// Per-sample, per-channel normalization of input [N, C, ...]; running stats
// are averaged over the batch.
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

struct LayerNormFuncOptions {
  Tensor weight = {};  // normalized_shape
  Tensor bias = {};
  double eps = 1e-5;
};
// Normalizes over the trailing dims given by normalized_shape.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const LayerNormFuncOptions& options = {});

struct GroupNormFuncOptions {
  Tensor weight = {};  // [C]
  Tensor bias = {};
  double eps = 1e-5;
};
// Normalizes input [N, C, ...] over groups of C / num_groups channels.
Tensor group_norm(const Tensor& input, int64_t num_groups, const GroupNormFuncOptions& options = {});

struct LocalResponseNormFuncOptions {
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 1.0;
};
// Normalizes input [N, C, ...] (3 or more dims) across `size` neighbouring channels.
Tensor local_response_norm(const Tensor& input, int64_t size, const LocalResponseNormFuncOptions& options = {});

}  // namespace ember::nn::functional
