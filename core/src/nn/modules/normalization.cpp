#include "ember/nn/modules/normalization.h"

#include <ostream>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "nn/modules/py_repr.h"

namespace ember::nn {

namespace F = functional;
using detail::py_bool;
using detail::py_float;

// ---- BatchNorm / InstanceNorm (PyTorch's _NormBase) ----

template <NormKind K, size_t D>
NormImpl<K, D>::NormImpl(const Options& o)
    : Module((K == NormKind::Batch ? "BatchNorm" : "InstanceNorm") + std::to_string(D) + "d"), options(o) {
  EMBER_CHECK(o.num_features >= 0, name(), ": num_features must be non-negative, got ", o.num_features);
  if (o.affine) {
    register_parameter("weight", empty({o.num_features}), &weight);
    register_parameter("bias", empty({o.num_features}), &bias);
  }
  if (o.track_running_stats) {
    register_buffer("running_mean", zeros({o.num_features}), &running_mean);
    register_buffer("running_var", ones({o.num_features}), &running_var);
    register_buffer("num_batches_tracked", zeros({}, kInt64), &num_batches_tracked);
  }
  reset_parameters();
}

template <NormKind K, size_t D>
void NormImpl<K, D>::reset_running_stats() {
  if (!options.track_running_stats) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <NormKind K, size_t D>
void NormImpl<K, D>::reset_parameters() {
  reset_running_stats();
  if (options.affine) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template <NormKind K, size_t D>
Tensor NormImpl<K, D>::forward(const Tensor& input) {
  const Options& o = options;
  const int64_t dim = input.defined() ? input.dim() : 0;
  const bool train = is_training();
  if constexpr (K == NormKind::Batch) {
    if constexpr (D == 1)
      EMBER_CHECK(dim == 2 || dim == 3, name(), ": expected 2D or 3D input (got ", dim, "D input)");
    else
      EMBER_CHECK(dim == static_cast<int64_t>(D) + 2, name(), ": expected ", D + 2, "D input (got ", dim,
                  "D input)");
    if (train && training_forward) return training_forward(input);
    // Training with running statistics updates them (and counts the batch);
    // eval without them normalizes with the batch statistics (PyTorch's
    // bn_training).
    const bool bn_training = train || !running_mean.defined();
    const bool pass_stats = !train || o.track_running_stats;
    return F::batch_norm(input, pass_stats ? running_mean : Tensor(), pass_stats ? running_var : Tensor(),
                         {.weight = weight,
                          .bias = bias,
                          .training = bn_training,
                          .momentum = o.momentum,
                          .eps = o.eps,
                          .num_batches_tracked = train ? num_batches_tracked : Tensor()});
  } else {
    const auto nd = static_cast<int64_t>(D);
    EMBER_CHECK(dim == nd + 1 || dim == nd + 2, name(), ": expected ", nd + 1, "D or ", nd + 2, "D input (got ", dim,
                "D input)");
    const bool unbatched = dim == nd + 1;
    Tensor y = F::instance_norm(unbatched ? input.unsqueeze(0) : input,
                                {.running_mean = running_mean,
                                 .running_var = running_var,
                                 .weight = weight,
                                 .bias = bias,
                                 .use_input_stats = train || !o.track_running_stats,
                                 .momentum = o.momentum,
                                 .eps = o.eps});
    return unbatched ? y.squeeze(0) : y;
  }
}

template <NormKind K, size_t D>
void NormImpl<K, D>::pretty_print(std::ostream& os) const {
  const Options& o = options;
  os << name() << "(" << o.num_features << ", eps=" << py_float(o.eps) << ", momentum=";
  if constexpr (K == NormKind::Batch)
    os << (o.momentum ? py_float(*o.momentum) : std::string("None"));
  else
    os << py_float(o.momentum);
  os << ", affine=" << py_bool(o.affine) << ", track_running_stats=" << py_bool(o.track_running_stats) << ")";
}

template class NormImpl<NormKind::Batch, 1>;
template class NormImpl<NormKind::Batch, 2>;
template class NormImpl<NormKind::Batch, 3>;
template class NormImpl<NormKind::Instance, 1>;
template class NormImpl<NormKind::Instance, 2>;
template class NormImpl<NormKind::Instance, 3>;

// ---- LayerNorm ----

LayerNormImpl::LayerNormImpl(const LayerNormOptions& o) : Module("LayerNorm"), options(o) {
  for (int64_t s : o.normalized_shape)
    EMBER_CHECK(s >= 0, "LayerNorm: normalized_shape must be non-negative, got ", detail::py_tuple(o.normalized_shape));
  if (o.elementwise_affine) {
    register_parameter("weight", ember::empty(IntArrayRef(o.normalized_shape)), &weight);
    register_parameter("bias", ember::empty(IntArrayRef(o.normalized_shape)), &bias);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return F::layer_norm(input, options.normalized_shape, {.weight = weight, .bias = bias, .eps = options.eps});
}

void LayerNormImpl::pretty_print(std::ostream& os) const {
  os << "LayerNorm(" << detail::py_tuple(options.normalized_shape) << ", eps=" << py_float(options.eps)
     << ", elementwise_affine=" << py_bool(options.elementwise_affine) << ")";
}

// ---- GroupNorm ----

GroupNormImpl::GroupNormImpl(const GroupNormOptions& o) : Module("GroupNorm"), options(o) {
  EMBER_CHECK(o.num_groups > 0, "GroupNorm: num_groups must be positive, got ", o.num_groups);
  EMBER_CHECK(o.num_channels >= 0 && o.num_channels % o.num_groups == 0,
              "GroupNorm: num_channels must be divisible by num_groups (num_channels=", o.num_channels,
              ", num_groups=", o.num_groups, ")");
  if (o.affine) {
    register_parameter("weight", empty({o.num_channels}), &weight);
    register_parameter("bias", empty({o.num_channels}), &bias);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return F::group_norm(input, options.num_groups, {.weight = weight, .bias = bias, .eps = options.eps});
}

void GroupNormImpl::pretty_print(std::ostream& os) const {
  os << "GroupNorm(" << options.num_groups << ", " << options.num_channels << ", eps=" << py_float(options.eps)
     << ", affine=" << py_bool(options.affine) << ")";
}

// ---- LocalResponseNorm ----

LocalResponseNormImpl::LocalResponseNormImpl(const LocalResponseNormOptions& o)
    : Module("LocalResponseNorm"), options(o) {
  EMBER_CHECK(o.size > 0, "LocalResponseNorm: size must be positive, got ", o.size);
}

Tensor LocalResponseNormImpl::forward(const Tensor& input) {
  return F::local_response_norm(input, options.size, {.alpha = options.alpha, .beta = options.beta, .k = options.k});
}

void LocalResponseNormImpl::pretty_print(std::ostream& os) const {
  os << "LocalResponseNorm(" << options.size << ", alpha=" << py_float(options.alpha)
     << ", beta=" << py_float(options.beta) << ", k=" << py_float(options.k) << ")";
}

}  // namespace ember::nn
