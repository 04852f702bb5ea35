// RMSprop (torch/optim/rmsprop.py, _single_tensor_rmsprop).
#include "ember/optim/rmsprop.h"

#include "common.h"

namespace ember::optim {

RMSprop::RMSprop(std::vector<Tensor> params, const RMSpropOptions& defaults)
    : RMSprop(detail::single_group(std::move(params), "RMSprop"), defaults) {}

RMSprop::RMSprop(std::vector<ParamGroup> groups, const RMSpropOptions& defaults)
    : Optimizer("RMSprop", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void RMSprop::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<RMSpropOptions>(options, "RMSprop");
  check_option(o.eps >= 0, "epsilon value", o.eps);
  check_option(o.momentum >= 0, "momentum value", o.momentum);
  check_option(o.weight_decay >= 0, "weight_decay value", o.weight_decay);
  check_option(o.alpha >= 0, "alpha value", o.alpha);
}

Tensor RMSprop::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto o = from_dict<RMSpropOptions>(group.options, "RMSprop");
    for (auto& param : group.params) {
      if (!param.grad().defined()) continue;
      ParamState& st = state(param);
      if (st.empty()) {
        st["step"] = int64_t{0};
        st["square_avg"] = zeros_like(param);
        if (o.momentum > 0) st["momentum_buffer"] = zeros_like(param);
        if (o.centered) st["grad_avg"] = zeros_like(param);
      }
      st.at("step") = st.at("step").to_int() + 1;
      Tensor grad = detail::signed_grad(param, o.maximize);
      if (o.weight_decay != 0) grad = grad.add(param, o.weight_decay);
      Tensor p = detail::as_real(param);
      grad = detail::as_real(grad);
      Tensor square_avg = detail::as_real(detail::require_tensor(st, "square_avg", "RMSprop"));
      square_avg.mul_(o.alpha).addcmul_(grad, grad, 1 - o.alpha);
      Tensor avg;
      if (o.centered) {
        Tensor grad_avg = detail::as_real(detail::state_tensor(st, "grad_avg", [&] { return zeros_like(param); }));
        grad_avg.mul_(o.alpha).add_(grad, 1 - o.alpha);
        avg = square_avg.addcmul(grad_avg, grad_avg, -1).sqrt_();
      } else {
        avg = square_avg.sqrt();
      }
      avg.add_(o.eps);
      if (o.momentum > 0) {
        Tensor buf = detail::as_real(detail::state_tensor(st, "momentum_buffer", [&] { return zeros_like(param); }));
        buf.mul_(o.momentum).addcdiv_(grad, avg);
        p.add_(buf, -o.lr);
      } else {
        p.addcdiv_(grad, avg, -o.lr);
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
