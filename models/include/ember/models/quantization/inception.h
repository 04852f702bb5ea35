#pragma once
// Quantizable Inception v3 (torchvision.models.quantization.inception_v3,
// torchvision 0.14): torchvision's Inception3 with QuantStub / DeQuantStub,
// QuantizableBasicConv2d blocks (fused conv-bn-relu) and every branch
// concatenation through a FloatFunctional (myop; InceptionE myop1..myop3).
// Names are torchvision's ("Mixed_5b.branch5x5_2.conv.weight"). Inputs of at
// least 75x75.
#include <cstdint>

#include "ember/models/inception.h"
#include "ember/models/quantization/googlenet.h"

namespace ember::models::quantization {

// The Inception3 blocks (A..E, Aux) with QuantizableBasicConv2d children and
// torchvision's FloatFunctional names; their fusion is done by the model's
// fuse_model (every QuantizableBasicConv2d).
class QuantizableInceptionBlockImpl : public QuantizableModuleImpl {
 public:
  enum class Kind { A, B, C, D, E, Aux };
  // A: pool_features (extra = 0 otherwise); C: channels_7x7; Aux: num_classes.
  QuantizableInceptionBlockImpl(Kind kind, int64_t in_channels, int64_t extra = 0);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> /*is_qat*/ = std::nullopt) override {}
  Kind kind;
};
EMBER_MODULE(QuantizableInceptionBlock);

class QuantizableInception3Impl : public QuantizableModuleImpl {
 public:
  explicit QuantizableInception3Impl(const Inception3Options& options = {});
  Tensor forward(const Tensor& x) override;
  // The logits and, in training mode with aux_logits, the auxiliary head's.
  InceptionOutputs forward_with_aux(const Tensor& x);
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
  Inception3Options options;
};
EMBER_MODULE(QuantizableInception3);

QuantizableInception3 inception_v3(const Inception3Options& options = {});

}  // namespace ember::models::quantization
