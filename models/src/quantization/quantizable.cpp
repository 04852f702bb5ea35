// The pieces the quantizable torchvision models share (torchvision 0.14's
// models/quantization/utils.py and the eager-mode plumbing Ember needs).
#include "ember/models/quantization/quantizable.h"

#include <set>

#include <ember/ao/nn/quantized/modules.h>
#include <ember/ao/quantization/observer.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/ops/random.h>
#include <ember/serialize/torch_load.h>

namespace ember::models::quantization {

namespace nnq = ember::ao::nn::quantized;
namespace aoq = ember::ao::quantization;

// ---- SwappableChildren ----

void QuantizableModuleImpl::add(const std::string& name, nn::AnyModule module) {
  register_module(name, module.ptr());
  children_.insert_or_assign(name, std::move(module));
}

void QuantizableModuleImpl::add_functional(const std::string& name) {
  auto f = nnq::FloatFunctional().ptr();
  register_module(name, f);
  functionals_[name] = f;
}

void QuantizableModuleImpl::fuse_descendants(std::optional<bool> is_qat) {
  for (const auto& m : modules(/*include_self=*/false)) {
    if (auto* q = dynamic_cast<QuantizableModuleImpl*>(m.get())) q->fuse_model(is_qat);
  }
}

nn::AnyModule& QuantizableModuleImpl::child(const std::string& name) {
  auto it = children_.find(name);
  EMBER_CHECK(it != children_.end(), this->name(), ": no child module named '", name, "'");
  return it->second;
}

nnq::FunctionalModule& QuantizableModuleImpl::functional(const std::string& name) {
  auto it = functionals_.find(name);
  EMBER_CHECK(it != functionals_.end(), this->name(), ": no FloatFunctional child named '", name, "'");
  return *it->second;
}

void QuantizableModuleImpl::swap_child(const std::string& name, nn::AnyModule replacement) {
  if (auto f = functionals_.find(name); f != functionals_.end()) {
    auto fm = std::dynamic_pointer_cast<nnq::FunctionalModule>(replacement.ptr());
    EMBER_CHECK(fm != nullptr, this->name(), ": child '", name, "' is a FloatFunctional and can only be replaced by ",
                "another functional module, got ", replacement.ptr()->name());
    f->second = fm;
  } else {
    child(name) = replacement;
  }
  replace_module(name, replacement.ptr());
}

// ---- fusion ----

void fuse_groups(nn::Module& module, const std::vector<std::vector<std::string>>& groups,
                 std::optional<bool> is_qat) {
  const bool qat = is_qat.value_or(module.is_training());
  if (qat) {
    aoq::fuse_modules_qat(module, groups);
  } else {
    aoq::fuse_modules(module, groups);
  }
}

// ---- quantize_model ----

aoq::QConfig quantize_model_qconfig(const std::string& backend) {
  if (backend == "fbgemm" || backend == "x86" || backend == "onednn")
    return {aoq::default_observer(), aoq::default_per_channel_weight_observer()};
  if (backend == "qnnpack") return {aoq::default_observer(), aoq::default_weight_observer()};
  EMBER_FAIL("quantize_model: unknown backend '", backend, "' (expected fbgemm, x86, onednn or qnnpack)");
}

void quantize_model(QuantizableModuleImpl& model, const std::string& backend, const std::vector<Tensor>& calibration) {
  const aoq::QConfig qconfig = quantize_model_qconfig(backend);
  model.eval();
  model.fuse_model();
  aoq::prepare(model, {{"", qconfig}});
  NoGradGuard no_grad;
  const std::vector<Tensor> batches = calibration.empty() ? std::vector<Tensor>{rand({1, 3, 299, 299})} : calibration;
  for (const Tensor& batch : batches) model.forward(batch);
  aoq::convert(model);
}

// ---- loading torch's quantized state_dicts ----

namespace {

class Entries {
 public:
  Entries(const IDict& dict, const std::string& path) : dict_(dict), path_(path) {}
  const IValue* find(const std::string& key) {
    const IValue* v = dict_.find(key);
    if (v != nullptr) used_.insert(key);
    return v;
  }
  const IValue& at(const std::string& key) {
    const IValue* v = find(key);
    EMBER_CHECK(v != nullptr, "load_quantized_state_dict: '", path_, "' has no entry '", key, "'");
    return *v;
  }
  Tensor tensor(const std::string& key) {
    const IValue& v = at(key);
    EMBER_CHECK(v.is_tensor(), "load_quantized_state_dict: '", key, "' in '", path_, "' is not a tensor");
    return v.to_tensor();
  }
  // A bias: a tensor or None.
  Tensor optional_tensor(const IValue& v, const std::string& key) {
    if (v.is_none()) return Tensor();
    EMBER_CHECK(v.is_tensor(), "load_quantized_state_dict: '", key, "' in '", path_, "' is neither a tensor nor None");
    return v.to_tensor();
  }
  double scale(const std::string& prefix) { return at(prefix + "scale").to_double(); }
  // torch writes zero points as 0-d int64 tensors (torch.tensor(self.zero_point)).
  int64_t zero_point(const std::string& prefix) {
    const IValue& v = at(prefix + "zero_point");
    return v.is_tensor() ? v.to_tensor().item<int64_t>() : v.to_int();
  }
  const std::set<std::string>& used() const { return used_; }

 private:
  const IDict& dict_;
  std::string path_;
  std::set<std::string> used_;
};

Tensor check_weight(const Tensor& w, const Tensor& current, const std::string& key) {
  EMBER_CHECK(w.is_quantized() && w.dtype() == kQInt8, "load_quantized_state_dict: '", key,
              "' must be a qint8 quantized tensor, got dtype ", w.dtype());
  EMBER_CHECK(!current.defined() || w.sizes() == current.sizes(), "load_quantized_state_dict: '", key,
              "' has sizes ", w.sizes(), " but the model's weight has sizes ", current.sizes());
  return w;
}

void copy_float(Tensor& dst, const Tensor& src, const std::string& key) {
  EMBER_CHECK(src.sizes() == dst.sizes(), "load_quantized_state_dict: '", key, "' has sizes ", src.sizes(),
              " but the model's has ", dst.sizes());
  NoGradGuard no_grad;
  dst.copy_(src);
}

// Reads one module's entries (those its type keeps in torch's state_dict).
void load_module(nn::Module& m, const std::string& prefix, Entries& e) {
  if (auto* conv = dynamic_cast<nnq::Conv2dImpl*>(&m)) {
    conv->weight = check_weight(e.tensor(prefix + "weight"), conv->weight, prefix + "weight");
    conv->bias = e.optional_tensor(e.at(prefix + "bias"), prefix + "bias");
    conv->scale = e.scale(prefix);
    conv->zero_point = e.zero_point(prefix);
  } else if (auto* linear = dynamic_cast<nnq::LinearImpl*>(&m)) {
    const std::string packed = prefix + "_packed_params._packed_params";
    const IValue& wb = e.at(packed);
    EMBER_CHECK(wb.is_sequence() && wb.to_list().size() == 2 && wb.to_list()[0].is_tensor(),
                "load_quantized_state_dict: '", packed, "' must be a (weight, bias) tuple");
    if (const IValue* dtype = e.find(prefix + "_packed_params.dtype")) {
      EMBER_CHECK(dtype->is_string() && dtype->to_string() == "torch.qint8", "load_quantized_state_dict: '", prefix,
                  "_packed_params.dtype' must be torch.qint8 (static quantized Linear)");
    }
    linear->weight = check_weight(wb.to_list()[0].to_tensor(), linear->weight, packed);
    linear->bias = e.optional_tensor(wb.to_list()[1], packed);
    linear->scale = e.scale(prefix);
    linear->zero_point = e.zero_point(prefix);
  } else if (auto* q = dynamic_cast<nnq::QuantizeImpl*>(&m)) {
    q->scale = e.scale(prefix);
    q->zero_point = e.zero_point(prefix);
  } else if (auto* f = dynamic_cast<nnq::QFunctionalImpl*>(&m)) {
    f->scale = e.scale(prefix);
    f->zero_point = e.zero_point(prefix);
  } else if (auto* hs = dynamic_cast<nnq::HardswishImpl*>(&m)) {
    // torch 1.13 keeps a quantized Hardswish's output qparams as plain
    // attributes, not in its state_dict: only a checkpoint that has them sets them.
    if (e.find(prefix + "scale") != nullptr) {
      hs->scale = e.scale(prefix);
      hs->zero_point = e.zero_point(prefix);
    }
  } else if (auto* bn = dynamic_cast<nnq::BatchNorm2dImpl*>(&m)) {
    copy_float(bn->weight, e.tensor(prefix + "weight"), prefix + "weight");
    copy_float(bn->bias, e.tensor(prefix + "bias"), prefix + "bias");
    copy_float(bn->running_mean, e.tensor(prefix + "running_mean"), prefix + "running_mean");
    copy_float(bn->running_var, e.tensor(prefix + "running_var"), prefix + "running_var");
    e.find(prefix + "num_batches_tracked");
    bn->scale = e.scale(prefix);
    bn->zero_point = e.zero_point(prefix);
  } else {
    // Modules left float (and anything else with registered state): their own
    // parameters and buffers by name.
    for (auto& [name, t] : m.own_parameters()) copy_float(const_cast<Tensor&>(t), e.tensor(prefix + name), prefix + name);
    for (auto& [name, t] : m.own_buffers()) {
      if (!t.defined()) continue;
      copy_float(const_cast<Tensor&>(t), e.tensor(prefix + name), prefix + name);
    }
  }
}

}  // namespace

std::vector<std::string> load_quantized_state_dict(nn::Module& model, const std::string& path, bool strict) {
  const IValue root = serialize::load_torch(path);
  EMBER_CHECK(root.is_dict(), "load_quantized_state_dict: '", path, "' does not hold a state_dict (a dict)");
  Entries entries(root.to_dict(), path);
  for (const auto& [name, m] : model.named_modules()) {
    // Observers left on unconverted modules are not part of torch's checkpoint.
    if (dynamic_cast<aoq::ObserverOrFakeQuantize*>(m.get())) continue;
    load_module(*m, name.empty() ? "" : name + ".", entries);
  }
  std::vector<std::string> read(entries.used().begin(), entries.used().end());
  if (strict) {
    for (const auto& [key, value] : root.to_dict()) {
      const std::string k = key.to_string();
      EMBER_CHECK(entries.used().contains(k), "load_quantized_state_dict: '", path, "' has an entry '", k,
                  "' that no module of the model reads (is the model quantized the same way?)");
    }
  }
  return read;
}

}  // namespace ember::models::quantization
