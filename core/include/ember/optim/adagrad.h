#pragma once
// Adagrad (torch.optim.Adagrad). State per parameter: "step" (float32 0-d tensor) and "sum"
// (initialized to initial_accumulator_value when the optimizer is built).
#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;
  double weight_decay = 0;
  double initial_accumulator_value = 0;
  double eps = 1e-10;
  bool maximize = false;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("lr_decay", s.lr_decay);
    f("weight_decay", s.weight_decay);
    f("initial_accumulator_value", s.initial_accumulator_value);
    f("eps", s.eps);
    f("maximize", s.maximize);
  }
};

class Adagrad : public Optimizer {
 public:
  using Options = AdagradOptions;
  explicit Adagrad(std::vector<Tensor> params, const AdagradOptions& defaults = {});
  explicit Adagrad(std::vector<ParamGroup> groups, const AdagradOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;

 protected:
  void validate(const Dict& options) const override;
};

}  // namespace ember::optim
