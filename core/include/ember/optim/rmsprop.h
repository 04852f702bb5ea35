#pragma once
// RMSprop (torch.optim.RMSprop), optionally centered and with momentum. State per parameter:
// "step" (int), "square_avg", and "momentum_buffer" (momentum > 0) / "grad_avg" (centered).
#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  bool maximize = false;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("alpha", s.alpha);
    f("eps", s.eps);
    f("weight_decay", s.weight_decay);
    f("momentum", s.momentum);
    f("centered", s.centered);
    f("maximize", s.maximize);
  }
};

class RMSprop : public Optimizer {
 public:
  using Options = RMSpropOptions;
  explicit RMSprop(std::vector<Tensor> params, const RMSpropOptions& defaults = {});
  explicit RMSprop(std::vector<ParamGroup> groups, const RMSpropOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;

 protected:
  void validate(const Dict& options) const override;
};

}  // namespace ember::optim
