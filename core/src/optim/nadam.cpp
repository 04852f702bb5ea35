// NAdam (torch/optim/nadam.py of PyTorch 1.13, _single_tensor_nadam).
#include "ember/optim/nadam.h"

#include "adam_family.h"

namespace ember::optim {

NAdam::NAdam(std::vector<Tensor> params, const NAdamOptions& defaults)
    : NAdam(detail::single_group(std::move(params), "NAdam"), defaults) {}

NAdam::NAdam(std::vector<ParamGroup> groups, const NAdamOptions& defaults) : Optimizer("NAdam", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void NAdam::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<NAdamOptions>(options, "NAdam");
  detail::check_adam_family_options("NAdam", o);
  check_option(o.momentum_decay >= 0, "momentum_decay value", o.momentum_decay);
}

Tensor NAdam::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto o = from_dict<NAdamOptions>(group.options, "NAdam");
    const auto [beta1, beta2] = o.betas;
    for (auto& param : group.params) {
      if (!param.grad().defined()) continue;
      ParamState& st = state(param);
      auto [step_t, exp_avg, exp_avg_sq] = detail::adam_family_state(
          st, param, "exp_avg_sq", "NAdam", [](ParamState& s) { s["mu_product"] = detail::step_tensor(1); });
      const double step = detail::increment_step(step_t);
      Tensor mu_product = detail::require_tensor(st, "mu_product", "NAdam");
      const double bias_correction2 = 1 - std::pow(beta2, step);
      Tensor grad = param.grad();
      if (o.weight_decay != 0) grad = grad.add(param, o.weight_decay);
      const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * o.momentum_decay));
      const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * o.momentum_decay));
      // mu_product is a float32 tensor in PyTorch; its products are rounded the same way here.
      mu_product.mul_(mu);
      Tensor mu_product_next = mu_product * mu * mu_next;
      exp_avg.mul_(beta1).add_(grad, 1 - beta1);
      exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      Tensor denom = exp_avg_sq.div(bias_correction2).sqrt().add_(o.eps);
      param.addcdiv_(grad, denom, -o.lr * (1. - mu) / (1. - mu_product.item<double>()));
      param.addcdiv_(exp_avg, denom, -o.lr * mu_next / (1. - mu_product_next.item<double>()));
    }
  }
  return loss;
}

}  // namespace ember::optim
