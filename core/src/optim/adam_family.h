#pragma once
// Note [Adam-family optimizers]
// Adam, AdamW, Adamax, NAdam and RAdam check the same options with
// torch.optim's words and order (eps >= 0, both betas in [0, 1),
// weight_decay >= 0) and keep the same per-parameter state: a float32 0-d
// "step" and two moment buffers shaped like the parameter, "exp_avg" and a
// second one ("exp_avg_sq", Adamax's "exp_inf"), plus a few extras (AMSGrad's
// "max_exp_avg_sq", NAdam's "mu_product"). The helpers below hold that once;
// each optimizer file keeps only its update formula.
#include <string>
#include <utility>

#include "common.h"

namespace ember::optim::detail {

// The family's checks; throws "<who>: invalid <what>: <value>", as
// Optimizer::check_option. O is an options struct with eps, betas and
// weight_decay.
void check_adam_family_options(const std::string& who, double eps, std::pair<double, double> betas,
                               double weight_decay);
template <class O>
void check_adam_family_options(const std::string& who, const O& o) {
  check_adam_family_options(who, o.eps, o.betas, o.weight_decay);
}

// One parameter's state, created on its first step. `step` is the handle the
// state holds (step.add_(1) counts the step in the state).
struct AdamFamilyState {
  Tensor& step;
  Tensor exp_avg;
  Tensor second_moment;  // the state entry named by second_key
};

// Creates the state when it is empty (step 0, zero moments, then
// init_extra(state) for the optimizer's own entries) and returns its
// entries; a loaded state that lacks one is an ember::Error naming `who`.
template <class InitExtra>
AdamFamilyState adam_family_state(ParamState& state, const Tensor& param, const char* second_key,
                                  const std::string& who, InitExtra&& init_extra) {
  if (state.empty()) {
    state["step"] = step_tensor();
    state["exp_avg"] = zeros_like(param);
    state[second_key] = zeros_like(param);
    init_extra(state);
  }
  auto step = state.find("step");
  EMBER_CHECK(step != state.end() && step->second.is_tensor(), who, ": parameter state has no tensor 'step'");
  return {step->second.to_tensor(), require_tensor(state, "exp_avg", who), require_tensor(state, second_key, who)};
}
inline AdamFamilyState adam_family_state(ParamState& state, const Tensor& param, const char* second_key,
                                         const std::string& who) {
  return adam_family_state(state, param, second_key, who, [](ParamState&) {});
}

}  // namespace ember::optim::detail
