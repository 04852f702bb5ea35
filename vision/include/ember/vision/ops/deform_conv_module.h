#pragma once
// torchvision.ops.DeformConv2d: the layer over vision::ops::deform_conv2d,
// holding the weight and bias (parameters named as torchvision's, so its
// state_dicts load strictly) and taking the offsets (and DCNv2's mask) per call.
//
//   vision::ops::DeformConv2d dcn(64, 64, 3, /*stride=*/1, /*padding=*/1);
//   Tensor offset = offset_conv(x);            // [N, 2 * G * 3 * 3, H, W]
//   Tensor y = dcn(x, offset);                 // or dcn(x, offset, mask)
#include <cstdint>
#include <iosfwd>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/functional/expanding.h>
#include <ember/nn/module.h>

namespace ember::vision::ops {

// weight [out_channels, in_channels / groups, KH, KW] ~ kaiming_uniform(a =
// sqrt 5), bias [out_channels] ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) or none,
// torchvision's reset_parameters(). The number of offset groups is not a
// setting: forward reads it from the offset's channels, as torchvision.
// Prints torchvision's repr: "DeformConv2d(4, 6, kernel_size=(3, 3),
// stride=(1, 1), padding=(1, 1))".
class DeformConv2dImpl : public nn::Module {
 public:
  DeformConv2dImpl(int64_t in_channels, int64_t out_channels, nn::functional::ExpandingInts kernel_size,
                   nn::functional::ExpandingInts stride = 1, nn::functional::ExpandingInts padding = 0,
                   nn::functional::ExpandingInts dilation = 1, int64_t groups = 1, bool bias = true);
  void reset_parameters();
  // input [N, in_channels, H, W]; offset [N, 2 * G * KH * KW, OH, OW]; mask
  // [N, G * KH * KW, OH, OW] or undefined (DCNv1).
  Tensor forward(const Tensor& input, const Tensor& offset, const Tensor& mask = {});
  void pretty_print(std::ostream& os) const override;

  int64_t in_channels, out_channels, groups;
  std::vector<int64_t> kernel_size, stride, padding, dilation;  // two values each
  Tensor weight, bias;
};
EMBER_MODULE(DeformConv2d);

}  // namespace ember::vision::ops
