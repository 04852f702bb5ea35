// RAdam (torch/optim/radam.py of PyTorch 1.13, _single_tensor_radam).
#include "ember/optim/radam.h"

#include "adam_family.h"

namespace ember::optim {

RAdam::RAdam(std::vector<Tensor> params, const RAdamOptions& defaults)
    : RAdam(detail::single_group(std::move(params), "RAdam"), defaults) {}

RAdam::RAdam(std::vector<ParamGroup> groups, const RAdamOptions& defaults) : Optimizer("RAdam", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void RAdam::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<RAdamOptions>(options, "RAdam");
  detail::check_adam_family_options("RAdam", o);
}

Tensor RAdam::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto o = from_dict<RAdamOptions>(group.options, "RAdam");
    const auto [beta1, beta2] = o.betas;
    for (auto& param : group.params) {
      if (!param.grad().defined()) continue;
      ParamState& st = state(param);
      auto [step_t, exp_avg, exp_avg_sq] = detail::adam_family_state(st, param, "exp_avg_sq", "RAdam");
      const double step = detail::increment_step(step_t);
      const double bias_correction1 = 1 - std::pow(beta1, step);
      const double bias_correction2 = 1 - std::pow(beta2, step);
      Tensor grad = param.grad();
      if (o.weight_decay != 0) grad = grad.add(param, o.weight_decay);
      exp_avg.mul_(beta1).add_(grad, 1 - beta1);
      exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      Tensor bias_corrected_exp_avg = exp_avg / bias_correction1;
      const double rho_inf = 2 / (1 - beta2) - 1;
      const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
      if (rho_t > 5.) {
        const double rect =
            std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
        Tensor adaptive_lr = std::sqrt(bias_correction2) / exp_avg_sq.sqrt().add_(o.eps);
        param.add_(bias_corrected_exp_avg * o.lr * adaptive_lr * rect, -1.0);
      } else {
        param.add_(bias_corrected_exp_avg * o.lr, -1.0);
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
