// Adamax (torch/optim/adamax.py, _single_tensor_adamax).
#include "ember/optim/adamax.h"

#include "adam_family.h"

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
  detail::check_adam_family_options("Adamax", o);
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
      const detail::AdamFamilyState s = detail::adam_family_state(st, param, "exp_inf", "Adamax");
      const double step = detail::increment_step(s.step);
      Tensor grad = detail::signed_grad(param, o.maximize);
      if (o.weight_decay != 0) grad = grad.add(param, o.weight_decay);
      Tensor p = detail::as_real(param);
      grad = detail::as_real(grad);
      Tensor exp_avg = detail::as_real(s.exp_avg);
      Tensor exp_inf = detail::as_real(s.second_moment);
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
