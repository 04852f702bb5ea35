// Adagrad (torch/optim/adagrad.py, _single_tensor_adagrad; dense gradients).
#include "ember/optim/adagrad.h"

#include "common.h"

namespace ember::optim {

namespace {
void init_state(ParamState& st, const Tensor& p, double initial_accumulator_value) {
  if (!st.count("step")) st["step"] = detail::step_tensor();
  if (!st.count("sum"))
    st["sum"] = p.is_complex() ? full_like(p, Scalar(std::complex<double>(initial_accumulator_value,
                                                                           initial_accumulator_value)))
                               : full_like(p, initial_accumulator_value);
}
}  // namespace

Adagrad::Adagrad(std::vector<Tensor> params, const AdagradOptions& defaults)
    : Adagrad(detail::single_group(std::move(params), "Adagrad"), defaults) {}

Adagrad::Adagrad(std::vector<ParamGroup> groups, const AdagradOptions& defaults)
    : Optimizer("Adagrad", to_dict(defaults)) {
  init_groups(std::move(groups));
  // PyTorch creates the state of every parameter here, from the defaults.
  for (auto& group : param_groups())
    for (auto& p : group.params) init_state(state(p), p, defaults.initial_accumulator_value);
}

void Adagrad::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<AdagradOptions>(options, "Adagrad");
  check_option(o.lr_decay >= 0, "lr_decay value", o.lr_decay);
  check_option(o.weight_decay >= 0, "weight_decay value", o.weight_decay);
  check_option(o.initial_accumulator_value >= 0, "initial_accumulator_value value", o.initial_accumulator_value);
  check_option(o.eps >= 0, "epsilon value", o.eps);
}

Tensor Adagrad::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto o = from_dict<AdagradOptions>(group.options, "Adagrad");
    for (auto& param : group.params) {
      if (!param.grad().defined()) continue;
      ParamState& st = state(param);
      init_state(st, param, o.initial_accumulator_value);  // parameters added after construction
      const double step = detail::increment_step(st.at("step").to_tensor());
      Tensor grad = detail::signed_grad(param, o.maximize);
      if (o.weight_decay != 0) grad = grad.add(param, o.weight_decay);
      const double clr = o.lr / (1 + (step - 1) * o.lr_decay);
      Tensor state_sum = detail::as_real(st.at("sum").to_tensor());
      grad = detail::as_real(grad);
      Tensor p = detail::as_real(param);
      state_sum.addcmul_(grad, grad, 1);
      Tensor std = state_sum.sqrt().add_(o.eps);
      p.addcdiv_(grad, std, -clr);
    }
  }
  return loss;
}

}  // namespace ember::optim
