// Adadelta (torch/optim/adadelta.py, _single_tensor_adadelta).
#include "ember/optim/adadelta.h"

#include "common.h"

namespace ember::optim {

Adadelta::Adadelta(std::vector<Tensor> params, const AdadeltaOptions& defaults)
    : Adadelta(detail::single_group(std::move(params), "Adadelta"), defaults) {}

Adadelta::Adadelta(std::vector<ParamGroup> groups, const AdadeltaOptions& defaults)
    : Optimizer("Adadelta", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void Adadelta::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<AdadeltaOptions>(options, "Adadelta");
  check_option(o.rho >= 0 && o.rho <= 1, "rho value", o.rho);
  check_option(o.eps >= 0, "epsilon value", o.eps);
  check_option(o.weight_decay >= 0, "weight_decay value", o.weight_decay);
}

Tensor Adadelta::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto o = from_dict<AdadeltaOptions>(group.options, "Adadelta");
    for (auto& param : group.params) {
      if (!param.grad().defined()) continue;
      ParamState& st = state(param);
      if (st.empty()) {
        st["step"] = int64_t{0};
        st["square_avg"] = zeros_like(param);
        st["acc_delta"] = zeros_like(param);
      }
      st.at("step") = st.at("step").to_int() + 1;
      Tensor grad = detail::signed_grad(param, o.maximize);
      if (o.weight_decay != 0) grad = grad.add(param, o.weight_decay);
      Tensor square_avg = detail::as_real(detail::require_tensor(st, "square_avg", "Adadelta"));
      Tensor acc_delta = detail::as_real(detail::require_tensor(st, "acc_delta", "Adadelta"));
      grad = detail::as_real(grad);
      square_avg.mul_(o.rho).addcmul_(grad, grad, 1 - o.rho);
      Tensor std = square_avg.add(o.eps).sqrt_();
      Tensor delta = acc_delta.add(o.eps).sqrt_().div_(std).mul_(grad);
      acc_delta.mul_(o.rho).addcmul_(delta, delta, 1 - o.rho);
      detail::as_real(param).add_(delta, -o.lr);
    }
  }
  return loss;
}

}  // namespace ember::optim
