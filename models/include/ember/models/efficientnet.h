#pragma once
// EfficientNet-B0 (torchvision.models.efficientnet_b0, "EfficientNet:
// Rethinking Model Scaling for Convolutional Neural Networks",
// https://arxiv.org/abs/1905.11946), with torchvision 0.14's layers (MBConv
// blocks with SiLU, squeeze-excitation and stochastic depth), parameter names
// and weight initialisation.
//
//   auto net = models::efficientnet_b0({.num_classes = 10, .stochastic_depth_prob = 0.1});
#include <vector>

#include <ember/models/classifier.h>
#include <ember/nn/container.h>
#include <ember/nn/modules/pooling.h>
#include <ember/vision/ops/misc.h>
#include <ember/vision/ops/stochastic_depth.h>

namespace ember::models {

// One stage of Table 1 of the paper (torchvision's MBConvConfig); channels and
// num_layers already scaled by the width and depth multipliers.
struct MBConvConfig {
  double expand_ratio = 1;
  int64_t kernel = 3;
  int64_t stride = 1;
  int64_t input_channels = 0;
  int64_t out_channels = 0;
  int64_t num_layers = 1;

  // torchvision's MBConvConfig(expand_ratio, kernel, stride, input_channels,
  // out_channels, num_layers, width_mult, depth_mult).
  static MBConvConfig make(double expand_ratio, int64_t kernel, int64_t stride, int64_t input_channels,
                           int64_t out_channels, int64_t num_layers, double width_mult = 1.0,
                           double depth_mult = 1.0);
  static int64_t adjust_channels(double channels, double width_mult, std::optional<int64_t> min_value = std::nullopt);
  static int64_t adjust_depth(int64_t num_layers, double depth_mult);
};

// torchvision's MBConv: the Sequential `block` of an optional 1x1 expansion
// (SiLU), a depthwise convolution (SiLU), squeeze-excitation (SiLU, Sigmoid)
// and a linear 1x1 projection; with a residual connection (stride 1, same
// channels) the block's output goes through `stochastic_depth` ("row" mode)
// before the input is added.
class MBConvImpl : public nn::Module {
 public:
  MBConvImpl(const MBConvConfig& cnf, double stochastic_depth_prob, const vision::ops::NormLayer& norm_layer);
  Tensor forward(const Tensor& input);

  int64_t out_channels;
  bool use_res_connect;
  nn::Sequential block{nullptr};
  vision::ops::StochasticDepth stochastic_depth{nullptr};
};
EMBER_MODULE(MBConv);

struct EfficientNetOptions {
  int64_t num_classes = 1000;
  // Dropout before the classifier (B0: 0.2).
  double dropout = 0.2;
  // The largest stochastic depth probability (the last block's); block i of
  // n drops with stochastic_depth_prob * i / n.
  double stochastic_depth_prob = 0.2;
  vision::ops::NormLayer norm_layer = vision::ops::batch_norm2d();
};

// Children `features` (Sequential: stem, one Sequential of MBConv blocks per
// stage, a 1x1 convolution to last_channel), `avgpool`, `classifier`
// (Sequential(Dropout, Linear)).
class EfficientNetImpl : public ImageClassifierImpl {
 public:
  // last_channel 0: 4x the last stage's channels.
  EfficientNetImpl(const std::vector<MBConvConfig>& inverted_residual_setting, const EfficientNetOptions& options,
                   int64_t last_channel = 0);
  Tensor forward(const Tensor& images) override;

  nn::Sequential features{nullptr}, classifier{nullptr};
  nn::AdaptiveAvgPool2d avgpool{nullptr};
};
EMBER_MODULE(EfficientNet);

// The seven stages of EfficientNet-B0 scaled by width_mult and depth_mult
// (torchvision's _efficientnet_conf for "efficientnet_b*").
std::vector<MBConvConfig> efficientnet_conf(double width_mult, double depth_mult);

EfficientNet efficientnet_b0(const EfficientNetOptions& options = {});

}  // namespace ember::models
