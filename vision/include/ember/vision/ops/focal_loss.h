#pragma once
// torchvision.ops.sigmoid_focal_loss (RetinaNet, https://arxiv.org/abs/1708.02002).
//
//   Tensor loss = vision::ops::sigmoid_focal_loss(logits, targets, 0.25, 2.0, "sum");
#include <string>

#include <ember/core/tensor.h>

namespace ember::vision::ops {

// inputs: logits of any shape; targets: of the same shape, 1 for the positive
// class and 0 otherwise (soft values allowed). Per element
// alpha_t * (1 - p_t)^gamma * BCE(inputs, targets) with p = sigmoid(inputs),
// p_t = p * t + (1 - p) * (1 - t), alpha_t = alpha * t + (1 - alpha) * (1 - t)
// (alpha < 0: no weighting). reduction "none", "mean" or "sum". Differentiable.
Tensor sigmoid_focal_loss(const Tensor& inputs, const Tensor& targets, double alpha = 0.25, double gamma = 2.0,
                          const std::string& reduction = "none");

}  // namespace ember::vision::ops
