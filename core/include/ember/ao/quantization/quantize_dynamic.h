#pragma once
// torch.ao.quantization.quantize_dynamic (PyTorch 1.13): swaps float Linear,
// LinearReLU, LSTM, GRU, LSTMCell, GRUCell, RNNCell for their dynamically
// quantized forms (qint8 weights, activations quantized per call; or float16
// weights with float16_dynamic_qconfig / QDType::kFloat16) and Embedding / EmbeddingBag for
// the quantized embeddings (8- or 4-bit rows), in place.
//
//   quantize_dynamic(*model);                                   // Linear, LSTM, GRU, cells -> qint8
//   quantize_dynamic(*model, {typeid(nn::LinearImpl)}, QDType::kQInt8);
//   quantize_dynamic(*model, {{typeid(nn::EmbeddingImpl), float_qparams_weight_only_qconfig()},
//                             {typeid(nn::LSTMImpl), default_dynamic_qconfig()}});
//
// Swaps follow convert's rules (quantize.h): an nn::Sequential element or a
// child of a SwappableModule can take a replacement that has forward(Tensor)
// -> Tensor (Linear, Embedding, EmbeddingBag); LSTM and GRU have other
// signatures, so their parent must implement DynamicSwappableModule (and can
// hold them in an AnyLSTM / AnyGRU, which calls the float or the quantized
// module alike).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <typeindex>
#include <vector>

#include "ember/ao/quantization/qconfig_dynamic.h"
#include "ember/ao/quantization/quantize.h"
#include "ember/nn/modules/rnn.h"

namespace ember::ao::quantization {

// What a conversion makes: the module, and (when it has forward(Tensor) ->
// Tensor) the nn::AnyModule that Sequential / SwappableModule parents hold.
struct DynamicReplacement {
  std::shared_ptr<::ember::nn::Module> module;
  std::optional<::ember::nn::AnyModule> any;
};

// A parent whose children quantize_dynamic may swap whatever their forward's
// signature: swap_child_module must rebind the member forward() calls (e.g.
// an AnyLSTM) and call replace_module(name, replacement).
class DynamicSwappableModule {
 public:
  virtual ~DynamicSwappableModule() = default;
  virtual void swap_child_module(const std::string& name, std::shared_ptr<::ember::nn::Module> replacement) = 0;
};

using DynamicConversionFn =
    std::function<DynamicReplacement(::ember::nn::Module& float_module, const QConfig& qconfig)>;

// PyTorch's DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS, keyed by the float
// module's exact type.
class DynamicConversionTable {
 public:
  template <class Impl>
  void add(DynamicConversionFn fn) {
    table_[std::type_index(typeid(Impl))] = std::move(fn);
  }
  const DynamicConversionFn* find(const ::ember::nn::Module& m) const;
  bool contains(std::type_index type) const { return table_.count(type) != 0; }
  size_t size() const { return table_.size(); }

 private:
  std::map<std::type_index, DynamicConversionFn> table_;
};

// Linear -> dynamic::Linear, LSTM -> dynamic::LSTM, GRU -> dynamic::GRU,
// LSTMCell / GRUCell / RNNCell -> their dynamic forms, fused LinearReLU ->
// intrinsic dynamic LinearReLU, Embedding / EmbeddingBag ->
// quantized::Embedding / EmbeddingBag (quantize_dynamic.cpp).
const DynamicConversionTable& default_dynamic_quant_module_table();

// qconfig per float module type (torch's qconfig_spec dict of types).
using DynamicQConfigSpec = std::map<std::type_index, QConfig>;

// Propagates the spec's qconfigs (a module of a listed type gets its
// qconfig, children inherit it) and swaps every module with a qconfig whose
// type has a table entry, depth first, without entering swapped modules.
// Returns the paths swapped.
std::vector<std::string> quantize_dynamic(::ember::nn::Module& model, const DynamicQConfigSpec& qconfig_spec,
                                          const DynamicConversionTable& table = default_dynamic_quant_module_table());
// A set of types with the dtype's default qconfig: qint8
// default_dynamic_qconfig, float16 float16_dynamic_qconfig, quint8
// float_qparams_weight_only_qconfig, quint4x2 its 4-bit form.
std::vector<std::string> quantize_dynamic(::ember::nn::Module& model, const std::set<std::type_index>& types,
                                          QDType dtype = QDType::kQInt8);
// The dtype's default types: qint8 and float16 Linear, LSTM, GRU, LSTMCell,
// RNNCell, GRUCell;
// quint8 Embedding and EmbeddingBag; quint4x2 EmbeddingBag.
std::vector<std::string> quantize_dynamic(::ember::nn::Module& model, QDType dtype = QDType::kQInt8);

// A float nn::LSTM or a dynamic::LSTM behind one forward, for parents that
// quantize_dynamic may swap (DynamicSwappableModule).
class AnyLSTM {
 public:
  using State = std::tuple<Tensor, Tensor>;
  AnyLSTM() = default;
  // The module must be an nn::LSTMImpl or an ao::nn::quantized::dynamic::LSTMImpl.
  explicit AnyLSTM(std::shared_ptr<::ember::nn::Module> module);
  std::tuple<Tensor, State> forward(const Tensor& input, const std::optional<State>& hx = std::nullopt) const;
  const std::shared_ptr<::ember::nn::Module>& ptr() const { return module_; }

 private:
  std::shared_ptr<::ember::nn::Module> module_;
};

// The same for nn::GRU and dynamic::GRU.
class AnyGRU {
 public:
  AnyGRU() = default;
  explicit AnyGRU(std::shared_ptr<::ember::nn::Module> module);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {}) const;
  const std::shared_ptr<::ember::nn::Module>& ptr() const { return module_; }

 private:
  std::shared_ptr<::ember::nn::Module> module_;
};

}  // namespace ember::ao::quantization
