#pragma once
// ember::optim::Optimizer: the base of every optimizer, as torch.optim.Optimizer.
//
//  - Parameter groups: each group is a list of parameters and its own options (a Dict:
//    "lr", "momentum", ...). Options a group does not set come from the optimizer's
//    defaults (the options struct given to its constructor). Schedulers and users may read
//    and change group options between steps (group.set_lr(0.01), group["momentum"] = 0.8).
//  - Per-parameter state: a Dict per parameter ("step", "exp_avg", ...), created lazily by
//    step() with PyTorch's keys and types.
//  - step(closure): runs under NoGradGuard and updates parameters in place; the closure
//    (which re-evaluates the model and returns the loss) runs with grad mode on.
//  - state_dict() / load_state_dict(): PyTorch's layout, see OptimizerStateDict.
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/optim/value.h"

namespace ember::optim {

// Default of an option that has none in PyTorch (SGD's lr): leaving it unset is an error.
inline constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();

// An options struct (SGDOptions, AdamOptions, ...) lists its fields for conversion to and
// from a Dict: `template <class Self, class F> static void fields(Self& s, F&& f)` calls
// f("name", s.member) for each option.
template <class O>
concept OptionsStruct = requires(O& o) { O::fields(o, [](const char*, auto&) {}); };

template <OptionsStruct O>
Dict to_dict(const O& options) {
  Dict d;
  O::fields(options, [&](const char* name, const auto& v) { d[name] = Value(v); });
  return d;
}

// Reads the fields of O from d (fields d lacks keep O's defaults). `who` names the caller
// in errors.
template <OptionsStruct O>
O from_dict(const Dict& d, const char* who) {
  O o;
  O::fields(o, [&](const char* name, auto& v) {
    auto it = d.find(name);
    if (it == d.end()) return;
    try {
      v = it->second.template as<std::decay_t<decltype(v)>>();
    } catch (const Error& e) {
      EMBER_FAIL(who, ": option '", name, "': ", e.what());
    }
  });
  return o;
}

struct ParamGroup {
  std::vector<Tensor> params;
  Dict options;

  ParamGroup() = default;
  // `options` may set only some options; add_param_group fills in the defaults.
  ParamGroup(std::vector<Tensor> params, Dict options = {})
      : params(std::move(params)), options(std::move(options)) {}
  template <OptionsStruct O>
  ParamGroup(std::vector<Tensor> params, const O& options) : params(std::move(params)), options(to_dict(options)) {}

  bool has(const std::string& key) const { return options.count(key) != 0; }
  // Throws ember::Error naming the key when the group has no such option.
  const Value& at(const std::string& key) const;
  Value& at(const std::string& key);
  Value& operator[](const std::string& key) { return options[key]; }
  double get_double(const std::string& key) const;
  double lr() const { return get_double("lr"); }
  void set_lr(double lr) { options["lr"] = lr; }
};

// Per-parameter state: "step", "exp_avg", "momentum_buffer", ...
using ParamState = Dict;

// The state of an optimizer in torch.optim's state_dict() layout:
//   "state":        parameter index -> that parameter's state (only parameters with state);
//   "param_groups": per group, "params" (the indices of its parameters) and its options.
// Parameters are numbered in group order, then in order within their group.
struct OptimizerStateDict {
  struct Group {
    std::vector<int64_t> params;
    Dict options;
  };
  std::map<int64_t, ParamState> state;
  std::vector<Group> param_groups;
};

class Optimizer {
 public:
  // Re-evaluates the model and returns the loss.
  using Closure = std::function<Tensor()>;

  virtual ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // "SGD", "Adam", ...
  const std::string& name() const { return name_; }
  const Dict& defaults() const { return defaults_; }
  std::vector<ParamGroup>& param_groups() { return param_groups_; }
  const std::vector<ParamGroup>& param_groups() const { return param_groups_; }
  // All parameters, in group order.
  std::vector<Tensor> parameters() const;

  // Appends a group: options it does not set are taken from defaults(); the options are
  // validated like the constructor's. A parameter may belong to one group only.
  void add_param_group(ParamGroup group);

  // Clears the gradients of all parameters: undefined (set_to_none, the default) or zero.
  void zero_grad(bool set_to_none = true);

  // One optimization step. The closure is optional except for LBFGS. Returns the closure's
  // loss (an undefined tensor without a closure).
  virtual Tensor step(const Closure& closure = nullptr) = 0;

  // The state of one parameter (created empty on first access).
  ParamState& state(const Tensor& param);
  const ParamState* find_state(const Tensor& param) const;
  // Number of parameters that have state.
  size_t state_size() const { return state_.size(); }

  // Tensors in the result share memory with the optimizer's state (as in PyTorch).
  OptimizerStateDict state_dict() const;
  // Copies the state in: the numbers of groups and of parameters per group must match.
  // Floating-point state tensors are cast to their parameter's dtype (except "step"), and all
  // tensors are cloned so the loaded optimizer owns its state. Group options are replaced by
  // the saved ones.
  void load_state_dict(const OptimizerStateDict& state_dict);

 protected:
  Optimizer(std::string name, Dict defaults);
  // Adds the constructor's groups (must be called by the derived constructor once it can
  // validate options).
  void init_groups(std::vector<ParamGroup> groups);
  // Checks one group's complete options; throws ember::Error naming the optimizer and value.
  virtual void validate(const Dict& options) const;
  // Runs the closure with grad mode on; undefined tensor when there is none.
  Tensor run_closure(const Closure& closure) const;
  // Throws "<name>: invalid <what>: <value>" when !ok.
  void check_option(bool ok, const char* what, double value) const;

 private:
  std::string name_;
  Dict defaults_;
  std::vector<ParamGroup> param_groups_;
  std::unordered_map<const TensorImpl*, ParamState> state_;
};

}  // namespace ember::optim
