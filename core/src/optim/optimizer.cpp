// Optimizer base: parameter groups, per-parameter state, zero_grad, state_dict (see
// ember/optim/optimizer.h; the Python original is torch/optim/optimizer.py).
#include "ember/optim/optimizer.h"

#include <cmath>
#include <unordered_set>

#include "ember/autograd/grad_mode.h"

namespace ember::optim {

const Value& ParamGroup::at(const std::string& key) const {
  auto it = options.find(key);
  EMBER_CHECK(it != options.end(), "optim: parameter group has no option '", key, "'");
  return it->second;
}

Value& ParamGroup::at(const std::string& key) {
  auto it = options.find(key);
  EMBER_CHECK(it != options.end(), "optim: parameter group has no option '", key, "'");
  return it->second;
}

double ParamGroup::get_double(const std::string& key) const {
  const Value& v = at(key);
  EMBER_CHECK(v.is_number(), "optim: parameter group option '", key, "' is a ", v.type_name(), ", not a number");
  return v.to_double();
}

Optimizer::Optimizer(std::string name, Dict defaults) : name_(std::move(name)), defaults_(std::move(defaults)) {}

Optimizer::~Optimizer() = default;

void Optimizer::init_groups(std::vector<ParamGroup> groups) {
  validate(defaults_);
  EMBER_CHECK(!groups.empty(), name_, ": got an empty parameter list");
  for (auto& g : groups) add_param_group(std::move(g));
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> out;
  for (const auto& g : param_groups_) out.insert(out.end(), g.params.begin(), g.params.end());
  return out;
}

void Optimizer::add_param_group(ParamGroup group) {
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& g : param_groups_)
    for (const auto& p : g.params) seen.insert(p.impl());
  std::unordered_set<const TensorImpl*> in_group;
  for (size_t i = 0; i < group.params.size(); ++i) {
    const Tensor& p = group.params[i];
    EMBER_CHECK(p.defined(), name_, ": parameter ", i, " of the new group is an undefined tensor");
    EMBER_CHECK(p.is_leaf() || p.retains_grad(), name_, ": can't optimize a non-leaf Tensor (parameter ", i,
                " of the new group)");
    EMBER_CHECK(!seen.count(p.impl()), name_, ": some parameters appear in more than one parameter group");
    EMBER_CHECK(in_group.insert(p.impl()).second, name_,
                ": a parameter group contains the same parameter twice (parameter ", i, ")");
  }
  for (const auto& [key, value] : defaults_) group.options.emplace(key, value);
  validate(group.options);
  param_groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& g : param_groups_)
    for (auto& p : g.params) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
      } else {
        Tensor& grad = p.mutable_grad();
        if (grad.grad_fn())
          grad.detach_();
        else
          grad.requires_grad_(false);
        grad.zero_();
      }
    }
}

ParamState& Optimizer::state(const Tensor& param) { return state_[param.impl()]; }

const ParamState* Optimizer::find_state(const Tensor& param) const {
  auto it = state_.find(param.impl());
  return it == state_.end() ? nullptr : &it->second;
}

void Optimizer::validate(const Dict& options) const {
  auto it = options.find("lr");
  if (it != options.end() && it->second.is_number()) {
    const double lr = it->second.to_double();
    EMBER_CHECK(!std::isnan(lr), name_, ": the learning rate (lr) is required");
    check_option(lr >= 0, "learning rate", lr);
  }
}

void Optimizer::check_option(bool ok, const char* what, double value) const {
  EMBER_CHECK(ok, name_, ": invalid ", what, ": ", value);
}

Tensor Optimizer::run_closure(const Closure& closure) const {
  if (!closure) return Tensor();
  EnableGradGuard grad_on;
  return closure();
}

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict out;
  int64_t index = 0;
  for (const auto& g : param_groups_) {
    OptimizerStateDict::Group packed;
    packed.options = g.options;
    for (const auto& p : g.params) {
      packed.params.push_back(index);
      if (const ParamState* s = find_state(p)) out.state[index] = *s;
      ++index;
    }
    out.param_groups.push_back(std::move(packed));
  }
  return out;
}

namespace {
// Deep copy of a state value for `param`: tensors are cloned, floating-point ones cast to the
// parameter's dtype (except "step", pytorch#74424).
Value cast_for(const Tensor& param, const Value& v, bool keep_dtype) {
  auto cast = [&](const Tensor& t) {
    if (!t.defined()) return t;
    Tensor c = t.detach();
    if (!keep_dtype && param.is_floating_point() && c.is_floating_point() && c.dtype() != param.dtype())
      return c.to(param.dtype());
    return c.clone();
  };
  if (v.is_tensor()) return cast(v.to_tensor());
  if (v.is_tensor_list()) {
    std::vector<Tensor> out;
    for (const auto& t : v.to_tensor_list()) out.push_back(cast(t));
    return out;
  }
  return v;
}
}  // namespace

void Optimizer::load_state_dict(const OptimizerStateDict& sd) {
  EMBER_CHECK(sd.param_groups.size() == param_groups_.size(), name_,
              ": loaded state dict has a different number of parameter groups (", sd.param_groups.size(),
              " saved, ", param_groups_.size(), " in the optimizer)");
  std::vector<Tensor> params;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    EMBER_CHECK(sd.param_groups[i].params.size() == param_groups_[i].params.size(), name_,
                ": loaded state dict contains a parameter group that doesn't match the size of optimizer's group ",
                i, " (", sd.param_groups[i].params.size(), " saved, ", param_groups_[i].params.size(), " here)");
    params.insert(params.end(), param_groups_[i].params.begin(), param_groups_[i].params.end());
  }
  // Saved index -> parameter, in the same flattened order.
  std::map<int64_t, Tensor> id_map;
  {
    size_t k = 0;
    for (const auto& g : sd.param_groups)
      for (int64_t id : g.params) id_map[id] = params[k++];
  }
  for (const auto& g : sd.param_groups)
    for (const auto& [key, v] : g.options)
      EMBER_CHECK(!v.is_tensor() && !v.is_tensor_list(), name_, ": loaded group option '", key,
                  "' holds tensors; options must be plain values");
  std::unordered_map<const TensorImpl*, ParamState> state;
  for (const auto& [id, saved] : sd.state) {
    auto it = id_map.find(id);
    EMBER_CHECK(it != id_map.end(), name_, ": loaded state dict has state for parameter ", id,
                ", which is in none of its parameter groups");
    ParamState s;
    for (const auto& [key, v] : saved) s[key] = cast_for(it->second, v, key == "step");
    state[it->second.impl()] = std::move(s);
  }
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    Dict options = sd.param_groups[i].options;
    for (const auto& [key, value] : defaults_) options.emplace(key, value);
    validate(options);
    param_groups_[i].options = std::move(options);
  }
  state_ = std::move(state);
}

}  // namespace ember::optim
