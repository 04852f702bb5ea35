#pragma once
// Quantizable MobileNetV3 (torchvision.models.quantization.mobilenet_v3_large,
// torchvision 0.14): torchvision's MobileNetV3 with QuantStub / DeQuantStub,
// the residual addition (skip_add) and the squeeze-excitation product
// (skip_mul) through FloatFunctionals, Hardsigmoid as the SE gate, and
// fuse_model with torchvision's lists. Names are torchvision's
// ("features.4.block.2.fc1.weight").
//
//   auto net = models::quantization::mobilenet_v3_large({.num_classes = 10});
//   quantize_model(*net, "qnnpack", calibration);
#include <cstdint>

#include "ember/models/mobilenet_v3.h"
#include "ember/models/quantization/quantizable.h"

namespace ember::models::quantization {

// avgpool, fc1, activation (ReLU), fc2, scale_activation (Hardsigmoid),
// skip_mul: skip_mul.mul(hardsigmoid(fc2(relu(fc1(avgpool(x))))), x).
// fuse_model: [fc1, activation].
class QuantizableSqueezeExcitationImpl : public QuantizableModuleImpl {
 public:
  QuantizableSqueezeExcitationImpl(int64_t input_channels, int64_t squeeze_channels);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
};
EMBER_MODULE(QuantizableSqueezeExcitation);

// block (a Sequential as the float block's), skip_add. Its fusion is done by
// the model's fuse_model (torchvision's block has no fuse_model).
class QuantizableInvertedResidualV3Impl : public QuantizableModuleImpl {
 public:
  explicit QuantizableInvertedResidualV3Impl(const MobileNetV3BlockConfig& cnf);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> /*is_qat*/ = std::nullopt) override {}
  bool use_res_connect = false;
};
EMBER_MODULE(QuantizableInvertedResidualV3);

// Children: features, avgpool, classifier (Linear, Hardswish, Dropout,
// Linear), quant, dequant. fuse_model: every Conv2dNormActivation's [0, 1]
// (and 2 when it is a ReLU), every squeeze-excitation's [fc1, activation].
class QuantizableMobileNetV3Impl : public QuantizableModuleImpl {
 public:
  QuantizableMobileNetV3Impl(const std::vector<MobileNetV3BlockConfig>& setting, int64_t last_channel,
                             int64_t num_classes = 1000, double dropout = 0.2);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
};
EMBER_MODULE(QuantizableMobileNetV3);

// Options: num_classes, width_mult, reduced_tail, dilated, dropout (norm_layer
// is torchvision's BatchNorm2d(eps=0.001, momentum=0.01) and may not change).
QuantizableMobileNetV3 mobilenet_v3_large(const MobileNetV3Options& options = {});

}  // namespace ember::models::quantization
