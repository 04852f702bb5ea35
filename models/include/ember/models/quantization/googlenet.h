#pragma once
// Quantizable GoogLeNet (torchvision.models.quantization.googlenet,
// torchvision 0.14): torchvision's GoogLeNet with QuantStub / DeQuantStub,
// BasicConv2d blocks with a ReLU module (fused conv-bn-relu), the Inception
// concatenation through a FloatFunctional (cat). Names are torchvision's
// ("inception3a.branch2.1.conv.weight"). forward returns the logits (eval
// mode; the auxiliary heads, built with aux_logits, run in forward_with_aux).
#include <cstdint>

#include "ember/models/googlenet.h"
#include "ember/models/quantization/quantizable.h"

namespace ember::models::quantization {

// conv (no bias), bn (eps 0.001), relu. fuse_model: [conv, bn, relu].
class QuantizableBasicConv2dImpl : public QuantizableModuleImpl {
 public:
  QuantizableBasicConv2dImpl(int64_t in_channels, int64_t out_channels, nn::functional::ExpandingInts kernel_size,
                             nn::functional::ExpandingInts stride = 1, nn::functional::ExpandingInts padding = 0);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
};
EMBER_MODULE(QuantizableBasicConv2d);

// branch1..branch4 as torchvision's Inception, cat.
class QuantizableInceptionImpl : public QuantizableModuleImpl {
 public:
  QuantizableInceptionImpl(int64_t in_channels, int64_t ch1x1, int64_t ch3x3red, int64_t ch3x3, int64_t ch5x5red,
                           int64_t ch5x5, int64_t pool_proj);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> /*is_qat*/ = std::nullopt) override {}
};
EMBER_MODULE(QuantizableInception);

// conv, fc1, fc2, dropout, relu.
class QuantizableInceptionAuxImpl : public QuantizableModuleImpl {
 public:
  QuantizableInceptionAuxImpl(int64_t in_channels, int64_t num_classes, double dropout);
  Tensor forward(const Tensor& x) override;
  void fuse_model(std::optional<bool> /*is_qat*/ = std::nullopt) override {}
};
EMBER_MODULE(QuantizableInceptionAux);

class QuantizableGoogLeNetImpl : public QuantizableModuleImpl {
 public:
  explicit QuantizableGoogLeNetImpl(const GoogLeNetOptions& options = {});
  // dequant(logits); transform_input applied first.
  Tensor forward(const Tensor& x) override;
  // The logits and, in training mode with aux_logits, the auxiliary heads'
  // outputs (torchvision's order: aux_logits2 from aux1, as the float model).
  GoogLeNetOutputs forward_with_aux(const Tensor& x);
  // fuse_model: every QuantizableBasicConv2d's.
  void fuse_model(std::optional<bool> is_qat = std::nullopt) override;
  GoogLeNetOptions options;
};
EMBER_MODULE(QuantizableGoogLeNet);

QuantizableGoogLeNet googlenet(const GoogLeNetOptions& options = {});

}  // namespace ember::models::quantization
