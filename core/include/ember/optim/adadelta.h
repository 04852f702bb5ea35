#pragma once
// Adadelta (torch.optim.Adadelta). State per parameter: "step" (int), "square_avg", "acc_delta".
#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
  bool maximize = false;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("rho", s.rho);
    f("eps", s.eps);
    f("weight_decay", s.weight_decay);
    f("maximize", s.maximize);
  }
};

class Adadelta : public Optimizer {
 public:
  using Options = AdadeltaOptions;
  explicit Adadelta(std::vector<Tensor> params, const AdadeltaOptions& defaults = {});
  explicit Adadelta(std::vector<ParamGroup> groups, const AdadeltaOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;

 protected:
  void validate(const Dict& options) const override;
};

}  // namespace ember::optim
