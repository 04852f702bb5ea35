// DeformConv2d: torchvision's layer, a holder of parameters around
// deform_conv2d (which checks the offset and mask shapes).
#include "ember/vision/ops/deform_conv_module.h"

#include <cmath>
#include <ostream>

#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/ops/factories.h>
#include <ember/vision/ops/deform_conv.h>

namespace ember::vision::ops {

DeformConv2dImpl::DeformConv2dImpl(int64_t in_channels, int64_t out_channels,
                                   nn::functional::ExpandingInts kernel_size, nn::functional::ExpandingInts stride,
                                   nn::functional::ExpandingInts padding, nn::functional::ExpandingInts dilation,
                                   int64_t groups, bool bias)
    : nn::Module("DeformConv2d"), in_channels(in_channels), out_channels(out_channels), groups(groups) {
  constexpr const char* op = "DeformConv2d";
  EMBER_CHECK(in_channels > 0 && out_channels > 0 && groups > 0, op,
              ": in_channels, out_channels and groups must be positive, got ", in_channels, ", ", out_channels,
              " and ", groups);
  // torchvision's ValueErrors.
  EMBER_CHECK(in_channels % groups == 0, op, ": in_channels must be divisible by groups (in_channels ", in_channels,
              ", groups ", groups, ")");
  EMBER_CHECK(out_channels % groups == 0, op, ": out_channels must be divisible by groups (out_channels ",
              out_channels, ", groups ", groups, ")");
  this->kernel_size = kernel_size.expand(2, op, "kernel_size");
  this->stride = stride.expand(2, op, "stride");
  this->padding = padding.expand(2, op, "padding");
  this->dilation = dilation.expand(2, op, "dilation");
  EMBER_CHECK(this->kernel_size[0] > 0 && this->kernel_size[1] > 0, op, ": kernel_size must be positive, got (",
              this->kernel_size[0], ", ", this->kernel_size[1], ")");
  register_parameter("weight",
                     empty({out_channels, in_channels / groups, this->kernel_size[0], this->kernel_size[1]}),
                     &weight);
  if (bias) register_parameter("bias", empty({out_channels}), &this->bias);
  reset_parameters();
}

void DeformConv2dImpl::reset_parameters() {
  nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = nn::init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = 1 / std::sqrt(static_cast<double>(fan_in));
    nn::init::uniform_(bias, -bound, bound);
  }
}

Tensor DeformConv2dImpl::forward(const Tensor& input, const Tensor& offset, const Tensor& mask) {
  DeformConv2dOptions o{.stride = stride, .padding = padding, .dilation = dilation};
  if (mask.defined()) o.mask = mask;
  return deform_conv2d(input, offset, weight, bias, o);
}

void DeformConv2dImpl::pretty_print(std::ostream& os) const {
  auto pair = [&](const std::vector<int64_t>& v) { os << "(" << v[0] << ", " << v[1] << ")"; };
  os << "DeformConv2d(" << in_channels << ", " << out_channels << ", kernel_size=";
  pair(kernel_size);
  os << ", stride=";
  pair(stride);
  if (padding[0] != 0 || padding[1] != 0) os << ", padding=", pair(padding);
  if (dilation[0] != 1 || dilation[1] != 1) os << ", dilation=", pair(dilation);
  if (groups != 1) os << ", groups=" << groups;
  if (!bias.defined()) os << ", bias=False";
  os << ")";
}

}  // namespace ember::vision::ops
