#pragma once
// L-BFGS (torch.optim.LBFGS): one parameter group only; step() needs a closure that
// re-evaluates the model (zero_grad, forward, backward) and returns the loss. With
// line_search_fn = "strong_wolfe" each iteration runs PyTorch's strong-Wolfe line search.
// State (held by the first parameter, as PyTorch): "func_evals", "n_iter" (ints), "d",
// "prev_flat_grad" (tensors), "old_dirs", "old_stps" (tensor lists), "ro", "al" (lists of
// floats), "t", "H_diag", "prev_loss" (floats).
// Scalars of the algorithm (step length, curvature products) are computed in double.
#include <optional>
#include <string>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct LBFGSOptions {
  double lr = 1;
  int64_t max_iter = 20;
  std::optional<int64_t> max_eval = std::nullopt;  // default: max_iter * 5 / 4
  double tolerance_grad = 1e-7;
  double tolerance_change = 1e-9;
  int64_t history_size = 100;
  std::optional<std::string> line_search_fn = std::nullopt;  // none or "strong_wolfe"

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("lr", s.lr);
    f("max_iter", s.max_iter);
    f("max_eval", s.max_eval);
    f("tolerance_grad", s.tolerance_grad);
    f("tolerance_change", s.tolerance_change);
    f("history_size", s.history_size);
    f("line_search_fn", s.line_search_fn);
  }
};

class LBFGS : public Optimizer {
 public:
  using Options = LBFGSOptions;
  explicit LBFGS(std::vector<Tensor> params, const LBFGSOptions& defaults = {});
  explicit LBFGS(std::vector<ParamGroup> groups, const LBFGSOptions& defaults = {});
  // The closure is required. Returns the loss of the closure's first evaluation.
  Tensor step(const Closure& closure) override;

 protected:
  void validate(const Dict& options) const override;
};

}  // namespace ember::optim
