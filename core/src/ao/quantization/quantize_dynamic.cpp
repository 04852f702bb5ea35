// The workflow's headers first: they name ember::nn as nn:: from inside
// ember::ao, which ember::ao::nn (the quantized modules' headers) would shadow.
#include "ember/ao/quantization/quantize_dynamic.h"
#include "ember/ao/quantization/fused_modules.h"

#include "ember/ao/nn/quantized/dynamic.h"
#include "ember/ao/nn/quantized/embedding.h"
#include "ember/ao/nn/quantized/modules.h"
#include "ember/core/error.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/linear.h"

namespace ember::ao::quantization {

namespace enn = ::ember::nn;
namespace dq = ::ember::ao::nn::quantized::dynamic;

const DynamicConversionFn* DynamicConversionTable::find(const enn::Module& m) const {
  auto it = table_.find(std::type_index(typeid(m)));
  return it == table_.end() ? nullptr : &it->second;
}

namespace {

void swap_in(enn::Module& root, const std::string& path, const DynamicReplacement& r) {
  const size_t dot = path.rfind('.');
  const std::string parent_path = dot == std::string::npos ? "" : path.substr(0, dot);
  const std::string name = dot == std::string::npos ? path : path.substr(dot + 1);
  std::shared_ptr<enn::Module> parent = parent_path.empty() ? nullptr : module_at(root, parent_path);
  enn::Module& p = parent ? *parent : root;
  if (auto* swappable = dynamic_cast<DynamicSwappableModule*>(&p)) {
    swappable->swap_child_module(name, r.module);
    return;
  }
  EMBER_CHECK(r.any.has_value(), "quantize_dynamic: cannot swap '", path, "' for ", r.module->name(),
              ": its forward is not forward(Tensor) -> Tensor, so its parent ", p.name(),
              " must implement DynamicSwappableModule (and hold it in an AnyLSTM / AnyGRU)");
  swap_module(root, path, *r.any);
}

void convert_children(enn::Module& root, enn::Module& m, const std::string& prefix,
                      const std::optional<QConfig>& inherited, const DynamicQConfigSpec& spec,
                      const DynamicConversionTable& table, std::vector<std::string>& swapped) {
  for (const auto& [name, child] : m.named_children()) {
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    std::optional<QConfig> qc = inherited;
    // Dereferenced first: clang warns about typeid on an expression with side effects.
    const enn::Module& child_module = *child;
    if (auto it = spec.find(std::type_index(typeid(child_module))); it != spec.end()) qc = it->second;
    if (qc) {
      if (const DynamicConversionFn* fn = table.find(*child)) {
        swap_in(root, path, (*fn)(*child, *qc));
        swapped.push_back(path);
        continue;
      }
    }
    convert_children(root, *child, path, qc, spec, table, swapped);
  }
}

QConfig qconfig_for_dtype(QDType dtype) {
  switch (dtype) {
    case QDType::kQInt8: return default_dynamic_qconfig();
    case QDType::kQUInt8: return float_qparams_weight_only_qconfig();
    case QDType::kQUInt4x2: return float_qparams_weight_only_qconfig_4bit();
    case QDType::kFloat16: return float16_dynamic_qconfig();
    default: break;
  }
  EMBER_CHECK(false, "quantize_dynamic: dtype ", dtype,
              " is not supported (qint8 or float16 for Linear / LSTM / GRU and the cells, quint8 or quint4x2 for "
              "embeddings)");
  return {};
}

template <class Impl>
DynamicReplacement replacement(std::shared_ptr<Impl> m) {
  DynamicReplacement r{m, std::nullopt};
  if constexpr (std::is_constructible_v<enn::AnyModule, std::shared_ptr<Impl>>) r.any = enn::AnyModule(m);
  return r;
}

template <class Quantized, class Float>
DynamicConversionFn converter() {
  return [](enn::Module& m, const QConfig& qc) {
    return replacement(Quantized::from_float(dynamic_cast<const Float&>(m), qc));
  };
}

}  // namespace

const DynamicConversionTable& default_dynamic_quant_module_table() {
  static const DynamicConversionTable table = [] {
    namespace q = ::ember::ao::nn::quantized;
    DynamicConversionTable t;
    t.add<enn::LinearImpl>(converter<dq::LinearImpl, enn::LinearImpl>());
    t.add<enn::LSTMImpl>(converter<dq::LSTMImpl, enn::LSTMImpl>());
    t.add<enn::GRUImpl>(converter<dq::GRUImpl, enn::GRUImpl>());
    t.add<enn::LSTMCellImpl>(converter<dq::LSTMCellImpl, enn::LSTMCellImpl>());
    t.add<enn::GRUCellImpl>(converter<dq::GRUCellImpl, enn::GRUCellImpl>());
    t.add<enn::RNNCellImpl>(converter<dq::RNNCellImpl, enn::RNNCellImpl>());
    t.add<LinearReLUImpl>([](enn::Module& m, const QConfig& qc) {
      return replacement(::ember::ao::nn::intrinsic::quantized::dynamic::LinearReLUImpl::from_float(m, qc));
    });
    t.add<enn::EmbeddingImpl>(converter<q::EmbeddingImpl, enn::EmbeddingImpl>());
    t.add<enn::EmbeddingBagImpl>(converter<q::EmbeddingBagImpl, enn::EmbeddingBagImpl>());
    return t;
  }();
  return table;
}

std::vector<std::string> quantize_dynamic(enn::Module& model, const DynamicQConfigSpec& qconfig_spec,
                                          const DynamicConversionTable& table) {
  std::vector<std::string> swapped;
  std::optional<QConfig> root_qc;
  if (auto it = qconfig_spec.find(std::type_index(typeid(model))); it != qconfig_spec.end()) root_qc = it->second;
  convert_children(model, model, "", root_qc, qconfig_spec, table, swapped);
  return swapped;
}

std::vector<std::string> quantize_dynamic(enn::Module& model, const std::set<std::type_index>& types, QDType dtype) {
  const QConfig qc = qconfig_for_dtype(dtype);
  DynamicQConfigSpec spec;
  for (const auto& t : types) spec.emplace(t, qc);
  return quantize_dynamic(model, spec);
}

std::vector<std::string> quantize_dynamic(enn::Module& model, QDType dtype) {
  std::set<std::type_index> types;
  if (dtype == QDType::kQInt8 || dtype == QDType::kFloat16)  // torch's default set for both
    types = {typeid(enn::LinearImpl), typeid(enn::LSTMImpl), typeid(enn::GRUImpl), typeid(enn::LSTMCellImpl),
             typeid(enn::RNNCellImpl), typeid(enn::GRUCellImpl)};
  else if (dtype == QDType::kQUInt8)
    types = {typeid(enn::EmbeddingImpl), typeid(enn::EmbeddingBagImpl)};
  else if (dtype == QDType::kQUInt4x2)
    types = {typeid(enn::EmbeddingBagImpl)};
  return quantize_dynamic(model, types, dtype);  // other dtypes: qconfig_for_dtype's error
}

AnyLSTM::AnyLSTM(std::shared_ptr<enn::Module> module) : module_(std::move(module)) {
  EMBER_CHECK(dynamic_cast<enn::LSTMImpl*>(module_.get()) || dynamic_cast<dq::LSTMImpl*>(module_.get()),
              "AnyLSTM: expected an LSTM or a dynamic quantized LSTM, got ",
              module_ ? module_->name() : std::string("nullptr"));
}

std::tuple<Tensor, AnyLSTM::State> AnyLSTM::forward(const Tensor& input, const std::optional<State>& hx) const {
  if (auto* f = dynamic_cast<enn::LSTMImpl*>(module_.get())) return f->forward(input, hx);
  return static_cast<dq::LSTMImpl*>(module_.get())->forward(input, hx);
}

AnyGRU::AnyGRU(std::shared_ptr<enn::Module> module) : module_(std::move(module)) {
  EMBER_CHECK(dynamic_cast<enn::GRUImpl*>(module_.get()) || dynamic_cast<dq::GRUImpl*>(module_.get()),
              "AnyGRU: expected a GRU or a dynamic quantized GRU, got ",
              module_ ? module_->name() : std::string("nullptr"));
}

std::tuple<Tensor, Tensor> AnyGRU::forward(const Tensor& input, const Tensor& hx) const {
  if (auto* f = dynamic_cast<enn::GRUImpl*>(module_.get())) return f->forward(input, hx);
  return static_cast<dq::GRUImpl*>(module_.get())->forward(input, hx);
}

}  // namespace ember::ao::quantization
