// nn::functional regression and distribution losses: l1, mse, smooth_l1,
// huber, kl_div, poisson_nll, gaussian_nll. Elementwise compositions of
// recorded core ops (their gradients follow), as PyTorch's formulas.
#include <cmath>
#include <numbers>

#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "nn/functional/loss_utils.h"

namespace ember::nn::functional {

using detail::apply_reduction;
using detail::check_defined;

namespace {
void check_pair(const Tensor& input, const Tensor& target, const char* op) {
  check_defined(input, "input", op);
  check_defined(target, "target", op);
}

// |d| where the quadratic branch of smooth_l1/huber applies (and where d is
// NaN), 0 elsewhere: the branch where() does not take still gets a zero
// gradient, which d.square()'s backward would turn into 0 * inf = NaN where
// |d| is infinite (PyTorch's gradient is +-1 there; at NaN it is NaN).
Tensor quadratic_part(const Tensor& d, const Tensor& small) {
  return where(logical_or(small, d.isnan()), d, Scalar(0));
}
}  // namespace

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  check_pair(input, target, "l1_loss");
  return apply_reduction((input - target).abs(), reduction, "l1_loss");
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  check_pair(input, target, "mse_loss");
  return apply_reduction((input - target).square(), reduction, "mse_loss");
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossOptions& o) {
  check_pair(input, target, "smooth_l1_loss");
  EMBER_CHECK(o.beta >= 0, "smooth_l1_loss: smooth_l1_loss does not support negative values for beta, got ", o.beta);
  if (o.beta == 0) return l1_loss(input, target, o.reduction);
  const Tensor d = (input - target).abs();
  const Tensor small = d < o.beta;
  return apply_reduction(where(small, quadratic_part(d, small).square() * (0.5 / o.beta), d - 0.5 * o.beta),
                         o.reduction, "smooth_l1_loss");
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossOptions& o) {
  check_pair(input, target, "huber_loss");
  EMBER_CHECK(o.delta > 0, "huber_loss: huber_loss does not support non-positive values for delta, got ", o.delta);
  const Tensor d = (input - target).abs();
  const Tensor small = d < o.delta;
  return apply_reduction(where(small, quadratic_part(d, small).square() * 0.5, (d - 0.5 * o.delta) * o.delta),
                         o.reduction, "huber_loss");
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivOptions& o) {
  check_pair(input, target, "kl_div");
  const Tensor loss = o.log_target ? target.exp() * (target - input) : xlogy(target, target) - target * input;
  if (o.reduction == Reduction::BatchMean) {
    if (input.dim() == 0) return loss.sum();
    return loss.sum() / input.size(0);
  }
  return apply_reduction(loss, o.reduction, "kl_div");
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossOptions& o) {
  check_pair(input, target, "poisson_nll_loss");
  Tensor loss = o.log_input ? input.exp() - target * input : input - target * (input + o.eps).log();
  if (o.full) {
    // Stirling's approximation of log(target!) for target > 1 (a constant for the input).
    const Tensor t = target.detach();
    const Tensor stirling = t * t.log() - t + (t * (2 * std::numbers::pi)).log() * 0.5;
    loss = loss + stirling.masked_fill(t <= 1, Scalar(0));
  }
  return apply_reduction(loss, o.reduction, "poisson_nll_loss");
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var_in,
                         const GaussianNLLLossOptions& o) {
  const char* op = "gaussian_nll_loss";
  check_pair(input, target, op);
  check_defined(var_in, "var", op);
  Tensor var = var_in;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef in = input.sizes(), vs = var.sizes();
    const bool dropped = input.dim() >= 1 && in.slice(0, in.size() - 1) == vs;
    const bool last_one = input.dim() >= 1 && var.dim() == input.dim() && var.size(-1) == 1 &&
                          in.slice(0, in.size() - 1) == vs.slice(0, vs.size() - 1);
    if (dropped) var = var.unsqueeze(-1);  // one variance per sample (homoscedastic)
    else
      EMBER_CHECK(last_one, op, ": var is of incorrect size: got ", vs, " for input of shape ", in,
                  " (expected the input's shape, or it with the last dim 1 or dropped)");
  }
  EMBER_CHECK(o.reduction != Reduction::BatchMean, op, ": ", detail::reduction_name(o.reduction),
              " is not a valid value for reduction");
  EMBER_CHECK(!(var.detach() < 0).any().item<bool>(), op, ": var has negative entry/entries");
  // var clamped at eps in value only: the gradient passes through the clamp, as
  // PyTorch's clamp_ under no_grad.
  const Tensor vd = var.detach();
  var = var + (vd.clamp_min(o.eps) - vd);
  Tensor loss = (var.log() + (input - target).square() / var) * 0.5;
  if (o.full) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return apply_reduction(loss, o.reduction, op);
}

}  // namespace ember::nn::functional
