#pragma once
// Quantizable ResNet and ResNeXt (torchvision.models.quantization.resnet,
// torchvision 0.14): torchvision's float ResNet with QuantStub / DeQuantStub
// around it, FloatFunctional residual additions fused with their ReLU, a ReLU
// module per use in the Bottleneck, and fuse_model with torchvision's fusion
// lists. Parameter and buffer names are torchvision's, so a float checkpoint
// of the same architecture loads before quantization (load_state_dict) and a
// quantized one after it (load_quantized_state_dict).
//
//   auto net = models::quantization::resnet18({.num_classes = 10});
//   quantize_model(*net, "onednn", calibration);   // fuse, prepare, calibrate, convert
#include <cstdint>
#include <vector>

#include "ember/models/quantization/quantizable.h"
#include "ember/models/resnet.h"

namespace ember::models::quantization {

// conv1, bn1, relu, conv2, bn2, downsample (when given), add_relu
// (FloatFunctional). fuse_model: [conv1, bn1, relu], [conv2, bn2] and
// downsample's [0, 1].
class QuantizableBasicBlockImpl : public QuantizableModuleImpl {
 public:
  static constexpr int64_t expansion = 1;
  explicit QuantizableBasicBlockImpl(const BlockOptions& options);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
};
EMBER_MODULE(QuantizableBasicBlock);

// conv1, bn1, conv2, bn2, conv3, bn3, relu (unused, as torchvision's
// inherited one), downsample, skip_add_relu, relu1, relu2. fuse_model:
// [conv1, bn1, relu1], [conv2, bn2, relu2], [conv3, bn3], downsample's [0, 1].
class QuantizableBottleneckImpl : public QuantizableModuleImpl {
 public:
  static constexpr int64_t expansion = 4;
  explicit QuantizableBottleneckImpl(const BlockOptions& options);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
};
EMBER_MODULE(QuantizableBottleneck);

// Children: conv1, bn1, relu, maxpool, layer1..layer4, avgpool, fc, quant,
// dequant. forward: dequant(fc(flatten(avgpool(layers(quant(x)))))).
// fuse_model: [conv1, bn1, relu], then every block's fuse_model.
class QuantizableResNetImpl : public QuantizableModuleImpl {
 public:
  // bottleneck: QuantizableBottleneck blocks, otherwise QuantizableBasicBlock.
  QuantizableResNetImpl(bool bottleneck, const std::vector<int64_t>& layers, const ResNetOptions& options = {});
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;

 private:
  nn::Sequential make_layer(bool bottleneck, int64_t planes, int64_t blocks, int64_t stride, bool dilate);
  int64_t inplanes_ = 64, dilation_ = 1, groups_ = 1, base_width_ = 64;
};
EMBER_MODULE(QuantizableResNet);

// torchvision.models.quantization builders (float, ready for quantize_model;
// torchvision's quantize=True path is quantize_model on the float model).
QuantizableResNet resnet18(const ResNetOptions& options = {});
QuantizableResNet resnet50(const ResNetOptions& options = {});
QuantizableResNet resnext101_32x8d(const ResNetOptions& options = {});
QuantizableResNet resnext101_64x4d(const ResNetOptions& options = {});

}  // namespace ember::models::quantization
