// SGD (torch/optim/sgd.py, _single_tensor_sgd).
#include "ember/optim/sgd.h"

#include "common.h"

namespace ember::optim {

SGD::SGD(std::vector<Tensor> params, const SGDOptions& defaults)
    : SGD(detail::single_group(std::move(params), "SGD"), defaults) {}

SGD::SGD(std::vector<ParamGroup> groups, const SGDOptions& defaults) : Optimizer("SGD", to_dict(defaults)) {
  init_groups(std::move(groups));
}

void SGD::validate(const Dict& options) const {
  Optimizer::validate(options);
  auto o = from_dict<SGDOptions>(options, "SGD");
  check_option(o.momentum >= 0, "momentum value", o.momentum);
  check_option(o.weight_decay >= 0, "weight_decay value", o.weight_decay);
  EMBER_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0),
              "SGD: Nesterov momentum requires a momentum and zero dampening (momentum ", o.momentum,
              ", dampening ", o.dampening, ")");
}

Tensor SGD::step(const Closure& closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto o = from_dict<SGDOptions>(group.options, "SGD");
    for (auto& p : group.params) {
      if (!p.grad().defined()) continue;
      Tensor d_p = detail::signed_grad(p, o.maximize);
      if (o.weight_decay != 0) d_p = d_p.add(p, o.weight_decay);
      ParamState& st = state(p);
      if (o.momentum != 0) {
        auto it = st.find("momentum_buffer");
        Tensor buf;
        if (it == st.end() || it->second.is_none()) {
          buf = d_p.clone().detach();
          st["momentum_buffer"] = buf;
        } else {
          buf = it->second.to_tensor();
          buf.mul_(o.momentum).add_(d_p, 1 - o.dampening);
        }
        d_p = o.nesterov ? d_p.add(buf, o.momentum) : buf;
      } else {
        st.insert_or_assign("momentum_buffer", Value());  // None, as PyTorch stores it
      }
      p.add_(d_p, -o.lr);
    }
  }
  return loss;
}

}  // namespace ember::optim
