// Quantizable MobileNetV2 (torchvision/models/quantization/mobilenetv2.py,
// torchvision 0.14). Architecture, names and init follow the float model
// (models/src/mobilenet_v2.cpp); ReLU6 is ReLU, as torchvision's
// _replace_relu makes it before quantizing.
#include "ember/models/quantization/mobilenet_v2.h"

#include <cmath>

#include <ember/ao/nn/quantized/functional.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/core/error.h>
#include <ember/nn/functional/pooling.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>

#include "../model_utils.h"

namespace ember::models::quantization {

namespace ops = vision::ops;
namespace aoq = ember::ao::quantization;

namespace {
ops::Conv2dNormActivation conv_bn_relu(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t groups) {
  return ops::Conv2dNormActivation({.in_channels = in,
                                    .out_channels = out,
                                    .kernel_size = kernel,
                                    .stride = stride,
                                    .groups = groups,
                                    .activation_layer = ops::activation<nn::ReLU>()});
}
}  // namespace

// Global average pooling of a float or quantized tensor (torchvision calls
// nn.functional.adaptive_avg_pool2d, which dispatches on the tensor).
Tensor global_avg_pool(const Tensor& x) {
  return x.is_quantized() ? ao::nn::quantized::functional::adaptive_avg_pool2d(x, 1)
                          : nn::functional::adaptive_avg_pool2d(x, 1);
}

QuantizableInvertedResidualImpl::QuantizableInvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride,
                                                                 double expand_ratio)
    : QuantizableModuleImpl("QuantizableInvertedResidual") {
  EMBER_CHECK(stride == 1 || stride == 2, "QuantizableInvertedResidual: stride should be 1 or 2 instead of ", stride);
  const auto hidden_dim = static_cast<int64_t>(std::round(static_cast<double>(inp) * expand_ratio));
  use_res_connect = stride == 1 && inp == oup;
  nn::Sequential conv;
  if (expand_ratio != 1) conv->push_back(conv_bn_relu(inp, hidden_dim, 1, 1, 1));
  conv->push_back(conv_bn_relu(hidden_dim, hidden_dim, 3, stride, hidden_dim));
  conv->push_back(nn::Conv2d(nn::Conv2dOptions{.in_channels = hidden_dim, .out_channels = oup, .kernel_size = 1,
                                               .bias = false}));
  conv->push_back(nn::BatchNorm2d(oup));
  add("conv", nn::AnyModule(conv));
  add_functional("skip_add");
}

Tensor QuantizableInvertedResidualImpl::forward(const Tensor& x) {
  return use_res_connect ? functional("skip_add").add(x, run("conv", x)) : run("conv", x);
}

void QuantizableInvertedResidualImpl::fuse_model(std::optional<bool> is_qat) {
  auto conv = std::dynamic_pointer_cast<nn::SequentialImpl>(child("conv").ptr());
  EMBER_CHECK(conv != nullptr, "QuantizableInvertedResidual: conv is not a Sequential");
  const auto children = conv->named_children();
  for (size_t i = 0; i + 1 < children.size(); ++i) {
    // torchvision: `type(self.conv[idx]) is nn.Conv2d`.
    if (children.item(i).second->name() == "Conv2d")
      fuse_groups(*conv, {{std::to_string(i), std::to_string(i + 1)}}, is_qat);
  }
}

QuantizableMobileNetV2Impl::QuantizableMobileNetV2Impl(const MobileNetV2Options& o)
    : QuantizableModuleImpl("QuantizableMobileNetV2") {
  EMBER_CHECK(o.num_classes > 0, "mobilenet_v2: num_classes must be positive, got ", o.num_classes);
  EMBER_CHECK(o.width_mult > 0, "mobilenet_v2: width_mult must be positive, got ", o.width_mult);
  EMBER_CHECK(o.round_nearest > 0, "mobilenet_v2: round_nearest must be positive, got ", o.round_nearest);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1, "mobilenet_v2: dropout must be in [0, 1], got ", o.dropout);
  std::vector<std::array<int64_t, 4>> setting = o.inverted_residual_setting;
  if (setting.empty()) {
    setting = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  }
  for (const auto& row : setting)
    EMBER_CHECK(row[0] > 0 && row[1] > 0 && row[2] >= 0 && (row[3] == 1 || row[3] == 2),
                "mobilenet_v2: inverted_residual_setting rows are {t > 0, c > 0, n >= 0, s in {1, 2}}");
  int64_t input_channel = detail::make_divisible(32 * o.width_mult, o.round_nearest);
  last_channel = detail::make_divisible(1280 * std::max(1.0, o.width_mult), o.round_nearest);
  nn::Sequential features;
  features->push_back(conv_bn_relu(3, input_channel, 3, 2, 1));
  for (const auto& [t, c, n, s] : setting) {
    const int64_t output_channel = detail::make_divisible(static_cast<double>(c) * o.width_mult, o.round_nearest);
    for (int64_t i = 0; i < n; ++i) {
      features->push_back(
          QuantizableInvertedResidual(input_channel, output_channel, i == 0 ? s : 1, static_cast<double>(t)));
      input_channel = output_channel;
    }
  }
  features->push_back(conv_bn_relu(input_channel, last_channel, 1, 1, 1));
  add("features", nn::AnyModule(features));
  add("classifier", nn::AnyModule(nn::Sequential(nn::Dropout(o.dropout), nn::Linear(last_channel, o.num_classes))));
  add("quant", nn::AnyModule(aoq::QuantMarker()));
  add("dequant", nn::AnyModule(aoq::DeQuantMarker()));

  // torchvision's initialisation.
  detail::for_each_layer<nn::Conv2dImpl>(*this, [](nn::Conv2dImpl& m) {
    nn::init::kaiming_normal_(m.weight, 0, nn::init::FanMode::FanOut);
    if (m.bias.defined()) nn::init::zeros_(m.bias);
  });
  detail::for_each_layer<nn::BatchNorm2dImpl>(*this, [](nn::BatchNorm2dImpl& m) {
    if (m.weight.defined()) nn::init::ones_(m.weight);
    if (m.bias.defined()) nn::init::zeros_(m.bias);
  });
  detail::for_each_layer<nn::LinearImpl>(*this, [](nn::LinearImpl& m) {
    nn::init::normal_(m.weight, 0, 0.01);
    nn::init::zeros_(m.bias);
  });
}

Tensor QuantizableMobileNetV2Impl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 4, "QuantizableMobileNetV2: expected a 4-d input [N, 3, H, W], got sizes ", input.sizes());
  Tensor x = run("features", run("quant", input));
  x = global_avg_pool(x).flatten(1);
  return run("dequant", run("classifier", x));
}

void QuantizableMobileNetV2Impl::fuse_model(std::optional<bool> is_qat) {
  for (const auto& m : modules(/*include_self=*/false)) {
    if (dynamic_cast<ops::Conv2dNormActivationImpl*>(m.get())) fuse_groups(*m, {{"0", "1", "2"}}, is_qat);
  }
  fuse_descendants(is_qat);
}

QuantizableMobileNetV2 mobilenet_v2(const MobileNetV2Options& options) { return QuantizableMobileNetV2(options); }

}  // namespace ember::models::quantization
