#pragma once
// Adamax, Adam with the infinity norm (torch.optim.Adamax). State per parameter: "step"
// (float32 0-d tensor), "exp_avg", "exp_inf".
#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamaxOptions {
  double lr = 2e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool maximize = false;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("betas", s.betas);
    f("eps", s.eps);
    f("weight_decay", s.weight_decay);
    f("maximize", s.maximize);
  }
};

class Adamax : public Optimizer {
 public:
  using Options = AdamaxOptions;
  explicit Adamax(std::vector<Tensor> params, const AdamaxOptions& defaults = {});
  explicit Adamax(std::vector<ParamGroup> groups, const AdamaxOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;

 protected:
  void validate(const Dict& options) const override;
};

}  // namespace ember::optim
