// nn::utils::parametrize: registration, removal, the parametrized value and
// its cache (torch/nn/utils/parametrize.py).
#include "ember/nn/utils/parametrize.h"

#include <map>
#include <sstream>

#include "ember/autograd/grad_mode.h"

namespace ember::nn::utils::parametrize {

namespace {

// module.parametrizations: printed as PyTorch's ModuleDict; remembers what
// registration changed on the host module.
class ParametrizationDict : public Module {
 public:
  ParametrizationDict() : Module("ModuleDict") {}
  void pretty_print(std::ostream& os) const override { os << "ModuleDict()"; }
  uint64_t setup_handle = 0;
  std::string host_name;  // the module's name before "Parametrized"
};

std::shared_ptr<ParametrizationDict> dict_of(const Module& module) {
  const auto children = module.named_children();
  const auto* child = children.find("parametrizations");
  return child ? std::dynamic_pointer_cast<ParametrizationDict>(*child) : nullptr;
}

struct Cache {
  int depth = 0;
  std::map<std::pair<const Module*, std::string>, Tensor> values;
};
thread_local Cache cache;

// The parametrized value of `name`, through the cache when enabled.
Tensor compute(const Module& module, const std::string& name, ParametrizationList& list) {
  if (cache.depth == 0) return list.forward();
  auto key = std::make_pair(&module, name);
  auto it = cache.values.find(key);
  if (it != cache.values.end()) return it->second;
  Tensor value = list.forward();
  cache.values.emplace(std::move(key), value);
  return value;
}

std::string shape_str(IntArrayRef sizes) {
  std::ostringstream ss;
  ss << sizes;
  return ss.str();
}

class LambdaParametrization : public Parametrization {
 public:
  LambdaParametrization(std::function<Tensor(const Tensor&)> f, std::function<Tensor(const Tensor&)> inv,
                        std::string name)
      : Parametrization(std::move(name)), f_(std::move(f)), inv_(std::move(inv)) {}
  Tensor forward(const Tensor& X) override { return f_(X); }
  Originals right_inverse(const Tensor& value) override {
    if (!inv_) return {};
    return inv_(value);
  }

 private:
  std::function<Tensor(const Tensor&)> f_, inv_;
};

}  // namespace

// ---- Parametrization ----

Tensor Parametrization::forward(const Tensor&) {
  EMBER_CHECK(false, "parametrization ", name(), " does not implement forward(X)");
  return {};
}

Tensor Parametrization::forward(const std::vector<Tensor>& originals) {
  EMBER_CHECK(originals.size() == 1, "parametrization ", name(), " takes one tensor, got ", originals.size(),
              " (override forward(const std::vector<Tensor>&) for several originals)");
  return forward(originals[0]);
}

Originals Parametrization::right_inverse(const Tensor&) { return {}; }

std::shared_ptr<Parametrization> make_parametrization(std::function<Tensor(const Tensor&)> forward,
                                                      std::function<Tensor(const Tensor&)> right_inverse,
                                                      std::string name) {
  return std::make_shared<LambdaParametrization>(std::move(forward), std::move(right_inverse), std::move(name));
}

// ---- ParametrizationList ----

ParametrizationList::ParametrizationList(std::shared_ptr<Parametrization> first, Tensor original, bool is_parameter,
                                         bool unsafe_)
    : Module("ParametrizationList"), unsafe(unsafe_) {
  EMBER_CHECK(first != nullptr, "ParametrizationList requires one or more modules.");
  append(first);
  const std::vector<int64_t> original_shape = original.sizes().vec();
  const DType original_dtype = original.dtype();
  const bool requires_grad = original.requires_grad();
  Originals inverse;
  {
    NoGradGuard no_grad;
    inverse = first->right_inverse(original);
  }
  auto add = [&](const std::string& name, const Tensor& t) {
    if (is_parameter)
      register_parameter(name, t, requires_grad);
    else
      register_buffer(name, t);
  };
  if (const auto* many = std::get_if<std::vector<Tensor>>(&inverse)) {
    is_tensor_ = false;
    ntensors_ = static_cast<int64_t>(many->size());
    for (size_t i = 0; i < many->size(); ++i) {
      Tensor t = (*many)[i];
      EMBER_CHECK(t.defined(), "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). Got "
                               "element ", i, " of the sequence undefined.");
      if (is_parameter) t = t.detach().requires_grad_(requires_grad);
      add("original" + std::to_string(i), t);
    }
  } else {
    if (const auto* one = std::get_if<Tensor>(&inverse)) {
      EMBER_CHECK(one->dtype() == original.dtype(),
                  "When `right_inverse` outputs one tensor, it may not change the dtype.\noriginal.dtype: ",
                  original.dtype(), "\nright_inverse(original).dtype: ", one->dtype());
      NoGradGuard no_grad;
      if (!one->is_same(original)) original.set_data(*one);
    }
    add("original", original);
  }
  if (!unsafe) {
    Tensor Z = forward();
    EMBER_CHECK(Z.dtype() == original_dtype,
                "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag is "
                "enabled.\nunparametrized dtype: ",
                original_dtype, "\nparametrized dtype: ", Z.dtype());
    EMBER_CHECK(Z.sizes() == IntArrayRef(original_shape),
                "Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag is "
                "enabled.\nunparametrized shape: ",
                shape_str(original_shape), "\nparametrized shape: ", shape_str(Z.sizes()));
    last_checked = Z;
  }
}

void ParametrizationList::append(std::shared_ptr<Parametrization> p) {
  EMBER_CHECK(p != nullptr, "register_parametrization: the parametrization is null");
  register_module(std::to_string(chain_.size()), p);
  chain_.push_back(std::move(p));
}

Tensor ParametrizationList::original(int64_t i) const {
  const std::string name = i < 0 ? "original" : "original" + std::to_string(i);
  if (const Tensor* t = own_parameters().find(name)) return *t;
  if (const Tensor* t = own_buffers().find(name)) return *t;
  EMBER_CHECK(false, "ParametrizationList has no tensor '", name, "'");
  return {};
}

Tensor ParametrizationList::forward() {
  auto call = [](Parametrization& p) -> Parametrization& {
    if (p.has_forward_setup()) p.run_forward_setup();
    return p;
  };
  Tensor x;
  if (is_tensor_) {
    x = call(*chain_[0]).forward(original());
  } else {
    std::vector<Tensor> originals;
    for (int64_t i = 0; i < ntensors_; ++i) originals.push_back(original(i));
    x = call(*chain_[0]).forward(originals);
  }
  for (size_t i = 1; i < chain_.size(); ++i) x = call(*chain_[i]).forward(x);
  return x;
}

void ParametrizationList::right_inverse(const Tensor& value) {
  NoGradGuard no_grad;
  Originals current = value;
  for (size_t i = chain_.size(); i-- > 0;) {
    const Tensor* x = std::get_if<Tensor>(&current);
    EMBER_CHECK(x != nullptr, "parametrization ", chain_[i]->name(),
                ": 'right_inverse' of a later parametrization returned a sequence of tensors");
    Originals next = chain_[i]->right_inverse(*x);
    EMBER_CHECK(!std::holds_alternative<std::monostate>(next), "parametrization ", chain_[i]->name(),
                " does not implement right_inverse.");
    current = std::move(next);
  }
  if (is_tensor_) {
    const Tensor* t = std::get_if<Tensor>(&current);
    EMBER_CHECK(t != nullptr, "`right_inverse` should return a tensor. Got a sequence of tensors");
    Tensor orig = original();
    EMBER_CHECK(t->dtype() == orig.dtype(), "The tensor returned by `right_inverse` has dtype ", t->dtype(),
                " while `original` has dtype ", orig.dtype());
    orig.set_data(*t);
  } else {
    const auto* many = std::get_if<std::vector<Tensor>>(&current);
    EMBER_CHECK(many != nullptr, "'right_inverse' must return a sequence of tensors. Got a Tensor.");
    EMBER_CHECK(static_cast<int64_t>(many->size()) == ntensors_,
                "'right_inverse' must return a sequence of tensors of length ", ntensors_, ". Got a sequence of "
                "length ", many->size(), ".");
    for (int64_t i = 0; i < ntensors_; ++i) {
      Tensor orig = original(i);
      const Tensor& t = (*many)[static_cast<size_t>(i)];
      EMBER_CHECK(t.dtype() == orig.dtype(), "Tensor ", i, " returned by `right_inverse` has dtype ", t.dtype(),
                  " while `original", i, "` has dtype ", orig.dtype());
      orig.set_data(t);
    }
  }
}

// ---- registration ----

bool is_parametrized(const Module& module, const std::string& tensor_name) {
  auto dict = dict_of(module);
  if (!dict) return false;
  return tensor_name.empty() ? !dict->named_children().empty() : dict->named_children().contains(tensor_name);
}

ParametrizationList& parametrizations(const Module& module, const std::string& tensor_name) {
  auto dict = dict_of(module);
  EMBER_CHECK(dict && dict->named_children().contains(tensor_name), "Module ", module.name(),
              " does not have a parametrization on ", tensor_name);
  return static_cast<ParametrizationList&>(*dict->named_children().at(tensor_name));
}

Module& register_parametrization(Module& module, const std::string& tensor_name,
                                 std::shared_ptr<Parametrization> parametrization, bool unsafe) {
  EMBER_CHECK(parametrization != nullptr, "register_parametrization: the parametrization is null");
  parametrization->train(module.is_training());
  Tensor value;  // the new parametrized value when a check computed it
  if (is_parametrized(module, tensor_name)) {
    ParametrizationList& list = parametrizations(module, tensor_name);
    if (!unsafe) {
      const Tensor Y = get(module, tensor_name);
      const Tensor X = parametrization->forward(Y);
      EMBER_CHECK(X.dtype() == Y.dtype(),
                  "Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` flag is "
                  "enabled.\nmodule.", tensor_name, ".dtype: ", Y.dtype(), "\nparametrization(module.", tensor_name,
                  ").dtype: ", X.dtype());
      EMBER_CHECK(X.sizes() == Y.sizes(),
                  "Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag is "
                  "enabled.\nmodule.", tensor_name, ".shape: ", shape_str(Y.sizes()), "\nparametrization(module.",
                  tensor_name, ").shape: ", shape_str(X.sizes()));
      Originals Z = parametrization->right_inverse(X);
      EMBER_CHECK(!std::holds_alternative<std::vector<Tensor>>(Z),
                  "parametrization.right_inverse must return a tensor. Got: a sequence of tensors");
      if (const Tensor* z = std::get_if<Tensor>(&Z)) {
        EMBER_CHECK(z->dtype() == Y.dtype(),
                    "The tensor returned by parametrization.right_inverse must have the same dtype as module.",
                    tensor_name, ", unless the `unsafe` flag is enabled.\nmodule.", tensor_name, ".dtype: ",
                    Y.dtype(), "\nreturned dtype: ", z->dtype());
        EMBER_CHECK(z->sizes() == Y.sizes(),
                    "The tensor returned by parametrization.right_inverse must have the same shape as module.",
                    tensor_name, ", unless the `unsafe` flag is enabled.\nmodule.", tensor_name, ".shape: ",
                    shape_str(Y.sizes()), "\nreturned shape: ", shape_str(z->sizes()));
      }
      value = X;
    }
    list.append(std::move(parametrization));
    list.unsafe |= unsafe;
  } else {
    const bool is_parameter = module.own_parameters().contains(tensor_name);
    const Tensor* found =
        is_parameter ? module.own_parameters().find(tensor_name) : module.own_buffers().find(tensor_name);
    EMBER_CHECK(found != nullptr && found->defined(), "Module '", module.name(),
                "' does not have a parameter, a buffer, or a parametrized element with name '", tensor_name, "'");
    EMBER_CHECK(module.bound_member(tensor_name) != nullptr, "register_parametrization: ", module.name(), "'s '",
                tensor_name,
                "' is not bound to a member: the module must register it with register_parameter/register_buffer("
                "name, tensor, &member) so that forward reads the parametrized value");
    auto list = std::make_shared<ParametrizationList>(std::move(parametrization), *found, is_parameter, unsafe);
    value = list->last_checked;
    list->last_checked = Tensor();
    module.unregister(tensor_name);
    auto dict = dict_of(module);
    if (!dict) {
      dict = std::make_shared<ParametrizationDict>();
      dict->host_name = module.name();
      module.register_module("parametrizations", dict);
      module.set_name("Parametrized" + dict->host_name);
      dict->setup_handle = module.register_forward_setup([](Module& m) { update(m); });
    }
    dict->register_module(tensor_name, list);
  }
  Tensor* member = module.bound_member(tensor_name);
  *member = value.defined() ? value : compute(module, tensor_name, parametrizations(module, tensor_name));
  return module;
}

Module& remove_parametrizations(Module& module, const std::string& tensor_name, bool leave_parametrized) {
  EMBER_CHECK(is_parametrized(module, tensor_name), "Module ", module.name(), " does not have a parametrization on ",
              tensor_name);
  ParametrizationList& list = parametrizations(module, tensor_name);
  Tensor original;
  bool is_parameter;
  if (list.is_tensor()) {
    original = list.original();
    is_parameter = list.own_parameters().contains("original");
    if (leave_parametrized) {
      NoGradGuard no_grad;
      Tensor t = compute(module, tensor_name, list);
      if (!t.is_same(original)) original.set_data(t);
    }
  } else {
    EMBER_CHECK(leave_parametrized,
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms of "
                "a sequence of tensors.");
    bool requires_grad = false;
    for (int64_t i = 0; i < list.ntensors(); ++i) requires_grad |= list.original(i).requires_grad();
    {
      NoGradGuard no_grad;
      original = compute(module, tensor_name, list).detach();
    }
    if (requires_grad) original.requires_grad_(true);
    is_parameter = requires_grad;
  }
  auto dict = dict_of(module);
  dict->unregister(tensor_name);
  cache.values.erase(std::make_pair(&module, tensor_name));
  if (is_parameter)
    module.register_parameter(tensor_name, original, /*requires_grad=*/false);
  else
    module.register_buffer(tensor_name, original);
  if (dict->named_children().empty()) {
    module.unregister("parametrizations");
    module.remove_hook(dict->setup_handle);
    module.set_name(dict->host_name);
  }
  return module;
}

// ---- values ----

Tensor get(Module& module, const std::string& tensor_name) {
  Tensor value = compute(module, tensor_name, parametrizations(module, tensor_name));
  if (Tensor* member = module.bound_member(tensor_name)) *member = value;
  return value;
}

void update(Module& module) {
  auto dict = dict_of(module);
  if (!dict) return;
  for (const auto& [name, child] : dict->named_children()) {
    Tensor value = compute(module, name, static_cast<ParametrizationList&>(*child));
    if (Tensor* member = module.bound_member(name)) *member = value;
  }
}

void assign(Module& module, const std::string& tensor_name, const Tensor& value) {
  parametrizations(module, tensor_name).right_inverse(value);
}

CachedGuard::CachedGuard() { ++cache.depth; }
CachedGuard::~CachedGuard() {
  if (--cache.depth == 0) cache.values.clear();
}

}  // namespace ember::nn::utils::parametrize
