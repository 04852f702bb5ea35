// Adamax (torch/optim/adamax.py, _single_tensor_adamax).
#include "ember/optim/adamax.h"

#include "common.h"

namespace ember::optim {

Adamax::Adamax(std::vector<Tensor> params, const AdamaxOptions& defaults)
    : Adamax(detail::single_group(std::move(params), "Adamax"), defaults) {}

Adamax::Adamax(std::vector<ParamGroup> groups, const AdamaxOptions& defaults)
    : Optimizer("Adamax", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void Adamax::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<AdamaxOptions>(options, "Adamax");
  check_option(o.eps >= 0, "epsilon value", o.eps);
  check_option(o.betas.first >= 0 && o.betas.first < 1, "beta parameter at index 0", o.betas.first);
  check_option(o.betas.second >= 0 && o.betas.second < 1, "beta parameter at index 1", o.betas.second);
  check_option(o.weight_decay >= 0, "weight_decay value", o.weight_decay);
}

Tensor Adamax::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto o = from_dict<AdamaxOptions>(group.options, "Adamax");
    const auto [beta1, beta2] = o.betas;
    for (auto& param : group.params) {
      if (!param.grad().defined()) continue;
      ParamState& st = state(param);
      if (st.empty()) {
        st["step"] = detail::step_tensor();
        st["exp_avg"] = zeros_like(param);
        st["exp_inf"] = zeros_like(param);
      }
      const double step = detail::increment_step(st.at("step").to_tensor());
      Tensor grad = detail::signed_grad(param, o.maximize);
      if (o.weight_decay != 0) grad = grad.add(param, o.weight_decay);
      Tensor p = detail::as_real(param);
      grad = detail::as_real(grad);
      Tensor exp_avg = detail::as_real(detail::require_tensor(st, "exp_avg", "Adamax"));
      Tensor exp_inf = detail::as_real(detail::require_tensor(st, "exp_inf", "Adamax"));
      exp_avg.mul_(beta1).add_(grad, 1 - beta1);
      // exp_inf = amax(stack(exp_inf * beta2, |grad| + eps))
      exp_inf.mul_(beta2).maximum_(grad.abs().add_(o.eps));
      const double clr = o.lr / (1 - std::pow(beta1, step));
      p.addcdiv_(exp_avg, exp_inf, -clr);
    }
  }
  return loss;
}

}  // namespace ember::optim
