// Ember's quantized state_dict of a converted model (quantized_state.h): the
// members the quantized modules keep outside the module's registered tensors
// (weights, biases, output scale and zero point) as safetensors-ready entries.
#include "ember/models/quantization/quantized_state.h"

#include <set>

#include <ember/ao/nn/quantized/activation_pooling.h>
#include <ember/ao/nn/quantized/modules.h>
#include <ember/ao/quantization/observer.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/ops/factories.h>

namespace ember::models::quantization {
namespace {

namespace nnq = ember::ao::nn::quantized;
namespace aoq = ember::ao::quantization;

constexpr const char* kOp = "load_quantized_state";

// The modules to save or load, with their key prefixes: every module of the
// model but observers and fake quantizers and what lies under them.
std::vector<std::pair<std::string, nn::Module*>> stateful_modules(nn::Module& model) {
  std::vector<std::pair<std::string, nn::Module*>> out;
  std::vector<std::string> skipped;  // paths of observers: their subtrees are skipped too
  for (const auto& [name, m] : model.named_modules()) {
    bool under_observer = false;
    for (const std::string& s : skipped)
      if (name.rfind(s + ".", 0) == 0) under_observer = true;
    if (under_observer) continue;
    if (dynamic_cast<aoq::ObserverOrFakeQuantize*>(m.get()) != nullptr) {
      skipped.push_back(name);
      continue;
    }
    out.emplace_back(name.empty() ? "" : name + ".", m.get());
  }
  return out;
}

void put_qparams(StateDict& out, const std::string& prefix, double scale, int64_t zero_point) {
  out.insert(prefix + "scale", scalar_tensor(scale, kFloat64));
  out.insert(prefix + "zero_point", scalar_tensor(zero_point, kInt64));
}

// Reads entries by key and remembers which were read (for strict loading).
class Reader {
 public:
  explicit Reader(const StateDict& state) : state_(state) {}
  Tensor tensor(const std::string& key) {
    const Tensor* t = state_.find(key);
    EMBER_CHECK(t != nullptr, kOp, ": the quantized state has no entry '", key,
                "' (a model of another architecture, or converted another way?)");
    used_.insert(key);
    return *t;
  }
  bool has(const std::string& key) const { return state_.find(key) != nullptr; }
  double scale(const std::string& prefix) {
    const Tensor t = tensor(prefix + "scale");
    EMBER_CHECK(t.numel() == 1 && !t.is_quantized(), kOp, ": '", prefix, "scale' must hold one number, got sizes ",
                t.sizes());
    return t.item<double>();
  }
  int64_t zero_point(const std::string& prefix) {
    const Tensor t = tensor(prefix + "zero_point");
    EMBER_CHECK(t.numel() == 1 && !t.is_quantized(), kOp, ": '", prefix,
                "zero_point' must hold one number, got sizes ", t.sizes());
    return t.item<int64_t>();
  }
  Tensor weight(const std::string& key, const Tensor& current) {
    const Tensor w = tensor(key);
    EMBER_CHECK(w.is_quantized() && w.dtype() == kQInt8, kOp, ": '", key,
                "' must be a qint8 quantized tensor, got dtype ", w.dtype());
    EMBER_CHECK(!current.defined() || w.sizes() == current.sizes(), kOp, ": '", key, "' has sizes ", w.sizes(),
                " but the model's weight has sizes ", current.sizes());
    return w;
  }
  // A bias entry when the model's module has one (and only then).
  Tensor bias(const std::string& key, const Tensor& current) {
    if (!current.defined()) return Tensor();
    const Tensor b = tensor(key);
    EMBER_CHECK(b.sizes() == current.sizes() && !b.is_quantized(), kOp, ": '", key, "' has sizes ", b.sizes(),
                " but the model's bias has sizes ", current.sizes());
    return b.to(current.dtype()).clone();
  }
  void copy_into(const Tensor& dst, const std::string& key) {
    const Tensor src = tensor(key);
    EMBER_CHECK(src.sizes() == dst.sizes(), kOp, ": '", key, "' has sizes ", src.sizes(), " but the model's has ",
                dst.sizes());
    NoGradGuard no_grad;
    const_cast<Tensor&>(dst).copy_(src);
  }
  const std::set<std::string>& used() const { return used_; }

 private:
  const StateDict& state_;
  std::set<std::string> used_;
};

}  // namespace

StateDict quantized_state_dict(nn::Module& model) {
  StateDict out;
  for (const auto& [p, m] : stateful_modules(model)) {
    if (auto* conv = dynamic_cast<nnq::Conv2dImpl*>(m)) {
      out.insert(p + "weight", conv->weight);
      if (conv->bias.defined()) out.insert(p + "bias", conv->bias);
      put_qparams(out, p, conv->scale, conv->zero_point);
    } else if (auto* linear = dynamic_cast<nnq::LinearImpl*>(m)) {
      out.insert(p + "weight", linear->weight);
      if (linear->bias.defined()) out.insert(p + "bias", linear->bias);
      put_qparams(out, p, linear->scale, linear->zero_point);
    } else if (auto* q = dynamic_cast<nnq::QuantizeImpl*>(m)) {
      put_qparams(out, p, q->scale, q->zero_point);
    } else if (auto* f = dynamic_cast<nnq::QFunctionalImpl*>(m)) {
      put_qparams(out, p, f->scale, f->zero_point);
    } else if (auto* hs = dynamic_cast<nnq::HardswishImpl*>(m)) {
      put_qparams(out, p, hs->scale, hs->zero_point);
    } else if (auto* lr = dynamic_cast<nnq::LeakyReLUImpl*>(m)) {
      put_qparams(out, p, lr->scale, lr->zero_point);
    } else if (auto* elu = dynamic_cast<nnq::ELUImpl*>(m)) {
      put_qparams(out, p, elu->scale, elu->zero_point);
    } else if (auto* bn = dynamic_cast<nnq::BatchNorm2dImpl*>(m)) {
      out.insert(p + "weight", bn->weight);
      out.insert(p + "bias", bn->bias);
      out.insert(p + "running_mean", bn->running_mean);
      out.insert(p + "running_var", bn->running_var);
      put_qparams(out, p, bn->scale, bn->zero_point);
    } else {
      for (const auto& [name, t] : m->own_parameters()) out.insert(p + name, t);
      for (const auto& [name, t] : m->own_buffers())
        if (t.defined()) out.insert(p + name, t);
    }
  }
  return out;
}

std::vector<std::string> load_quantized_state(nn::Module& model, const StateDict& state, bool strict) {
  Reader r(state);
  for (const auto& [p, m] : stateful_modules(model)) {
    if (auto* conv = dynamic_cast<nnq::Conv2dImpl*>(m)) {
      // Assigning the members makes the int8 kernel repack on the next forward.
      conv->weight = r.weight(p + "weight", conv->weight);
      conv->bias = r.bias(p + "bias", conv->bias);
      conv->scale = r.scale(p);
      conv->zero_point = r.zero_point(p);
    } else if (auto* linear = dynamic_cast<nnq::LinearImpl*>(m)) {
      linear->weight = r.weight(p + "weight", linear->weight);
      linear->bias = r.bias(p + "bias", linear->bias);
      linear->scale = r.scale(p);
      linear->zero_point = r.zero_point(p);
    } else if (auto* q = dynamic_cast<nnq::QuantizeImpl*>(m)) {
      q->scale = r.scale(p);
      q->zero_point = r.zero_point(p);
    } else if (auto* f = dynamic_cast<nnq::QFunctionalImpl*>(m)) {
      f->scale = r.scale(p);
      f->zero_point = r.zero_point(p);
    } else if (auto* hs = dynamic_cast<nnq::HardswishImpl*>(m)) {
      hs->scale = r.scale(p);
      hs->zero_point = r.zero_point(p);
    } else if (auto* lr = dynamic_cast<nnq::LeakyReLUImpl*>(m)) {
      lr->scale = r.scale(p);
      lr->zero_point = r.zero_point(p);
    } else if (auto* elu = dynamic_cast<nnq::ELUImpl*>(m)) {
      elu->scale = r.scale(p);
      elu->zero_point = r.zero_point(p);
    } else if (auto* bn = dynamic_cast<nnq::BatchNorm2dImpl*>(m)) {
      r.copy_into(bn->weight, p + "weight");
      r.copy_into(bn->bias, p + "bias");
      r.copy_into(bn->running_mean, p + "running_mean");
      r.copy_into(bn->running_var, p + "running_var");
      bn->scale = r.scale(p);
      bn->zero_point = r.zero_point(p);
    } else {
      for (const auto& [name, t] : m->own_parameters()) r.copy_into(t, p + name);
      for (const auto& [name, t] : m->own_buffers())
        if (t.defined()) r.copy_into(t, p + name);
    }
  }
  if (strict) {
    for (const auto& [key, t] : state)
      EMBER_CHECK(r.used().contains(key), kOp, ": the quantized state has an entry '", key,
                  "' that no module of the model reads (is the model quantized the same way?)");
  }
  return {r.used().begin(), r.used().end()};
}

}  // namespace ember::models::quantization
