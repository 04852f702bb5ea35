#pragma once
// MobileNetV2 (torchvision.models.mobilenet_v2, "MobileNetV2: Inverted
// Residuals and Linear Bottlenecks", https://arxiv.org/abs/1801.04381), with
// torchvision 0.14's layers, parameter names and weight initialisation.
//
//   auto net = models::mobilenet_v2({.num_classes = 10, .width_mult = 0.5});
//   Tensor logits = net(images);                 // [N, 3, H, W] -> [N, 10]
//   net->load_state_dict(serialize::load_torch_state_dict("mobilenet_v2.pth"));
#include <array>
#include <vector>

#include <ember/models/classifier.h>
#include <ember/nn/container.h>
#include <ember/nn/utils/fusion.h>
#include <ember/vision/ops/misc.h>

namespace ember::models {

// torchvision's mobilenetv2.InvertedResidual (printed under that name): an
// optional 1x1 expansion (ReLU6), a 3x3 depthwise convolution (ReLU6) and a
// linear 1x1 projection, in the Sequential `conv`; the input is added back when
// stride == 1 and inp == oup. In inference (see Conv2dNormActivation) the
// projection's BatchNorm is folded into its convolution too.
class MobileNetV2InvertedResidualImpl : public nn::Module {
 public:
  MobileNetV2InvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride, double expand_ratio,
                                  const vision::ops::NormLayer& norm_layer = vision::ops::batch_norm2d());
  Tensor forward(const Tensor& x);

  int64_t stride, out_channels;
  bool use_res_connect;
  nn::Sequential conv{nullptr};

 private:
  nn::utils::SequentialFusion fusion_;
};
EMBER_MODULE(MobileNetV2InvertedResidual);

struct MobileNetV2Options {
  int64_t num_classes = 1000;
  // Scales every layer's channels (rounded to multiples of round_nearest).
  double width_mult = 1.0;
  // Rows {t (expansion), c (channels), n (repeats), s (first stride)}; empty:
  // the paper's seven rows.
  std::vector<std::array<int64_t, 4>> inverted_residual_setting = {};
  int64_t round_nearest = 8;
  vision::ops::NormLayer norm_layer = vision::ops::batch_norm2d();
  double dropout = 0.2;
};

// Children `features` (Sequential: stem Conv2dNormActivation, the inverted
// residual blocks, a 1x1 Conv2dNormActivation to last_channel) and
// `classifier` (Sequential(Dropout, Linear)); global average pooling between.
class MobileNetV2Impl : public ImageClassifierImpl {
 public:
  using Options = MobileNetV2Options;
  explicit MobileNetV2Impl(const MobileNetV2Options& options = {});
  Tensor forward(const Tensor& images) override;

  int64_t last_channel;
  nn::Sequential features{nullptr}, classifier{nullptr};
};
EMBER_MODULE(MobileNetV2);

MobileNetV2 mobilenet_v2(const MobileNetV2Options& options = {});

}  // namespace ember::models
