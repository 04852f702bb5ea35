#pragma once
// torchvision.ops.FrozenBatchNorm2d: BatchNorm2d with fixed statistics and
// affine parameters, all four buffers (not parameters): detection backbones
// use it so that small batches do not disturb pretrained statistics.
//
//   vision::ops::FrozenBatchNorm2d bn(64);      // buffers weight, bias, running_mean, running_var
#include <cstdint>
#include <iosfwd>

#include <ember/core/tensor.h>
#include <ember/nn/module.h>

namespace ember::vision::ops {

// forward(x [N, C, H, W]) = x * scale + shift with scale = weight *
// rsqrt(running_var + eps) and shift = bias - running_mean * scale, as
// torchvision's. The buffers are torchvision's (weight = 1, bias = 0,
// running_mean = 0, running_var = 1), so its state_dict keys match; prints
// "FrozenBatchNorm2d(64, eps=1e-05)".
class FrozenBatchNorm2dImpl : public nn::Module {
 public:
  explicit FrozenBatchNorm2dImpl(int64_t num_features, double eps = 1e-5);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;

  double eps;
  Tensor weight, bias, running_mean, running_var;
};
EMBER_MODULE(FrozenBatchNorm2d);

}  // namespace ember::vision::ops
