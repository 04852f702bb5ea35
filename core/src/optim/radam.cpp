// RAdam (torch/optim/radam.py of PyTorch 1.13, _single_tensor_radam).
#include "ember/optim/radam.h"

#include "common.h"

namespace ember::optim {

RAdam::RAdam(std::vector<Tensor> params, const RAdamOptions& defaults)
    : RAdam(detail::single_group(std::move(params), "RAdam"), defaults) {}

RAdam::RAdam(std::vector<ParamGroup> groups, const RAdamOptions& defaults) : Optimizer("RAdam", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void RAdam::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<RAdamOptions>(options, "RAdam");
  check_option(o.eps >= 0, "epsilon value", o.eps);
  check_option(o.betas.first >= 0 && o.betas.first < 1, "beta parameter at index 0", o.betas.first);
  check_option(o.betas.second >= 0 && o.betas.second < 1, "beta parameter at index 1", o.betas.second);
  check_option(o.weight_decay >= 0, "weight_decay value", o.weight_decay);
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
      if (st.empty()) {
        st["step"] = detail::step_tensor();
        st["exp_avg"] = zeros_like(param);
        st["exp_avg_sq"] = zeros_like(param);
      }
      const double step = detail::increment_step(st.at("step").to_tensor());
      Tensor exp_avg = detail::require_tensor(st, "exp_avg", "RAdam");
      Tensor exp_avg_sq = detail::require_tensor(st, "exp_avg_sq", "RAdam");
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
