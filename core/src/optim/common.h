#pragma once
// Helpers shared by the optimizer implementations (private).
#include <cmath>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

// A step counter as PyTorch 1.13 keeps it: a float32 0-d tensor (torch.tensor(0.)).
inline Tensor step_tensor(double value = 0) { return scalar_tensor(value, TensorOptions(kFloat)); }

// step_t += 1; returns the new count.
inline double increment_step(Tensor& step_t) {
  step_t.add_(1);
  return step_t.item<double>();
}

// The state entry `key` as a tensor; created with make() when absent or None.
template <class Make>
Tensor& state_tensor(ParamState& state, const std::string& key, Make&& make) {
  auto it = state.find(key);
  if (it == state.end() || it->second.is_none()) it = state.insert_or_assign(key, Value(make())).first;
  return it->second.to_tensor();
}

inline const Tensor& require_tensor(const ParamState& state, const std::string& key, const std::string& who) {
  auto it = state.find(key);
  EMBER_CHECK(it != state.end() && it->second.is_tensor(), who, ": parameter state has no tensor '", key, "'");
  return it->second.to_tensor();
}

// A real view of a complex tensor (torch.view_as_real, with the (re, im) pairs kept in the
// last dimension), or t itself when real. Elementwise updates on the view update t.
inline Tensor as_real(const Tensor& t) {
  if (!t.is_complex()) return t;
  Tensor v = t.dim() == 0 ? t.unsqueeze(0) : t;
  return v.view(to_real_dtype(t.dtype()));
}

// The gradient the update uses: -grad when maximizing.
inline Tensor signed_grad(const Tensor& p, bool maximize) { return maximize ? -p.grad() : p.grad(); }

}  // namespace ember::optim::detail

namespace ember::optim::detail {
// The one group an optimizer built from a plain parameter list has.
inline std::vector<ParamGroup> single_group(std::vector<Tensor> params, const char* who) {
  EMBER_CHECK(!params.empty(), who, ": got an empty parameter list");
  std::vector<ParamGroup> groups;
  groups.emplace_back(std::move(params));
  return groups;
}
}  // namespace ember::optim::detail
