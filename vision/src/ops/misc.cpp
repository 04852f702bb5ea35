// torchvision.ops.misc: Conv2dNormActivation and SqueezeExcitation.
#include "ember/vision/ops/misc.h"

#include <ember/core/error.h>
#include <ember/nn/modules/normalization.h>

namespace ember::vision::ops {

NormLayer batch_norm2d(double eps, std::optional<double> momentum) {
  return [eps, momentum](int64_t num_features) {
    return nn::AnyModule(nn::BatchNorm2d(nn::BatchNorm2dOptions{.num_features = num_features, .eps = eps,
                                                                .momentum = momentum}));
  };
}

namespace {

// torchvision's default padding: (kernel_size - 1) // 2 * dilation per dim.
std::vector<int64_t> default_padding(const Conv2dNormActivationOptions& o) {
  const auto k = o.kernel_size.expand(2, "Conv2dNormActivation", "kernel_size");
  const auto d = o.dilation.expand(2, "Conv2dNormActivation", "dilation");
  return {(k[0] - 1) / 2 * d[0], (k[1] - 1) / 2 * d[1]};
}

}  // namespace

Conv2dNormActivationImpl::Conv2dNormActivationImpl(const Conv2dNormActivationOptions& o)
    : out_channels(o.out_channels) {
  set_name("Conv2dNormActivation");
  const auto padding = o.padding ? o.padding->expand(2, "Conv2dNormActivation", "padding") : default_padding(o);
  const bool bias = o.bias.value_or(!o.norm_layer);
  push_back(nn::AnyModule(nn::Conv2d(nn::Conv2dOptions{.in_channels = o.in_channels,
                                                       .out_channels = o.out_channels,
                                                       .kernel_size = o.kernel_size,
                                                       .stride = o.stride,
                                                       .padding = padding,
                                                       .dilation = o.dilation,
                                                       .groups = o.groups,
                                                       .bias = bias})));
  if (o.norm_layer) push_back(o.norm_layer(o.out_channels));
  if (o.activation_layer) push_back(o.activation_layer(o.inplace.value_or(false)));

}

bool Conv2dNormActivationImpl::fused_for(const Tensor& x) const {
  auto bn = size() >= 2 ? std::dynamic_pointer_cast<nn::BatchNorm2dImpl>((*this)[1]) : nullptr;
  if (!bn || !nn::utils::ConvBnFoldCache::applicable(*conv(), *bn, x)) return false;
  return size() == 2 || nn::utils::fusable_activation(*(*this)[2]).has_value();
}

Tensor Conv2dNormActivationImpl::forward(const Tensor& x) { return fusion_.forward(*this, x); }

SqueezeExcitationImpl::SqueezeExcitationImpl(const SqueezeExcitationOptions& o) : nn::Module("SqueezeExcitation") {
  EMBER_CHECK(o.input_channels > 0 && o.squeeze_channels > 0,
              "SqueezeExcitation: input_channels and squeeze_channels must be positive, got ", o.input_channels,
              " and ", o.squeeze_channels);
  EMBER_CHECK(o.activation && o.scale_activation, "SqueezeExcitation: activation and scale_activation are required");
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(1));
  fc1 = register_module("fc1", nn::Conv2d(o.input_channels, o.squeeze_channels, 1));
  fc2 = register_module("fc2", nn::Conv2d(o.squeeze_channels, o.input_channels, 1));
  activation = o.activation();
  register_module("activation", activation->ptr());
  scale_activation = o.scale_activation();
  register_module("scale_activation", scale_activation->ptr());
}

Tensor SqueezeExcitationImpl::scale(const Tensor& input) {
  Tensor s = avgpool(input);
  s = fc1(s);
  s = activation->forward(s);
  s = fc2(s);
  return scale_activation->forward(s);
}

Tensor SqueezeExcitationImpl::forward(const Tensor& input) { return scale(input) * input; }

}  // namespace ember::vision::ops
