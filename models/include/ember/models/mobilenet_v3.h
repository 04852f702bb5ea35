#pragma once
// MobileNetV3 large and small (torchvision.models.mobilenet_v3_large/_small,
// "Searching for MobileNetV3", https://arxiv.org/abs/1905.02244), with
// torchvision 0.14's layers, parameter names and weight initialisation.
//
//   auto net = models::mobilenet_v3_large({.num_classes = 10});
//   auto small = models::mobilenet_v3_small({.width_mult = 0.75, .reduced_tail = true});
#include <string>
#include <utility>
#include <vector>

#include <ember/models/classifier.h>
#include <ember/nn/container.h>
#include <ember/vision/ops/misc.h>

namespace ember::models {

// One bottleneck of Tables 1 and 2 of the paper (torchvision's
// InvertedResidualConfig); channels are already scaled by width_mult.
struct MobileNetV3BlockConfig {
  int64_t input_channels = 0;
  int64_t kernel = 3;
  int64_t expanded_channels = 0;
  int64_t out_channels = 0;
  bool use_se = false;
  bool use_hs = false;  // Hardswish ("HS") instead of ReLU ("RE")
  int64_t stride = 1;
  int64_t dilation = 1;

  // torchvision's InvertedResidualConfig(...) (activation "RE" or "HS").
  static MobileNetV3BlockConfig make(int64_t input_channels, int64_t kernel, int64_t expanded_channels,
                                     int64_t out_channels, bool use_se, const std::string& activation,
                                     int64_t stride, int64_t dilation, double width_mult);
  static int64_t adjust_channels(int64_t channels, double width_mult);
};

// torchvision's mobilenetv3.InvertedResidual: the Sequential `block` of an
// optional 1x1 expansion, a depthwise convolution, an optional
// squeeze-excitation (Hardsigmoid scale) and a linear 1x1 projection; the
// input is added back when stride == 1 and the channels match.
class MobileNetV3InvertedResidualImpl : public nn::Module {
 public:
  MobileNetV3InvertedResidualImpl(const MobileNetV3BlockConfig& cnf, const vision::ops::NormLayer& norm_layer);
  Tensor forward(const Tensor& input);

  int64_t out_channels;
  bool use_res_connect;
  nn::Sequential block{nullptr};
};
EMBER_MODULE(MobileNetV3InvertedResidual);

// The arguments of mobilenet_v3_large / mobilenet_v3_small.
struct MobileNetV3Options {
  int64_t num_classes = 1000;
  double width_mult = 1.0;
  // Halves the channels of the last blocks (torchvision's reduced_tail).
  bool reduced_tail = false;
  // Dilated last blocks instead of a stride (torchvision's dilated).
  bool dilated = false;
  double dropout = 0.2;
  // Default: BatchNorm2d(eps=0.001, momentum=0.01), torchvision's.
  vision::ops::NormLayer norm_layer = vision::ops::batch_norm2d(0.001, 0.01);
};

// torchvision's _mobilenet_v3_conf: the blocks and last_channel of "mobilenet_v3_large"
// or "mobilenet_v3_small".
std::pair<std::vector<MobileNetV3BlockConfig>, int64_t> mobilenet_v3_conf(const std::string& arch,
                                                                         double width_mult = 1.0,
                                                                         bool reduced_tail = false,
                                                                         bool dilated = false);

// Children `features` (Sequential: stem, the blocks, a 1x1 convolution to 6x
// the last block's channels), `avgpool`, `classifier` (Sequential(Linear,
// Hardswish, Dropout, Linear)).
class MobileNetV3Impl : public ImageClassifierImpl {
 public:
  MobileNetV3Impl(const std::vector<MobileNetV3BlockConfig>& inverted_residual_setting, int64_t last_channel,
                  int64_t num_classes = 1000,
                  const vision::ops::NormLayer& norm_layer = vision::ops::batch_norm2d(0.001, 0.01),
                  double dropout = 0.2);
  Tensor forward(const Tensor& images) override;

  nn::Sequential features{nullptr}, classifier{nullptr};
  nn::AdaptiveAvgPool2d avgpool{nullptr};
};
EMBER_MODULE(MobileNetV3);

MobileNetV3 mobilenet_v3_large(const MobileNetV3Options& options = {});
MobileNetV3 mobilenet_v3_small(const MobileNetV3Options& options = {});

}  // namespace ember::models
