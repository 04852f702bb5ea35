// Quantizable MobileNetV3 (torchvision/models/quantization/mobilenetv3.py,
// torchvision 0.14). Architecture, names and init follow the float model
// (models/src/mobilenet_v3.cpp).
#include "ember/models/quantization/mobilenet_v3.h"

#include <ember/ao/quantization/quant_markers.h>
#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>

#include "../model_utils.h"

namespace ember::models::quantization {

namespace ops = vision::ops;
namespace aoq = ember::ao::quantization;

namespace {
const ops::NormLayer& norm_layer() {
  static const ops::NormLayer norm = ops::batch_norm2d(0.001, 0.01);
  return norm;
}
}  // namespace

// ---- QuantizableSqueezeExcitation ----

QuantizableSqueezeExcitationImpl::QuantizableSqueezeExcitationImpl(int64_t input_channels, int64_t squeeze_channels)
    : QuantizableModuleImpl("QuantizableSqueezeExcitation") {
  add("avgpool", nn::AnyModule(nn::AdaptiveAvgPool2d(1)));
  add("fc1", nn::AnyModule(nn::Conv2d(input_channels, squeeze_channels, 1)));
  add("fc2", nn::AnyModule(nn::Conv2d(squeeze_channels, input_channels, 1)));
  add("activation", nn::AnyModule(nn::ReLU()));
  add("scale_activation", nn::AnyModule(nn::Hardsigmoid()));
  add_functional("skip_mul");
}

Tensor QuantizableSqueezeExcitationImpl::forward(const Tensor& x) {
  Tensor s = run("scale_activation", run("fc2", run("activation", run("fc1", run("avgpool", x)))));
  return functional("skip_mul").mul(s, x);
}

void QuantizableSqueezeExcitationImpl::fuse_model(std::optional<bool> is_qat) {
  fuse_groups(*this, {{"fc1", "activation"}}, is_qat);
}

// ---- QuantizableInvertedResidual (V3) ----

QuantizableInvertedResidualV3Impl::QuantizableInvertedResidualV3Impl(const MobileNetV3BlockConfig& cnf)
    : QuantizableModuleImpl("QuantizableInvertedResidual") {
  EMBER_CHECK(cnf.stride >= 1 && cnf.stride <= 2, "MobileNetV3 InvertedResidual: illegal stride value ", cnf.stride);
  use_res_connect = cnf.stride == 1 && cnf.input_channels == cnf.out_channels;
  const ops::ActivationLayer act = cnf.use_hs ? ops::activation<nn::Hardswish>() : ops::activation<nn::ReLU>();
  nn::Sequential block;
  if (cnf.expanded_channels != cnf.input_channels) {
    block->push_back(ops::Conv2dNormActivation({.in_channels = cnf.input_channels,
                                                .out_channels = cnf.expanded_channels, .kernel_size = 1,
                                                .norm_layer = norm_layer(), .activation_layer = act}));
  }
  block->push_back(ops::Conv2dNormActivation({.in_channels = cnf.expanded_channels,
                                              .out_channels = cnf.expanded_channels, .kernel_size = cnf.kernel,
                                              .stride = cnf.dilation > 1 ? 1 : cnf.stride,
                                              .groups = cnf.expanded_channels, .norm_layer = norm_layer(),
                                              .activation_layer = act, .dilation = cnf.dilation}));
  if (cnf.use_se) {
    const int64_t squeeze = detail::make_divisible(static_cast<double>(cnf.expanded_channels / 4), 8);
    block->push_back(QuantizableSqueezeExcitation(cnf.expanded_channels, squeeze));
  }
  block->push_back(ops::Conv2dNormActivation({.in_channels = cnf.expanded_channels, .out_channels = cnf.out_channels,
                                              .kernel_size = 1, .norm_layer = norm_layer(),
                                              .activation_layer = nullptr}));
  add("block", nn::AnyModule(block));
  add_functional("skip_add");
}

Tensor QuantizableInvertedResidualV3Impl::forward(const Tensor& x) {
  return use_res_connect ? functional("skip_add").add(x, run("block", x)) : run("block", x);
}

// ---- QuantizableMobileNetV3 ----

QuantizableMobileNetV3Impl::QuantizableMobileNetV3Impl(const std::vector<MobileNetV3BlockConfig>& setting,
                                                       int64_t last_channel, int64_t num_classes, double dropout)
    : QuantizableModuleImpl("QuantizableMobileNetV3") {
  EMBER_CHECK(!setting.empty(), "MobileNetV3: The inverted_residual_setting should not be empty");
  EMBER_CHECK(num_classes > 0, "MobileNetV3: num_classes must be positive, got ", num_classes);
  EMBER_CHECK(dropout >= 0 && dropout <= 1, "MobileNetV3: dropout must be in [0, 1], got ", dropout);
  nn::Sequential features;
  features->push_back(ops::Conv2dNormActivation({.in_channels = 3, .out_channels = setting.front().input_channels,
                                                 .kernel_size = 3, .stride = 2, .norm_layer = norm_layer(),
                                                 .activation_layer = ops::activation<nn::Hardswish>()}));
  for (const auto& cnf : setting) features->push_back(QuantizableInvertedResidualV3(cnf));
  const int64_t lastconv_in = setting.back().out_channels;
  const int64_t lastconv_out = 6 * lastconv_in;
  features->push_back(ops::Conv2dNormActivation({.in_channels = lastconv_in, .out_channels = lastconv_out,
                                                 .kernel_size = 1, .norm_layer = norm_layer(),
                                                 .activation_layer = ops::activation<nn::Hardswish>()}));
  add("features", nn::AnyModule(features));
  add("avgpool", nn::AnyModule(nn::AdaptiveAvgPool2d(1)));
  add("classifier", nn::AnyModule(nn::Sequential(nn::Linear(lastconv_out, last_channel), nn::Hardswish(),
                                                 nn::Dropout(dropout), nn::Linear(last_channel, num_classes))));
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

Tensor QuantizableMobileNetV3Impl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 4, "QuantizableMobileNetV3: expected a 4-d input [N, 3, H, W], got sizes ", input.sizes());
  Tensor x = run("avgpool", run("features", run("quant", input))).flatten(1);
  return run("dequant", run("classifier", x));
}

void QuantizableMobileNetV3Impl::fuse_model(std::optional<bool> is_qat) {
  for (const auto& m : modules(/*include_self=*/false)) {
    if (auto* cna = dynamic_cast<ops::Conv2dNormActivationImpl*>(m.get())) {
      std::vector<std::string> group = {"0", "1"};
      const auto children = cna->named_children();
      if (children.size() == 3 && children.item(2).second->name() == "ReLU") group.push_back("2");
      fuse_groups(*cna, {group}, is_qat);
    } else if (auto* se = dynamic_cast<QuantizableSqueezeExcitationImpl*>(m.get())) {
      se->fuse_model(is_qat);
    }
  }
}

QuantizableMobileNetV3 mobilenet_v3_large(const MobileNetV3Options& o) {
  EMBER_CHECK(o.width_mult > 0, "mobilenet_v3_large: width_mult must be positive, got ", o.width_mult);
  auto [setting, last_channel] = mobilenet_v3_conf("mobilenet_v3_large", o.width_mult, o.reduced_tail, o.dilated);
  return QuantizableMobileNetV3(setting, last_channel, o.num_classes, o.dropout);
}

}  // namespace ember::models::quantization
