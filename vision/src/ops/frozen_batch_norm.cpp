// FrozenBatchNorm2d: torchvision's forward, a differentiable composition
// (gradients reach x; the buffers take none).
#include "ember/vision/ops/frozen_batch_norm.h"

#include <ostream>

#include <ember/core/error.h>
#include <ember/ops/factories.h>

namespace ember::vision::ops {

FrozenBatchNorm2dImpl::FrozenBatchNorm2dImpl(int64_t num_features, double eps)
    : nn::Module("FrozenBatchNorm2d"), eps(eps) {
  EMBER_CHECK(num_features > 0, "FrozenBatchNorm2d: num_features should be positive, got ", num_features);
  register_buffer("weight", ones({num_features}), &weight);
  register_buffer("bias", zeros({num_features}), &bias);
  register_buffer("running_mean", zeros({num_features}), &running_mean);
  register_buffer("running_var", ones({num_features}), &running_var);
}

Tensor FrozenBatchNorm2dImpl::forward(const Tensor& x) {
  EMBER_CHECK(x.defined() && x.dim() == 4 && x.size(1) == weight.size(0), "FrozenBatchNorm2d: expected input [N, ",
              weight.size(0), ", H, W], got ", x.defined() ? x.sizes() : IntArrayRef{});
  const Tensor w = weight.reshape({1, -1, 1, 1}), b = bias.reshape({1, -1, 1, 1});
  const Tensor rv = running_var.reshape({1, -1, 1, 1}), rm = running_mean.reshape({1, -1, 1, 1});
  const Tensor scale = w * (rv + eps).rsqrt();
  const Tensor shift = b - rm * scale;
  return x * scale + shift;
}

void FrozenBatchNorm2dImpl::pretty_print(std::ostream& os) const {
  os << "FrozenBatchNorm2d(" << weight.size(0) << ", eps=" << eps << ")";
}

}  // namespace ember::vision::ops
