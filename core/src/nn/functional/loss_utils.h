#pragma once
// Helpers shared by the nn::functional losses: reductions and argument checks
// whose errors name the loss.
#include <string>

#include "ember/nn/functional/loss.h"

namespace ember::nn::functional::detail {

// none: loss; mean: loss.mean(); sum: loss.sum(). BatchMean is kl_div's only.
Tensor apply_reduction(const Tensor& loss, Reduction reduction, const char* op);
// The reduction's PyTorch name ("none", "mean", "sum", "batchmean").
const char* reduction_name(Reduction reduction);
void check_defined(const Tensor& t, const char* what, const char* op);
// input and target must have the same shape (PyTorch's losses that require it).
void check_same_size(const Tensor& input, const Tensor& target, const char* op);
// target must hold class indices (an integral dtype).
void check_class_target(const Tensor& target, const char* op);
// Every element of target (int64 values) is in [lo, hi) or equals `except`.
void check_target_range(const Tensor& target, int64_t lo, int64_t hi, const char* op,
                        std::optional<int64_t> except = std::nullopt);
// The weight tensor of a loss over C classes: undefined or C elements.
void check_class_weight(const Tensor& weight, int64_t classes, const char* op);
// weight reshaped to broadcast along dim 1 of a `dims`-d tensor.
Tensor class_weight_view(const Tensor& weight, int64_t dims, int64_t class_dim = 1);

}  // namespace ember::nn::functional::detail
