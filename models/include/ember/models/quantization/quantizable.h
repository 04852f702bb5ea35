#pragma once
// What the quantizable torchvision models (torchvision.models.quantization,
// torchvision 0.14) share: a module whose children the eager-mode workflow
// can swap (fusion, prepare_qat, convert), the fuse_model interface, and
// torchvision's quantize_model (models/quantization/utils.py).
//
//   auto net = models::quantization::resnet18({.num_classes = 10});
//   net->load_state_dict(float_state_dict);       // torchvision's float keys
//   models::quantization::quantize_model(*net, "onednn", calibration_batches);
//   Tensor logits = net(images);                  // float in, int8 inside, float out
//
// A quantized checkpoint (torch.save(quantized_model.state_dict())) loads into a
// model quantized the same way: see load_quantized_state_dict.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ember/ao/nn/quantized/functional_modules.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/nn/container.h>
#include <ember/serialize/ordered_dict.h>

namespace ember::models::quantization {

// A quantizable model or block (torchvision's Quantizable* classes): it calls
// its children by name through nn::AnyModule handles, so that the eager-mode
// workflow can swap any of them (swap_child); FloatFunctional children are
// held as FunctionalModule pointers (rebound to the QFunctional convert makes).
class QuantizableModuleImpl : public nn::Module, public ao::quantization::SwappableModule {
 public:
  using nn::Module::Module;
  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return forward(x); }
  // torchvision's fuse_model(is_qat): fuses this module's conv-bn(-relu)
  // groups (a whole model: its blocks' too, as torchvision's). is_qat unset: QAT fusion
  // in training mode (torchvision's _fuse_modules passes is_qat=None, and
  // fuse_modules picks fuse_modules_qat when the module is training).
  virtual void fuse_model(std::optional<bool> is_qat = std::nullopt) = 0;

  void swap_child(const std::string& name, nn::AnyModule replacement) override;
  // The child registered under `name` (an error naming it when there is none).
  nn::AnyModule& child(const std::string& name);
  bool has_child(const std::string& name) const { return children_.contains(name); }

 protected:
  // Registers `module` as child `name` and keeps a handle forward() calls.
  void add(const std::string& name, nn::AnyModule module);
  // Registers a FloatFunctional child (skip_add, add_relu, ...).
  void add_functional(const std::string& name);
  Tensor run(const std::string& name, const Tensor& x) { return child(name).forward(x); }
  ao::nn::quantized::FunctionalModule& functional(const std::string& name);
  // fuse_model of every quantizable descendant (not this module).
  void fuse_descendants(std::optional<bool> is_qat);

 private:
  std::map<std::string, nn::AnyModule> children_;
  std::map<std::string, std::shared_ptr<ao::nn::quantized::FunctionalModule>> functionals_;
};

// torchvision's _fuse_modules: fuse_modules or fuse_modules_qat on `module`
// (is_qat unset: by the module's training mode).
void fuse_groups(nn::Module& module, const std::vector<std::vector<std::string>>& groups,
                 std::optional<bool> is_qat);

// Global average pooling to 1x1 of a float or a quantized tensor (torchvision's
// models call nn.functional.adaptive_avg_pool2d, which dispatches on the tensor).
Tensor global_avg_pool(const Tensor& x);

// The qconfig torchvision's quantize_model sets for a backend: "fbgemm",
// "x86" and "onednn": default_observer activations and
// default_per_channel_weight_observer weights (the serialized fbgemm models');
// "qnnpack": default_weight_observer (per-tensor) weights. torchvision sets
// no qconfig for other backends (nothing would be quantized); Ember treats
// "x86" and "onednn" as fbgemm (Debian's torch has no fbgemm: its onednn
// engine runs the same per-channel models) and refuses unknown names.
ao::quantization::QConfig quantize_model_qconfig(const std::string& backend);

// torchvision's quantize_model(model, backend): eval(), fuse_model(), prepare
// with quantize_model_qconfig(backend), one forward per calibration batch
// (none given: torchvision's torch.rand(1, 3, 299, 299)), convert, in place.
void quantize_model(QuantizableModuleImpl& model, const std::string& backend, const std::vector<Tensor>& calibration = {});

// Loads a quantized state_dict that torch wrote for the same architecture
// (torch.save(model.state_dict()) of a converted torchvision model) into a
// model already converted the same way (quantize_model: the module types
// must match). Quantized Conv2d / ConvReLU2d entries `<p>.weight` (qint8),
// `<p>.bias`, `<p>.scale`, `<p>.zero_point`; Linear `<p>._packed_params._packed_params`
// (the (weight, bias) tuple) with `<p>.scale`, `<p>.zero_point` (and
// `_packed_params.dtype`, which must be qint8); Quantize and QFunctional
// `<p>.scale` / `<p>.zero_point` (a quantized Hardswish's when present: torch
// 1.13 does not save them); quantized BatchNorm2d its statistics; modules
// left float their own parameters and buffers. A missing or mistyped entry
// is an error naming it; with strict, so is a checkpoint key no module
// reads. Returns the keys read.
std::vector<std::string> load_quantized_state_dict(nn::Module& model, const std::string& path, bool strict = true);

}  // namespace ember::models::quantization
