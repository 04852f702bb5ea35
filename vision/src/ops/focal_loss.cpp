// sigmoid_focal_loss: a fused forward and backward (Note [Fused focal loss] in
// kernels/cpu/focal_loss_kernels.cpp) where a kernel exists, else
// torchvision's composition of tensor ops (autograd gives its gradients).
#include "ember/vision/ops/focal_loss.h"

#include <ember/autograd/function.h>
#include <ember/core/error.h>
#include <ember/nn/functional/loss.h>
#include <ember/ops/factories.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(focal_loss_forward_slot, FocalLossForwardFn, "vision.sigmoid_focal_loss_forward");
EMBER_DEFINE_SLOT(focal_loss_backward_slot, FocalLossBackwardFn, "vision.sigmoid_focal_loss_backward");

}  // namespace ember::vision

namespace ember::vision::ops {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// torchvision.ops.sigmoid_focal_loss, op by op.
Tensor composite_focal_loss(const Tensor& inputs, const Tensor& targets, double alpha, double gamma,
                            int64_t reduction) {
  const Tensor p = inputs.sigmoid();
  const Tensor ce_loss =
      nn::functional::binary_cross_entropy_with_logits(inputs, targets, {.reduction = nn::functional::Reduction::None});
  const Tensor p_t = p * targets + (1 - p) * (1 - targets);
  Tensor loss = ce_loss * (1 - p_t).pow(gamma);
  if (alpha >= 0) {
    const Tensor alpha_t = alpha * targets + (1 - alpha) * (1 - targets);
    loss = alpha_t * loss;
  }
  if (reduction == kMean) return loss.mean();
  if (reduction == kSum) return loss.sum();
  return loss;
}

// One node for the whole loss: saves inputs and targets only.
struct SigmoidFocalLossFunction : autograd::Function<SigmoidFocalLossFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& inputs, const Tensor& targets, double alpha, double gamma,
                        int64_t reduction) {
    const Tensor x = inputs.contiguous(), t = targets.contiguous();
    Tensor loss = empty(x.sizes(), x.options());
    focal_loss_forward_slot(x.device())(loss, x, t, alpha, gamma);
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["gamma"] = gamma;
    ctx->saved_data["reduction"] = reduction;
    ctx->save_for_backward({x, t});
    if (reduction == kMean) return loss.mean();
    if (reduction == kSum) return loss.sum();
    return loss;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const int64_t reduction = ctx->saved_data["reduction"].toInt();
    const double scale = reduction == kMean ? 1.0 / static_cast<double>(x.numel()) : 1.0;
    Tensor grad_input = empty(x.sizes(), x.options());
    focal_loss_backward_slot(x.device())(grad_input, grads[0].to(x.dtype()).contiguous(), x, saved[1],
                                         ctx->saved_data["alpha"].toDouble(), ctx->saved_data["gamma"].toDouble(),
                                         scale);
    return {grad_input, Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

Tensor sigmoid_focal_loss(const Tensor& inputs, const Tensor& targets, double alpha, double gamma,
                          const std::string& reduction) {
  EMBER_CHECK(inputs.defined() && targets.defined(), "sigmoid_focal_loss: inputs and targets must be defined");
  EMBER_CHECK(inputs.sizes() == targets.sizes(), "sigmoid_focal_loss: inputs ", inputs.sizes(), " and targets ",
              targets.sizes(), " should have the same shape");
  EMBER_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum",
              "sigmoid_focal_loss: Invalid Value for arg 'reduction': '", reduction,
              "' \n Supported reduction modes: 'none', 'mean', 'sum'");
  const int64_t mode = reduction == "mean" ? kMean : reduction == "sum" ? kSum : kNone;
  // The fused node gives no gradient for targets: targets that need one, and
  // dtypes or devices without a kernel, take torchvision's composition.
  const bool fused = !targets.requires_grad() && targets.dtype() == inputs.dtype() &&
                     targets.device() == inputs.device() &&
                     focal_loss_forward_slot.supports(inputs.device(), inputs.dtype()) &&
                     focal_loss_backward_slot.supports(inputs.device(), inputs.dtype());
  if (!fused) return composite_focal_loss(inputs, targets, alpha, gamma, mode);
  return SigmoidFocalLossFunction::apply(inputs, targets, alpha, gamma, mode);
}

}  // namespace ember::vision::ops
