// MobileNetV2 as torchvision 0.14's models/mobilenetv2.py.
#include "ember/models/mobilenet_v2.h"

#include <cmath>

#include <ember/core/error.h>
#include <ember/nn/functional/pooling.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>

#include "model_utils.h"
#include "registry.h"

namespace ember::models {

namespace ops = vision::ops;

MobileNetV2InvertedResidualImpl::MobileNetV2InvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride,
                                                                 double expand_ratio,
                                                                 const ops::NormLayer& norm_layer)
    : nn::Module("InvertedResidual"), stride(stride), out_channels(oup) {
  EMBER_CHECK(stride == 1 || stride == 2, "MobileNetV2 InvertedResidual: stride should be 1 or 2 instead of ", stride);
  const auto hidden_dim = static_cast<int64_t>(std::round(static_cast<double>(inp) * expand_ratio));
  use_res_connect = stride == 1 && inp == oup;
  conv = nn::Sequential();
  if (expand_ratio != 1) {  // pointwise expansion
    conv->push_back(ops::Conv2dNormActivation({.in_channels = inp, .out_channels = hidden_dim, .kernel_size = 1,
                                               .norm_layer = norm_layer,
                                               .activation_layer = ops::activation<nn::ReLU6>()}));
  }
  // depthwise
  conv->push_back(ops::Conv2dNormActivation({.in_channels = hidden_dim, .out_channels = hidden_dim, .stride = stride,
                                             .groups = hidden_dim, .norm_layer = norm_layer,
                                             .activation_layer = ops::activation<nn::ReLU6>()}));
  // pointwise-linear
  conv->push_back(nn::Conv2d(nn::Conv2dOptions{.in_channels = hidden_dim, .out_channels = oup, .kernel_size = 1,
                                               .bias = false}));
  conv->push_back(norm_layer(oup));
  register_module("conv", conv);
}

Tensor MobileNetV2InvertedResidualImpl::forward(const Tensor& x) {
  // The projection (Conv2d, BatchNorm2d) runs folded in inference
  // (SequentialFusion); hooks on `conv` itself need its own forward.
  const bool plain = conv->forward_pre_hooks().empty() && conv->forward_hooks().empty() && !conv->has_forward_setup();
  Tensor y = plain ? fusion_.forward(*conv, x) : conv(x);
  return use_res_connect ? x + y : y;
}

MobileNetV2Impl::MobileNetV2Impl(const MobileNetV2Options& o) : ImageClassifierImpl("MobileNetV2") {
  EMBER_CHECK(o.num_classes > 0, "mobilenet_v2: num_classes must be positive, got ", o.num_classes);
  EMBER_CHECK(o.width_mult > 0, "mobilenet_v2: width_mult must be positive, got ", o.width_mult);
  EMBER_CHECK(o.round_nearest > 0, "mobilenet_v2: round_nearest must be positive, got ", o.round_nearest);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1, "mobilenet_v2: dropout must be in [0, 1], got ", o.dropout);
  EMBER_CHECK(o.norm_layer, "mobilenet_v2: norm_layer is required");
  std::vector<std::array<int64_t, 4>> setting = o.inverted_residual_setting;
  if (setting.empty()) {
    setting = {
        // t, c, n, s
        {1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
    };
  }
  for (const auto& row : setting)
    EMBER_CHECK(row[0] > 0 && row[1] > 0 && row[2] >= 0 && (row[3] == 1 || row[3] == 2),
                "mobilenet_v2: inverted_residual_setting rows are {t > 0, c > 0, n >= 0, s in {1, 2}}, got {", row[0],
                ", ", row[1], ", ", row[2], ", ", row[3], "}");

  int64_t input_channel = detail::make_divisible(32 * o.width_mult, o.round_nearest);
  last_channel = detail::make_divisible(1280 * std::max(1.0, o.width_mult), o.round_nearest);
  features = nn::Sequential();
  features->push_back(ops::Conv2dNormActivation({.in_channels = 3, .out_channels = input_channel, .stride = 2,
                                                 .norm_layer = o.norm_layer,
                                                 .activation_layer = ops::activation<nn::ReLU6>()}));
  for (const auto& [t, c, n, s] : setting) {
    const int64_t output_channel = detail::make_divisible(static_cast<double>(c) * o.width_mult, o.round_nearest);
    for (int64_t i = 0; i < n; ++i) {
      features->push_back(MobileNetV2InvertedResidual(input_channel, output_channel, i == 0 ? s : 1,
                                                      static_cast<double>(t), o.norm_layer));
      input_channel = output_channel;
    }
  }
  features->push_back(ops::Conv2dNormActivation({.in_channels = input_channel, .out_channels = last_channel,
                                                 .kernel_size = 1, .norm_layer = o.norm_layer,
                                                 .activation_layer = ops::activation<nn::ReLU6>()}));
  register_module("features", features);
  classifier = nn::Sequential(nn::Dropout(o.dropout), nn::Linear(last_channel, o.num_classes));
  register_module("classifier", classifier);

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

Tensor MobileNetV2Impl::forward(const Tensor& images) {
  detail::check_images(images, "MobileNetV2");
  Tensor x = features(images);
  x = nn::functional::adaptive_avg_pool2d(x, 1).flatten(1);
  return classifier(x);
}

MobileNetV2 mobilenet_v2(const MobileNetV2Options& options) { return MobileNetV2(options); }

}  // namespace ember::models

namespace ember::models::detail {

void register_mobilenet_v2_models(const AddModel& add) {
  add("mobilenet_v2", [](const ModelOptions& o) -> ImageClassifier {
    MobileNetV2Options options{.num_classes = o.num_classes};
    if (o.dropout) options.dropout = *o.dropout;
    return mobilenet_v2(options).ptr();
  });
}

}  // namespace ember::models::detail
