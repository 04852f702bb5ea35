#pragma once
// Quantizable MobileNetV2 (torchvision.models.quantization.mobilenet_v2,
// torchvision 0.14): torchvision's MobileNetV2 with QuantStub / DeQuantStub,
// the residual addition through a FloatFunctional (skip_add), and every
// ReLU6 a ReLU (torchvision's _replace_relu, so conv-bn-relu fuses).
// Parameter and buffer names are torchvision's ("features.1.conv.0.0.weight").
//
//   auto net = models::quantization::mobilenet_v2({.num_classes = 10});
//   quantize_model(*net, "qnnpack", calibration);
#include <cstdint>

#include "ember/models/mobilenet_v2.h"
#include "ember/models/quantization/quantizable.h"

namespace ember::models::quantization {

// conv (a Sequential: [Conv2dNormActivation (expansion),] Conv2dNormActivation
// (depthwise), Conv2d, BatchNorm2d), skip_add. fuse_model: each Conv2d of
// conv with the BatchNorm2d after it.
class QuantizableInvertedResidualImpl : public QuantizableModuleImpl {
 public:
  QuantizableInvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride, double expand_ratio);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
  bool use_res_connect = false;
};
EMBER_MODULE(QuantizableInvertedResidual);

// Children: features, classifier (Dropout, Linear), quant, dequant.
// fuse_model: every Conv2dNormActivation's [0, 1, 2], then every block's.
// Options: num_classes, width_mult, inverted_residual_setting, round_nearest,
// dropout (norm_layer must stay BatchNorm2d).
class QuantizableMobileNetV2Impl : public QuantizableModuleImpl {
 public:
  explicit QuantizableMobileNetV2Impl(const MobileNetV2Options& options = {});
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
  int64_t last_channel = 1280;
};
EMBER_MODULE(QuantizableMobileNetV2);

QuantizableMobileNetV2 mobilenet_v2(const MobileNetV2Options& options = {});

}  // namespace ember::models::quantization
