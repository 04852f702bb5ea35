#pragma once
// nn::functional::linear / bilinear.
#include "ember/core/tensor.h"

namespace ember::nn::functional {

// y = x W^T + b; x [..., in], weight [out, in], bias [out] or undefined.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
// y_o = x1^T W_o x2 + b_o; x1 [..., in1], x2 [..., in2], weight [out, in1, in2].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});

}  // namespace ember::nn::functional
