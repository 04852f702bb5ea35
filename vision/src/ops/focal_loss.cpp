// sigmoid_focal_loss as torchvision's composition of tensor ops (so autograd
// gives torchvision's gradients).
#include "ember/vision/ops/focal_loss.h"

#include <ember/core/error.h>
#include <ember/nn/functional/loss.h>

namespace ember::vision::ops {

Tensor sigmoid_focal_loss(const Tensor& inputs, const Tensor& targets, double alpha, double gamma,
                          const std::string& reduction) {
  EMBER_CHECK(inputs.defined() && targets.defined(), "sigmoid_focal_loss: inputs and targets must be defined");
  EMBER_CHECK(inputs.sizes() == targets.sizes(), "sigmoid_focal_loss: inputs ", inputs.sizes(), " and targets ",
              targets.sizes(), " should have the same shape");
  EMBER_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum",
              "sigmoid_focal_loss: Invalid Value for arg 'reduction': '", reduction,
              "' \n Supported reduction modes: 'none', 'mean', 'sum'");
  const Tensor p = inputs.sigmoid();
  const Tensor ce_loss =
      nn::functional::binary_cross_entropy_with_logits(inputs, targets, {.reduction = nn::functional::Reduction::None});
  const Tensor p_t = p * targets + (1 - p) * (1 - targets);
  Tensor loss = ce_loss * (1 - p_t).pow(gamma);
  if (alpha >= 0) {
    const Tensor alpha_t = alpha * targets + (1 - alpha) * (1 - targets);
    loss = alpha_t * loss;
  }
  if (reduction == "mean") return loss.mean();
  if (reduction == "sum") return loss.sum();
  return loss;
}

}  // namespace ember::vision::ops
