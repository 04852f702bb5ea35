#pragma once
// Where a model's tensors enter and leave the quantized domain (the boundary
// modules torch.ao.quantization inserts by hand, under Ember names):
// identity
// in float; prepare() observes QuantMarker's output, and convert swaps them
// for quantize / dequantize modules. QuantWrapper puts a module between them.
#include "ember/ao/quantization/quantize.h"
#include "ember/nn/container.h"
#include "ember/nn/module.h"

namespace ember::ao::quantization {

class QuantMarkerImpl : public nn::Module {
 public:
  QuantMarkerImpl() : nn::Module("QuantMarker") {}
  Tensor forward(const Tensor& x) { return x; }
};
EMBER_MODULE(QuantMarker);

class DeQuantMarkerImpl : public nn::Module {
 public:
  DeQuantMarkerImpl() : nn::Module("DeQuantMarker") {}
  Tensor forward(const Tensor& x) { return x; }
};
EMBER_MODULE(DeQuantMarker);

// dequant(module(quant(x))); children quant, dequant, module (PyTorch's order and names).
// Swappable, so that convert can replace the markers (and fusion the module).
class QuantWrapperImpl : public nn::Module, public SwappableModule {
 public:
  explicit QuantWrapperImpl(nn::AnyModule module);
  Tensor forward(const Tensor& x) const { return dequant_.forward(module_.forward(quant_.forward(x))); }
  void swap_child(const std::string& name, nn::AnyModule replacement) override;

 private:
  nn::AnyModule quant_, dequant_, module_;
};
EMBER_MODULE(QuantWrapper);

}  // namespace ember::ao::quantization
