#pragma once
// RAdam, rectified Adam (torch.optim.RAdam of PyTorch 1.13). State per parameter: "step"
// (float32 0-d tensor), "exp_avg", "exp_avg_sq".
#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct RAdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("betas", s.betas);
    f("eps", s.eps);
    f("weight_decay", s.weight_decay);
  }
};

class RAdam : public Optimizer {
 public:
  using Options = RAdamOptions;
  explicit RAdam(std::vector<Tensor> params, const RAdamOptions& defaults = {});
  explicit RAdam(std::vector<ParamGroup> groups, const RAdamOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;

 protected:
  void validate(const Dict& options) const override;
};

}  // namespace ember::optim
