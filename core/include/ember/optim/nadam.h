#pragma once
// NAdam, Adam with Nesterov momentum (torch.optim.NAdam of PyTorch 1.13: no maximize). State
// per parameter: "step" and "mu_product" (float32 0-d tensors, as PyTorch), "exp_avg", "exp_avg_sq".
#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct NAdamOptions {
  double lr = 2e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum_decay = 4e-3;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("betas", s.betas);
    f("eps", s.eps);
    f("weight_decay", s.weight_decay);
    f("momentum_decay", s.momentum_decay);
  }
};

class NAdam : public Optimizer {
 public:
  using Options = NAdamOptions;
  explicit NAdam(std::vector<Tensor> params, const NAdamOptions& defaults = {});
  explicit NAdam(std::vector<ParamGroup> groups, const NAdamOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;

 protected:
  void validate(const Dict& options) const override;
};

}  // namespace ember::optim
