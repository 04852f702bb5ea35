// MobileNetV3 as torchvision 0.14's models/mobilenetv3.py.
#include "ember/models/mobilenet_v3.h"

#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>
#include <ember/nn/modules/pooling.h>

#include "model_utils.h"
#include "registry.h"

namespace ember::models {

namespace ops = vision::ops;

int64_t MobileNetV3BlockConfig::adjust_channels(int64_t channels, double width_mult) {
  return detail::make_divisible(static_cast<double>(channels) * width_mult, 8);
}

MobileNetV3BlockConfig MobileNetV3BlockConfig::make(int64_t input_channels, int64_t kernel,
                                                    int64_t expanded_channels, int64_t out_channels, bool use_se,
                                                    const std::string& activation, int64_t stride, int64_t dilation,
                                                    double width_mult) {
  EMBER_CHECK(activation == "RE" || activation == "HS", "MobileNetV3: activation must be \"RE\" or \"HS\", got \"",
              activation, "\"");
  return {.input_channels = adjust_channels(input_channels, width_mult),
          .kernel = kernel,
          .expanded_channels = adjust_channels(expanded_channels, width_mult),
          .out_channels = adjust_channels(out_channels, width_mult),
          .use_se = use_se,
          .use_hs = activation == "HS",
          .stride = stride,
          .dilation = dilation};
}

MobileNetV3InvertedResidualImpl::MobileNetV3InvertedResidualImpl(const MobileNetV3BlockConfig& cnf,
                                                                 const ops::NormLayer& norm_layer)
    : nn::Module("InvertedResidual"), out_channels(cnf.out_channels) {
  EMBER_CHECK(cnf.stride >= 1 && cnf.stride <= 2, "MobileNetV3 InvertedResidual: illegal stride value ", cnf.stride);
  use_res_connect = cnf.stride == 1 && cnf.input_channels == cnf.out_channels;
  const ops::ActivationLayer activation_layer =
      cnf.use_hs ? ops::activation<nn::Hardswish>() : ops::activation<nn::ReLU>();
  block = nn::Sequential();
  if (cnf.expanded_channels != cnf.input_channels) {  // expand
    block->push_back(ops::Conv2dNormActivation({.in_channels = cnf.input_channels,
                                                .out_channels = cnf.expanded_channels, .kernel_size = 1,
                                                .norm_layer = norm_layer, .activation_layer = activation_layer}));
  }
  // depthwise
  block->push_back(ops::Conv2dNormActivation({.in_channels = cnf.expanded_channels,
                                              .out_channels = cnf.expanded_channels, .kernel_size = cnf.kernel,
                                              .stride = cnf.dilation > 1 ? 1 : cnf.stride,
                                              .groups = cnf.expanded_channels, .norm_layer = norm_layer,
                                              .activation_layer = activation_layer, .dilation = cnf.dilation}));
  if (cnf.use_se) {
    const int64_t squeeze_channels = detail::make_divisible(static_cast<double>(cnf.expanded_channels / 4), 8);
    block->push_back(ops::SqueezeExcitation({.input_channels = cnf.expanded_channels,
                                             .squeeze_channels = squeeze_channels,
                                             .scale_activation = ops::module_factory<nn::Hardsigmoid>()}));
  }
  // project
  block->push_back(ops::Conv2dNormActivation({.in_channels = cnf.expanded_channels,
                                              .out_channels = cnf.out_channels, .kernel_size = 1,
                                              .norm_layer = norm_layer, .activation_layer = nullptr}));
  register_module("block", block);
}

Tensor MobileNetV3InvertedResidualImpl::forward(const Tensor& input) {
  Tensor result = block(input);
  if (use_res_connect) result.add_(input);
  return result;
}

std::pair<std::vector<MobileNetV3BlockConfig>, int64_t> mobilenet_v3_conf(const std::string& arch,
                                                                         double width_mult, bool reduced_tail,
                                                                         bool dilated) {
  const int64_t r = reduced_tail ? 2 : 1;
  const int64_t d = dilated ? 2 : 1;
  auto bneck = [&](int64_t in, int64_t k, int64_t exp, int64_t out, bool se, const char* act, int64_t s,
                   int64_t dil) { return MobileNetV3BlockConfig::make(in, k, exp, out, se, act, s, dil, width_mult); };
  if (arch == "mobilenet_v3_large") {
    std::vector<MobileNetV3BlockConfig> setting = {
        bneck(16, 3, 16, 16, false, "RE", 1, 1),
        bneck(16, 3, 64, 24, false, "RE", 2, 1),  // C1
        bneck(24, 3, 72, 24, false, "RE", 1, 1),
        bneck(24, 5, 72, 40, true, "RE", 2, 1),  // C2
        bneck(40, 5, 120, 40, true, "RE", 1, 1),
        bneck(40, 5, 120, 40, true, "RE", 1, 1),
        bneck(40, 3, 240, 80, false, "HS", 2, 1),  // C3
        bneck(80, 3, 200, 80, false, "HS", 1, 1),
        bneck(80, 3, 184, 80, false, "HS", 1, 1),
        bneck(80, 3, 184, 80, false, "HS", 1, 1),
        bneck(80, 3, 480, 112, true, "HS", 1, 1),
        bneck(112, 3, 672, 112, true, "HS", 1, 1),
        bneck(112, 5, 672, 160 / r, true, "HS", 2, d),  // C4
        bneck(160 / r, 5, 960 / r, 160 / r, true, "HS", 1, d),
        bneck(160 / r, 5, 960 / r, 160 / r, true, "HS", 1, d),
    };
    return {setting, MobileNetV3BlockConfig::adjust_channels(1280 / r, width_mult)};  // C5
  }
  if (arch == "mobilenet_v3_small") {
    std::vector<MobileNetV3BlockConfig> setting = {
        bneck(16, 3, 16, 16, true, "RE", 2, 1),  // C1
        bneck(16, 3, 72, 24, false, "RE", 2, 1),  // C2
        bneck(24, 3, 88, 24, false, "RE", 1, 1),
        bneck(24, 5, 96, 40, true, "HS", 2, 1),  // C3
        bneck(40, 5, 240, 40, true, "HS", 1, 1),
        bneck(40, 5, 240, 40, true, "HS", 1, 1),
        bneck(40, 5, 120, 48, true, "HS", 1, 1),
        bneck(48, 5, 144, 48, true, "HS", 1, 1),
        bneck(48, 5, 288, 96 / r, true, "HS", 2, d),  // C4
        bneck(96 / r, 5, 576 / r, 96 / r, true, "HS", 1, d),
        bneck(96 / r, 5, 576 / r, 96 / r, true, "HS", 1, d),
    };
    return {setting, MobileNetV3BlockConfig::adjust_channels(1024 / r, width_mult)};  // C5
  }
  EMBER_FAIL("mobilenet_v3_conf: Unsupported model type ", arch,
             " (expected \"mobilenet_v3_large\" or \"mobilenet_v3_small\")");
}

MobileNetV3Impl::MobileNetV3Impl(const std::vector<MobileNetV3BlockConfig>& setting, int64_t last_channel,
                                 int64_t num_classes, const ops::NormLayer& norm_layer, double dropout)
    : ImageClassifierImpl("MobileNetV3") {
  EMBER_CHECK(!setting.empty(), "MobileNetV3: The inverted_residual_setting should not be empty");
  EMBER_CHECK(num_classes > 0, "MobileNetV3: num_classes must be positive, got ", num_classes);
  EMBER_CHECK(dropout >= 0 && dropout <= 1, "MobileNetV3: dropout must be in [0, 1], got ", dropout);
  EMBER_CHECK(norm_layer, "MobileNetV3: norm_layer is required");
  features = nn::Sequential();
  features->push_back(ops::Conv2dNormActivation({.in_channels = 3, .out_channels = setting.front().input_channels,
                                                 .kernel_size = 3, .stride = 2, .norm_layer = norm_layer,
                                                 .activation_layer = ops::activation<nn::Hardswish>()}));
  for (const auto& cnf : setting) features->push_back(MobileNetV3InvertedResidual(cnf, norm_layer));
  const int64_t lastconv_input_channels = setting.back().out_channels;
  const int64_t lastconv_output_channels = 6 * lastconv_input_channels;
  features->push_back(ops::Conv2dNormActivation({.in_channels = lastconv_input_channels,
                                                 .out_channels = lastconv_output_channels, .kernel_size = 1,
                                                 .norm_layer = norm_layer,
                                                 .activation_layer = ops::activation<nn::Hardswish>()}));
  register_module("features", features);
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(1));
  classifier = nn::Sequential(nn::Linear(lastconv_output_channels, last_channel), nn::Hardswish(true),
                              nn::Dropout(dropout, true), nn::Linear(last_channel, num_classes));
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

Tensor MobileNetV3Impl::forward(const Tensor& images) {
  detail::check_images(images, "MobileNetV3");
  Tensor x = features(images);
  x = avgpool(x).flatten(1);
  return classifier(x);
}

namespace {

MobileNetV3 build(const char* arch, const MobileNetV3Options& o) {
  EMBER_CHECK(o.width_mult > 0, arch, ": width_mult must be positive, got ", o.width_mult);
  auto [setting, last_channel] = mobilenet_v3_conf(arch, o.width_mult, o.reduced_tail, o.dilated);
  return MobileNetV3(std::make_shared<MobileNetV3Impl>(setting, last_channel, o.num_classes, o.norm_layer, o.dropout));
}

}  // namespace

MobileNetV3 mobilenet_v3_large(const MobileNetV3Options& options) { return build("mobilenet_v3_large", options); }
MobileNetV3 mobilenet_v3_small(const MobileNetV3Options& options) { return build("mobilenet_v3_small", options); }

}  // namespace ember::models

namespace ember::models::detail {

void register_mobilenet_v3_models(const AddModel& add) {
  auto options = [](const ModelOptions& o) {
    MobileNetV3Options options{.num_classes = o.num_classes};
    if (o.dropout) options.dropout = *o.dropout;
    return options;
  };
  add("mobilenet_v3_large", [options](const ModelOptions& o) -> ImageClassifier {
    return mobilenet_v3_large(options(o)).ptr();
  });
  add("mobilenet_v3_small", [options](const ModelOptions& o) -> ImageClassifier {
    return mobilenet_v3_small(options(o)).ptr();
  });
}

}  // namespace ember::models::detail
