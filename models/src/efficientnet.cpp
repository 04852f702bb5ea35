// EfficientNet-B0 as torchvision 0.14's models/efficientnet.py.
#include "ember/models/efficientnet.h"

#include <cmath>

#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>

#include "model_utils.h"
#include "registry.h"

namespace ember::models {

namespace ops = vision::ops;

int64_t MBConvConfig::adjust_channels(double channels, double width_mult, std::optional<int64_t> min_value) {
  return detail::make_divisible(channels * width_mult, 8, min_value);
}

int64_t MBConvConfig::adjust_depth(int64_t num_layers, double depth_mult) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(num_layers) * depth_mult));
}

MBConvConfig MBConvConfig::make(double expand_ratio, int64_t kernel, int64_t stride, int64_t input_channels,
                                int64_t out_channels, int64_t num_layers, double width_mult, double depth_mult) {
  return {.expand_ratio = expand_ratio,
          .kernel = kernel,
          .stride = stride,
          .input_channels = adjust_channels(static_cast<double>(input_channels), width_mult),
          .out_channels = adjust_channels(static_cast<double>(out_channels), width_mult),
          .num_layers = adjust_depth(num_layers, depth_mult)};
}

MBConvImpl::MBConvImpl(const MBConvConfig& cnf, double stochastic_depth_prob, const ops::NormLayer& norm_layer)
    : nn::Module("MBConv"), out_channels(cnf.out_channels) {
  EMBER_CHECK(cnf.stride >= 1 && cnf.stride <= 2, "MBConv: illegal stride value ", cnf.stride);
  use_res_connect = cnf.stride == 1 && cnf.input_channels == cnf.out_channels;
  const auto silu = ops::activation<nn::SiLU>();
  block = nn::Sequential();
  const int64_t expanded_channels =
      MBConvConfig::adjust_channels(static_cast<double>(cnf.input_channels), cnf.expand_ratio);
  if (expanded_channels != cnf.input_channels) {  // expand
    block->push_back(ops::Conv2dNormActivation({.in_channels = cnf.input_channels,
                                                .out_channels = expanded_channels, .kernel_size = 1,
                                                .norm_layer = norm_layer, .activation_layer = silu}));
  }
  // depthwise
  block->push_back(ops::Conv2dNormActivation({.in_channels = expanded_channels, .out_channels = expanded_channels,
                                              .kernel_size = cnf.kernel, .stride = cnf.stride,
                                              .groups = expanded_channels, .norm_layer = norm_layer,
                                              .activation_layer = silu}));
  // squeeze and excitation
  const int64_t squeeze_channels = std::max<int64_t>(1, cnf.input_channels / 4);
  block->push_back(ops::SqueezeExcitation({.input_channels = expanded_channels,
                                           .squeeze_channels = squeeze_channels,
                                           .activation = ops::module_factory<nn::SiLU>(true)}));
  // project
  block->push_back(ops::Conv2dNormActivation({.in_channels = expanded_channels, .out_channels = cnf.out_channels,
                                              .kernel_size = 1, .norm_layer = norm_layer,
                                              .activation_layer = nullptr}));
  register_module("block", block);
  stochastic_depth = register_module("stochastic_depth", ops::StochasticDepth(stochastic_depth_prob, "row"));
}

Tensor MBConvImpl::forward(const Tensor& input) {
  Tensor result = block(input);
  if (use_res_connect) {
    result = stochastic_depth(result);
    result = result + input;
  }
  return result;
}

std::vector<MBConvConfig> efficientnet_conf(double width_mult, double depth_mult) {
  auto bneck = [&](double t, int64_t k, int64_t s, int64_t in, int64_t out, int64_t n) {
    return MBConvConfig::make(t, k, s, in, out, n, width_mult, depth_mult);
  };
  return {bneck(1, 3, 1, 32, 16, 1),  bneck(6, 3, 2, 16, 24, 2),   bneck(6, 5, 2, 24, 40, 2),
          bneck(6, 3, 2, 40, 80, 3),  bneck(6, 5, 1, 80, 112, 3),  bneck(6, 5, 2, 112, 192, 4),
          bneck(6, 3, 1, 192, 320, 1)};
}

EfficientNetImpl::EfficientNetImpl(const std::vector<MBConvConfig>& setting, const EfficientNetOptions& o,
                                   int64_t last_channel)
    : ImageClassifierImpl("EfficientNet") {
  EMBER_CHECK(!setting.empty(), "EfficientNet: The inverted_residual_setting should not be empty");
  EMBER_CHECK(o.num_classes > 0, "EfficientNet: num_classes must be positive, got ", o.num_classes);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1, "EfficientNet: dropout must be in [0, 1], got ", o.dropout);
  EMBER_CHECK(o.stochastic_depth_prob >= 0 && o.stochastic_depth_prob <= 1,
              "EfficientNet: stochastic_depth_prob must be in [0, 1], got ", o.stochastic_depth_prob);
  EMBER_CHECK(o.norm_layer, "EfficientNet: norm_layer is required");
  features = nn::Sequential();
  features->push_back(ops::Conv2dNormActivation({.in_channels = 3, .out_channels = setting.front().input_channels,
                                                 .kernel_size = 3, .stride = 2, .norm_layer = o.norm_layer,
                                                 .activation_layer = ops::activation<nn::SiLU>()}));
  int64_t total_stage_blocks = 0;
  for (const auto& cnf : setting) total_stage_blocks += cnf.num_layers;
  int64_t stage_block_id = 0;
  for (const auto& cnf : setting) {
    nn::Sequential stage;
    for (int64_t i = 0; i < cnf.num_layers; ++i) {
      MBConvConfig block_cnf = cnf;
      if (i > 0) {  // not the first block of the stage
        block_cnf.input_channels = block_cnf.out_channels;
        block_cnf.stride = 1;
      }
      // the stochastic depth probability grows with the block's depth
      const double sd_prob =
          o.stochastic_depth_prob * static_cast<double>(stage_block_id) / static_cast<double>(total_stage_blocks);
      stage->push_back(MBConv(block_cnf, sd_prob, o.norm_layer));
      ++stage_block_id;
    }
    features->push_back(stage);
  }
  const int64_t lastconv_input_channels = setting.back().out_channels;
  const int64_t lastconv_output_channels = last_channel > 0 ? last_channel : 4 * lastconv_input_channels;
  features->push_back(ops::Conv2dNormActivation({.in_channels = lastconv_input_channels,
                                                 .out_channels = lastconv_output_channels, .kernel_size = 1,
                                                 .norm_layer = o.norm_layer,
                                                 .activation_layer = ops::activation<nn::SiLU>()}));
  register_module("features", features);
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(1));
  classifier = nn::Sequential(nn::Dropout(o.dropout, true), nn::Linear(lastconv_output_channels, o.num_classes));
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
    const double init_range = 1.0 / std::sqrt(static_cast<double>(m.options.out));
    nn::init::uniform_(m.weight, -init_range, init_range);
    nn::init::zeros_(m.bias);
  });
}

Tensor EfficientNetImpl::forward(const Tensor& images) {
  detail::check_images(images, "EfficientNet");
  Tensor x = features(images);
  x = avgpool(x).flatten(1);
  return classifier(x);
}

EfficientNet efficientnet_b0(const EfficientNetOptions& options) {
  return EfficientNet(std::make_shared<EfficientNetImpl>(efficientnet_conf(1.0, 1.0), options));
}

}  // namespace ember::models

namespace ember::models::detail {

void register_efficientnet_models(const AddModel& add) {
  add("efficientnet_b0", [](const ModelOptions& o) -> ImageClassifier {
    EfficientNetOptions options{.num_classes = o.num_classes};
    if (o.dropout) options.dropout = *o.dropout;
    return efficientnet_b0(options).ptr();
  });
}

}  // namespace ember::models::detail
