#pragma once
// Quantizable ShuffleNetV2 (torchvision.models.quantization.shufflenet_v2_*,
// torchvision 0.14): torchvision's ShuffleNetV2 with QuantStub / DeQuantStub,
// the branch concatenation through a FloatFunctional (cat), the channel
// shuffle as views (they keep the quantization parameters), and fuse_model
// with torchvision's lists. Names are torchvision's ("stage2.0.branch1.0.weight").
#include <cstdint>
#include <vector>

#include "ember/models/quantization/quantizable.h"
#include "ember/models/shufflenet_v2.h"

namespace ember::models::quantization {

// branch1 (stride > 1: depthwise conv, bn, conv, bn, relu; otherwise empty),
// branch2 (conv, bn, relu, depthwise conv, bn, conv, bn, relu), cat.
class QuantizableShuffleInvertedResidualImpl : public QuantizableModuleImpl {
 public:
  QuantizableShuffleInvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride);
  Tensor forward(const Tensor& x) override;
  // torchvision fuses the blocks from the model's fuse_model; this does the same lists.
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
  int64_t stride = 1;
};
EMBER_MODULE(QuantizableShuffleInvertedResidual);

// Children: conv1, maxpool, stage2..stage4, conv5, fc, quant, dequant.
// forward: dequant(fc(mean over H, W of conv5(stages(maxpool(conv1(quant(x))))))).
class QuantizableShuffleNetV2Impl : public QuantizableModuleImpl {
 public:
  QuantizableShuffleNetV2Impl(const std::vector<int64_t>& stages_repeats, const std::vector<int64_t>& stages_out_channels,
                              int64_t num_classes = 1000);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
};
EMBER_MODULE(QuantizableShuffleNetV2);

QuantizableShuffleNetV2 shufflenet_v2_x0_5(const ShuffleNetV2Options& options = {});
QuantizableShuffleNetV2 shufflenet_v2_x1_0(const ShuffleNetV2Options& options = {});
QuantizableShuffleNetV2 shufflenet_v2_x1_5(const ShuffleNetV2Options& options = {});
QuantizableShuffleNetV2 shufflenet_v2_x2_0(const ShuffleNetV2Options& options = {});

}  // namespace ember::models::quantization
