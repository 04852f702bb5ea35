#pragma once
// nn::utils::parametrize: PyTorch's torch.nn.utils.parametrize.
//
//   struct Symmetric : nn::utils::parametrize::Parametrization {
//     Symmetric() : Parametrization("Symmetric") {}
//     Tensor forward(const Tensor& X) override { return X.triu() + X.triu(1).mT(); }
//     Originals right_inverse(const Tensor& A) override { return A.triu(); }
//   };
//   nn::Linear fc(5, 5);
//   parametrize::register_parametrization(*fc, "weight", std::make_shared<Symmetric>());
//   fc(x);   // fc->weight = Symmetric(parametrizations.weight.original), then forward
//
// How it works in C++ (Python uses a property): a module binds the members its
// forward() reads to their registered names (Module::register_parameter(name,
// tensor, &member)). Registering a parametrization moves the tensor (the same
// TensorImpl: optimizers built before keep updating it) to
// module.parametrizations.<name>.original (a ParametrizationList), and
// installs a forward setup step on the module that stores P(original) in the
// member before every forward called through the holder (any forward
// signature). Reads outside forward: get(module, name) recomputes (and
// updates the member). Inside a `cached()` scope each parametrized tensor is
// computed once. state_dict keys are PyTorch's
// ("parametrizations.weight.original", "parametrizations.weight.0._u", ...), so
// checkpoints of parametrized PyTorch modules load strict.
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn::utils::parametrize {

// What right_inverse returns: std::monostate when the parametrization has none (the
// value is kept as is), one Tensor (stored as `original`) or several (stored
// as original0, original1, ... and passed to forward(originals)).
using Originals = std::variant<std::monostate, Tensor, std::vector<Tensor>>;

// Base of parametrizations (PyTorch: any nn.Module with forward and optionally
// right_inverse). Modules printed by name ("_SpectralNorm()").
class Parametrization : public Module {
 public:
  explicit Parametrization(std::string name = "Parametrization") : Module(std::move(name)) {}
  // P(X) for a parametrization of one original.
  virtual Tensor forward(const Tensor& X);
  // P(original0, original1, ...): the first parametrization of a tensor whose
  // right_inverse returns several tensors overrides this one.
  virtual Tensor forward(const std::vector<Tensor>& originals);
  virtual Originals right_inverse(const Tensor& value);
};

// A parametrization from a function (no right_inverse unless given).
std::shared_ptr<Parametrization> make_parametrization(std::function<Tensor(const Tensor&)> forward,
                                                      std::function<Tensor(const Tensor&)> right_inverse = {},
                                                      std::string name = "Parametrization");

// module.parametrizations.<name>: the originals and the chain of parametrizations.
class ParametrizationList : public Module {
 public:
  ParametrizationList(std::shared_ptr<Parametrization> first, Tensor original, bool is_parameter, bool unsafe);
  // The parametrized value: p[n-1](...p[1](p[0](originals))).
  Tensor forward();
  // Sets the originals so that forward() gives `value` (PyTorch's assignment
  // module.weight = value): right_inverse of each parametrization, last first.
  void right_inverse(const Tensor& value);
  void append(std::shared_ptr<Parametrization> p);

  size_t size() const { return chain_.size(); }
  Parametrization& operator[](size_t i) const { return *chain_.at(i); }
  const std::shared_ptr<Parametrization>& ptr(size_t i) const { return chain_.at(i); }
  // `original` (is_tensor) or original0, original1, ...
  bool is_tensor() const { return is_tensor_; }
  int64_t ntensors() const { return ntensors_; }
  Tensor original(int64_t i = -1) const;
  bool unsafe = false;
  // Internal: the value computed by the registration's consistency check.
  Tensor last_checked;

  void pretty_print(std::ostream& os) const override { os << "ParametrizationList()"; }

 private:
  std::vector<std::shared_ptr<Parametrization>> chain_;
  bool is_tensor_ = true;
  int64_t ntensors_ = 1;
};

// Adds `parametrization` to the parameter or buffer `tensor_name` of
// `module` (which must have bound it to a member), or appends it to the chain
// when the tensor is already parametrized. unsafe: skip the dtype/shape
// consistency checks. The parametrization takes the module's training mode.
Module& register_parametrization(Module& module, const std::string& tensor_name,
                                 std::shared_ptr<Parametrization> parametrization, bool unsafe = false);
template <class Holder>
  requires requires(const Holder& h) {
    typename Holder::ImplType;
    h.ptr();
  }
Module& register_parametrization(const Holder& module, const std::string& tensor_name,
                                 std::shared_ptr<Parametrization> parametrization, bool unsafe = false) {
  return register_parametrization(*module, tensor_name, std::move(parametrization), unsafe);
}

// Whether the module has a parametrization (on tensor_name when given).
bool is_parametrized(const Module& module, const std::string& tensor_name = "");

// Removes the parametrizations of tensor_name: leave_parametrized stores the
// current value in the original tensor (same TensorImpl); otherwise the
// unparametrized `original` comes back (impossible with original0, 1, ...).
Module& remove_parametrizations(Module& module, const std::string& tensor_name, bool leave_parametrized = true);

// module.parametrizations.<tensor_name>.
ParametrizationList& parametrizations(const Module& module, const std::string& tensor_name);

// The parametrized value now (PyTorch's module.weight), respecting cached();
// also stores it in the bound member.
Tensor get(Module& module, const std::string& tensor_name);
// Recomputes every parametrized member of `module` (what runs before forward).
void update(Module& module);
// PyTorch's `module.weight = value` on a parametrized tensor.
void assign(Module& module, const std::string& tensor_name, const Tensor& value);

// Caching: inside the scope each parametrized tensor is computed once (per
// module and name) and reused; the cache is dropped when the outermost scope
// ends. Per thread.
class CachedGuard {
 public:
  CachedGuard();
  ~CachedGuard();
  CachedGuard(const CachedGuard&) = delete;
  CachedGuard& operator=(const CachedGuard&) = delete;
};
[[nodiscard]] inline CachedGuard cached() { return {}; }

}  // namespace ember::nn::utils::parametrize
