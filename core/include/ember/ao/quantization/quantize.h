#pragma once
// The eager-mode workflow (torch.ao.quantization.quantize / fuse_modules,
// PyTorch 1.13): fuse, attach observers, calibrate or train, convert.
//
//   fuse_modules(*model, {{"1", "2", "3"}, {"6", "7"}});   // conv-bn-relu, linear-relu
//   prepare(*model, {{"", get_default_qconfig("x86")}});   // observers on outputs
//   for (batch : calibration) model->forward(batch);
//   auto [scale, zp] = observer_of(*model, "1")->calculate_qparams();
//
// Module swaps (fusion, QAT, convert) replace a child in its parent. In C++ a
// parent calls its children through members, so a child can be swapped only
// where the parent can rebind it: an nn::Sequential element (swapped in place)
// or a child of a module implementing SwappableModule.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <vector>

#include "ember/ao/quantization/qconfig.h"
#include "ember/nn/container.h"

namespace ember::ao::quantization {

// A module whose children fusion / QAT / convert may swap: swap_child must
// rebind the member forward() calls (e.g. an nn::AnyModule) and call
// replace_module(name, replacement.ptr()).
class SwappableModule {
 public:
  virtual ~SwappableModule() = default;
  virtual void swap_child(const std::string& name, nn::AnyModule replacement) = 0;
};

// The module at a dotted path ("features.0"); an error naming the path if absent.
std::shared_ptr<nn::Module> module_at(nn::Module& root, const std::string& path);
// Replaces the module at `path` (see above for which parents allow it).
void swap_module(nn::Module& root, const std::string& path, nn::AnyModule replacement);

// ---- fusion ----
// torch.ao.quantization.fuse_modules: each group names modules (dotted
// paths) in execution order matching one of PyTorch's patterns:
//   Conv2d-BatchNorm2d, Conv2d-BatchNorm2d-ReLU, Conv2d-ReLU, Linear-ReLU,
//   Linear-BatchNorm1d, BatchNorm2d-ReLU.
// The first module is replaced by the fused one and the others by Identity.
// A BatchNorm after a Conv2d/Linear is folded into it (fuse_conv_bn_eval /
// fuse_linear_bn_eval, giving Conv2d, ConvReLU2d or Linear), which needs
// eval mode ("Fusion only for eval!" otherwise, as PyTorch). With is_qat
// (fuse_modules_qat) the BatchNorm is kept: ConvBn2d, ConvBnReLU2d,
// LinearBn1d, for prepare_qat. All modules of a group must be in the same
// mode. A group that matches no pattern is an error naming its types.
void fuse_modules(nn::Module& model, const std::vector<std::vector<std::string>>& groups, bool is_qat = false);
// torch.ao.quantization.fuse_modules_qat: fuse_modules with is_qat.
void fuse_modules_qat(nn::Module& model, const std::vector<std::vector<std::string>>& groups);

// ---- prepare ----
// qconfig per module path: "" is the whole model; a path overrides its
// subtree; nullopt switches quantization off there (PyTorch's qconfig_dict /
// module.qconfig = None).
using QConfigDict = std::map<std::string, std::optional<QConfig>>;

// torch.ao.quantization.prepare: propagates the qconfigs down the module tree
// and gives each leaf module PyTorch would observe (the types of its
// default qconfig propagation list: convolutions, Linear, BatchNorm2d/3d,
// ReLU6, Hardswish, ELU, LeakyReLU, LayerNorm, GroupNorm, InstanceNorm,
// Dropout, Embedding(Bag), PReLU, QuantMarker, and the fused modules,
// observed as one unit; plain ReLU, pooling, Flatten, Identity and
// DeQuantMarker are not) a child "activation_post_process" made by its
// qconfig's activation factory and a forward hook feeding it the output.
// Modules already prepared are left alone. Returns the paths observed, in
// module order.
std::vector<std::string> prepare(nn::Module& model, const QConfigDict& qconfig_dict);

// The activation observer prepare() attached to the module at `path`, or nullptr.
std::shared_ptr<ObserverOrFakeQuantize> observer_of(nn::Module& model, const std::string& path);
// The qconfig prepare() propagated to the module at `path` (nullopt: not quantized).
std::optional<QConfig> qconfig_of(nn::Module& model, const std::string& path);

// ---- quantization-aware training ----
// torch.ao.quantization.prepare_qat: the model must be in training mode.
// Propagates the qconfigs, swaps every module with a qconfig for its QAT form
// (default_qat_module_table: Conv2d -> qat::Conv2d, Linear -> qat::Linear,
// ConvReLU2d, LinearReLU, ConvBn2d, ConvBnReLU2d -> their qat:: forms;
// qat_modules.h), then prepare()s it: the QAT modules and the other observed
// leaves get the qconfig's activation fake quantizer. Returns the paths
// observed.
std::vector<std::string> prepare_qat(nn::Module& model, const QConfigDict& qconfig_dict);

// ---- convert's module swap ----
// A conversion: from the observed float (or fused / QAT) module, its
// activation observer (nullptr if it has none) and its qconfig, the module
// that replaces it.
using ConversionFn = std::function<nn::AnyModule(nn::Module& observed, ObserverOrFakeQuantize* activation_observer,
                                                 const QConfig& qconfig)>;

// The table convert() uses, keyed by module type (PyTorch's
// DEFAULT_STATIC_QUANT_MODULE_MAPPINGS, filled by whoever provides the
// quantized modules).
class ConversionTable {
 public:
  template <class Impl>
  void add(ConversionFn fn) {
    table_[std::type_index(typeid(Impl))] = std::move(fn);
  }
  const ConversionFn* find(const nn::Module& m) const;
  size_t size() const { return table_.size(); }

 private:
  std::map<std::type_index, ConversionFn> table_;
};

// The process-wide default table convert() uses when given none.
ConversionTable& default_conversion_table();
// The float -> QAT table prepare_qat uses (PyTorch's default QAT module mappings).
const ConversionTable& default_qat_module_table();

struct ConvertOptions {
  // An observed module (one prepare gave an activation_post_process) whose
  // type has no entry is an error naming it, instead of staying float.
  bool strict = false;
};

// torch.ao.quantization.convert (in place): every prepared module whose type
// has an entry (and that has a qconfig) is replaced by the entry's result,
// its observer and hook dropped with it; fused and QAT modules are converted
// as one unit, other modules without an entry are searched for children to
// convert. default_conversion_table() holds PyTorch's static mappings
// (QuantMarker -> Quantize from its observer's qparams, DeQuantMarker ->
// DeQuantize, Conv2d / ConvReLU2d / Linear / LinearReLU and their QAT forms,
// ConvBn2d / ConvBnReLU2d with the BatchNorm folded into the weight,
// BatchNorm2d, BNReLU2d, ReLU6, Hardswish, Dropout, FloatFunctional ->
// QFunctional) plus ReLU, Hardsigmoid and the 2-d poolings, which torch
// leaves to tensor dispatch (docs/quantization.md). Weights are quantized by
// the qconfig's weight observer (a QAT module's weight_fake_quant) run on the
// weight at convert time; output parameters come from the activation
// observer. A model in which no module has a qconfig is an error (not
// prepared), as is an entry's module without the observer it needs.
// Returns the paths swapped.
std::vector<std::string> convert(nn::Module& model, const ConversionTable& table = default_conversion_table(),
                                 const ConvertOptions& options = {});
std::vector<std::string> convert(nn::Module& model, const ConvertOptions& options);

}  // namespace ember::ao::quantization
