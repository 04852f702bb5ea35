#include "ember/models/basic_conv2d.h"

#include <ember/nn/functional/activation.h>

namespace ember::models {

BasicConv2dImpl::BasicConv2dImpl(int64_t in_channels, int64_t out_channels, nn::functional::ExpandingInts kernel_size,
                                 nn::functional::ExpandingInts stride, nn::functional::ExpandingInts padding)
    : nn::Module("BasicConv2d") {
  conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions{.in_channels = in_channels,
                                                              .out_channels = out_channels,
                                                              .kernel_size = std::move(kernel_size),
                                                              .stride = std::move(stride),
                                                              .padding = std::move(padding.values),
                                                              .bias = false}));
  bn = register_module("bn", nn::BatchNorm2d(nn::BatchNorm2dOptions{.num_features = out_channels, .eps = 0.001}));
}

Tensor BasicConv2dImpl::forward(const Tensor& x) {
  if (nn::utils::ConvBnFoldCache::applicable(*conv, *bn, x))
    return fold_.forward(*conv, *bn, x, nn::functional::ConvActivation::ReLU);
  Tensor y = bn(conv(x));
  return nn::functional::relu_(y);
}

}  // namespace ember::models
