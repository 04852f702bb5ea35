#pragma once
// Adam (torch.optim.Adam: L2 weight decay added to the gradient) and AdamW
// (torch.optim.AdamW: decoupled weight decay), both with amsgrad and maximize.
// State per parameter: "step" (float32 0-d tensor), "exp_avg", "exp_avg_sq" and, with
// amsgrad, "max_exp_avg_sq".
#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("betas", s.betas);
    f("eps", s.eps);
    f("weight_decay", s.weight_decay);
    f("amsgrad", s.amsgrad);
    f("maximize", s.maximize);
  }
};

// AdamW's options are Adam's with weight_decay 1e-2 by default.
struct AdamWOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    AdamOptions::fields(s, f);
  }
};

class Adam : public Optimizer {
 public:
  using Options = AdamOptions;
  explicit Adam(std::vector<Tensor> params, const AdamOptions& defaults = {});
  explicit Adam(std::vector<ParamGroup> groups, const AdamOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;

 protected:
  Adam(const char* name, Dict defaults) : Optimizer(name, std::move(defaults)) {}
  void validate(const Dict& options) const override;
  void step_group(ParamGroup& group, bool decoupled_weight_decay);
};

class AdamW : public Adam {
 public:
  using Options = AdamWOptions;
  explicit AdamW(std::vector<Tensor> params, const AdamWOptions& defaults = {});
  explicit AdamW(std::vector<ParamGroup> groups, const AdamWOptions& defaults = {});
  Tensor step(const Closure& closure = nullptr) override;
};

}  // namespace ember::optim
