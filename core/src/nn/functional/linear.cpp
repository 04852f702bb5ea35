#include "ember/nn/functional/linear.h"

#include <vector>

#include "ember/ops/linalg.h"

namespace ember::nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  EMBER_CHECK(input.defined() && weight.defined(), "linear: input and weight must be defined");
  EMBER_CHECK(weight.dim() == 2, "linear: weight must be 2-d [out_features, in_features], got ", weight.sizes());
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == weight.size(1), "linear: input of shape ", input.sizes(),
              " does not match weight of shape ", weight.sizes(), " (last dim must be ", weight.size(1), ")");
  if (bias.defined())
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), "linear: bias of shape ", bias.sizes(),
                " does not match ", weight.size(0), " output features");
  // 2-d inputs: one addmm (the weight's transpose is a view: BLAS reads it transposed).
  if (input.dim() == 2 && bias.defined()) return addmm(bias, input, weight.t());
  // More dims with a bias: fold them into rows (a view when the layout allows)
  // so that the bias is added by the same addmm, as PyTorch's.
  if (input.dim() > 2 && bias.defined() && input.numel() > 0) {
    std::vector<int64_t> out_sizes(input.sizes().begin(), input.sizes().end());
    out_sizes.back() = weight.size(0);
    return addmm(bias, input.reshape({-1, input.size(-1)}), weight.t()).view(out_sizes);
  }
  Tensor out = input.matmul(weight.t());
  return bias.defined() ? out + bias : out;
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  EMBER_CHECK(weight.dim() == 3, "bilinear: weight must be 3-d [out, in1, in2], got ", weight.sizes());
  EMBER_CHECK(input1.dim() >= 1 && input1.size(-1) == weight.size(1), "bilinear: input1 of shape ", input1.sizes(),
              " does not match weight ", weight.sizes());
  EMBER_CHECK(input2.dim() >= 1 && input2.size(-1) == weight.size(2), "bilinear: input2 of shape ", input2.sizes(),
              " does not match weight ", weight.sizes());
  EMBER_CHECK(input1.sizes().slice(0, input1.dim() - 1) == input2.sizes().slice(0, input2.dim() - 1),
              "bilinear: input batch shapes differ: ", input1.sizes(), " vs ", input2.sizes());
  if (bias.defined())
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), "bilinear: bias of shape ", bias.sizes(),
                " does not match ", weight.size(0), " output features");
  Tensor out = einsum("...i,oij,...j->...o", {input1, weight, input2});
  return bias.defined() ? out + bias : out;
}

}  // namespace ember::nn::functional
