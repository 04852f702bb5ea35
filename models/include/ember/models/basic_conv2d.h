#pragma once
// BasicConv2d of torchvision's GoogLeNet and Inception v3: a bias-free
// convolution `conv`, BatchNorm2d(eps=0.001) `bn`, then ReLU. In inference
// (see vision::ops::Conv2dNormActivation) one convolution with the BatchNorm
// folded in and the ReLU as its post-op.
#include <ember/nn/functional/expanding.h>
#include <ember/nn/module.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/normalization.h>
#include <ember/nn/utils/fusion.h>

namespace ember::models {

class BasicConv2dImpl : public nn::Module {
 public:
  BasicConv2dImpl(int64_t in_channels, int64_t out_channels, nn::functional::ExpandingInts kernel_size,
                  nn::functional::ExpandingInts stride = 1, nn::functional::ExpandingInts padding = 0);
  Tensor forward(const Tensor& x);

  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d bn{nullptr};

 private:
  nn::utils::ConvBnFoldCache fold_;
};
EMBER_MODULE(BasicConv2d);

}  // namespace ember::models
