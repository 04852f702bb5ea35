// Adam and AdamW (torch/optim/adam.py and adamw.py, _single_tensor_adam[w]).
#include "ember/optim/adam.h"

#include "adam_family.h"

namespace ember::optim {

Adam::Adam(std::vector<Tensor> params, const AdamOptions& defaults)
    : Adam(detail::single_group(std::move(params), "Adam"), defaults) {}

Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& defaults) : Optimizer("Adam", to_dict(defaults)) {
  init_groups(std::move(groups));
}

AdamW::AdamW(std::vector<Tensor> params, const AdamWOptions& defaults)
    : AdamW(detail::single_group(std::move(params), "AdamW"), defaults) {}

AdamW::AdamW(std::vector<ParamGroup> groups, const AdamWOptions& defaults) : Adam("AdamW", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void Adam::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<AdamOptions>(options, name().c_str());
  detail::check_adam_family_options(name(), o);
}

Tensor Adam::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) step_group(group, false);
  return loss;
}

Tensor AdamW::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) step_group(group, true);
  return loss;
}

void Adam::step_group(ParamGroup& group, bool decoupled_weight_decay) {
  const auto o = from_dict<AdamOptions>(group.options, name().c_str());
  const auto [beta1, beta2] = o.betas;
  for (auto& param : group.params) {
    if (!param.grad().defined()) continue;
    Tensor grad = detail::signed_grad(param, o.maximize);
    ParamState& st = state(param);
    auto [step_t, exp_avg, exp_avg_sq] = detail::adam_family_state(st, param, "exp_avg_sq", name(), [&](ParamState& s) {
      if (o.amsgrad) s["max_exp_avg_sq"] = zeros_like(param);
    });
    Tensor p = param;
    if (!decoupled_weight_decay) {
      step_t.add_(1);
      if (o.weight_decay != 0) grad = grad.add(p, o.weight_decay);
    }
    grad = detail::as_real(grad);
    exp_avg = detail::as_real(exp_avg);
    exp_avg_sq = detail::as_real(exp_avg_sq);
    p = detail::as_real(p);
    if (decoupled_weight_decay) {
      step_t.add_(1);
      p.mul_(1 - o.lr * o.weight_decay);
    }
    exp_avg.mul_(beta1).add_(grad, 1 - beta1);
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
    const double step = step_t.item<double>();
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const double step_size = o.lr / bias_correction1;
    const double bias_correction2_sqrt = std::sqrt(bias_correction2);
    Tensor denom;
    if (o.amsgrad) {
      Tensor max_sq = detail::as_real(detail::state_tensor(st, "max_exp_avg_sq", [&] { return zeros_like(param); }));
      max_sq.maximum_(exp_avg_sq);
      denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(o.eps);
    } else {
      denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(o.eps);
    }
    p.addcdiv_(exp_avg, denom, -step_size);
  }
}

}  // namespace ember::optim
