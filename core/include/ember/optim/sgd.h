#pragma once
// Stochastic gradient descent with momentum, dampening, Nesterov momentum, weight decay and
// maximize (torch.optim.SGD). State per parameter: "momentum_buffer" (None without momentum).
#include "ember/optim/optimizer.h"

namespace ember::optim {

struct SGDOptions {
  double lr = kRequired;  // no default, as in PyTorch
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("momentum", s.momentum);
    f("dampening", s.dampening);
    f("weight_decay", s.weight_decay);
    f("nesterov", s.nesterov);
    f("maximize", s.maximize);
  }
};

class SGD : public Optimizer {
 public:
  using Options = SGDOptions;
  explicit SGD(std::vector<Tensor> params, const SGDOptions& defaults = {});
  explicit SGD(std::vector<ParamGroup> groups, const SGDOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;

 protected:
  void validate(const Dict& options) const override;
};

}  // namespace ember::optim
