// NAdam (torch/optim/nadam.py of PyTorch 1.13, _single_tensor_nadam).
#include "ember/optim/nadam.h"

#include "common.h"

namespace ember::optim {

NAdam::NAdam(std::vector<Tensor> params, const NAdamOptions& defaults)
    : NAdam(detail::single_group(std::move(params), "NAdam"), defaults) {}

NAdam::NAdam(std::vector<ParamGroup> groups, const NAdamOptions& defaults) : Optimizer("NAdam", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void NAdam::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<NAdamOptions>(options, "NAdam");
  check_option(o.eps >= 0, "epsilon value", o.eps);
  check_option(o.betas.first >= 0 && o.betas.first < 1, "beta parameter at index 0", o.betas.first);
  check_option(o.betas.second >= 0 && o.betas.second < 1, "beta parameter at index 1", o.betas.second);
  check_option(o.weight_decay >= 0, "weight_decay value", o.weight_decay);
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
      if (st.empty()) {
        st["step"] = detail::step_tensor();
        st["mu_product"] = detail::step_tensor(1);
        st["exp_avg"] = zeros_like(param);
        st["exp_avg_sq"] = zeros_like(param);
      }
      const double step = detail::increment_step(st.at("step").to_tensor());
      Tensor& mu_product = st.at("mu_product").to_tensor();
      Tensor exp_avg = detail::require_tensor(st, "exp_avg", "NAdam");
      Tensor exp_avg_sq = detail::require_tensor(st, "exp_avg_sq", "NAdam");
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
