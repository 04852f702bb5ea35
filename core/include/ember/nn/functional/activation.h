#pragma once
// ember::nn::functional activations (torch.nn.functional): elementwise
// activations, GLU and the softmax family. Every op records its backward;
// `name_` variants work in place (as PyTorch's inplace=True).
#include <optional>
#include <string>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::nn::functional {

Tensor relu(const Tensor& input);
Tensor& relu_(Tensor& input);
// min(max(x, 0), 6)
Tensor relu6(const Tensor& input);
Tensor& relu6_(Tensor& input);
Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01);
Tensor& leaky_relu_(Tensor& input, double negative_slope = 0.01);
// weight: one value, or one per channel (dim 1 of input; dim 0 of a 1-d input).
Tensor prelu(const Tensor& input, const Tensor& weight);
// Randomized leaky ReLU: in training, each negative element is scaled by a
// slope drawn from U(lower, upper) (generator nullptr: the default one); in
// evaluation, by (lower + upper) / 2.
Tensor rrelu(const Tensor& input, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
             Generator* generator = nullptr);
Tensor& rrelu_(Tensor& input, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
               Generator* generator = nullptr);
Tensor elu(const Tensor& input, double alpha = 1.0);
Tensor& elu_(Tensor& input, double alpha = 1.0);
Tensor celu(const Tensor& input, double alpha = 1.0);
Tensor& celu_(Tensor& input, double alpha = 1.0);
Tensor selu(const Tensor& input);
Tensor& selu_(Tensor& input);
// approximate: "none" (erf form) or "tanh".
Tensor gelu(const Tensor& input, const std::string& approximate = "none");
Tensor silu(const Tensor& input);
Tensor& silu_(Tensor& input);
Tensor mish(const Tensor& input);
Tensor& mish_(Tensor& input);
Tensor hardswish(const Tensor& input);
Tensor& hardswish_(Tensor& input);
Tensor hardsigmoid(const Tensor& input);
Tensor& hardsigmoid_(Tensor& input);
Tensor hardtanh(const Tensor& input, double min_val = -1.0, double max_val = 1.0);
Tensor& hardtanh_(Tensor& input, double min_val = -1.0, double max_val = 1.0);
Tensor softplus(const Tensor& input, double beta = 1.0, double threshold = 20.0);
Tensor softsign(const Tensor& input);
Tensor softshrink(const Tensor& input, double lambd = 0.5);
Tensor hardshrink(const Tensor& input, double lambd = 0.5);
Tensor tanhshrink(const Tensor& input);
// x where x > threshold, else value.
Tensor threshold(const Tensor& input, double threshold, double value);
Tensor& threshold_(Tensor& input, double threshold, double value);
Tensor sigmoid(const Tensor& input);
Tensor tanh(const Tensor& input);
Tensor logsigmoid(const Tensor& input);
// a * sigmoid(b) with a, b the two halves of input along dim.
Tensor glu(const Tensor& input, int64_t dim = -1);

// The softmax family along dim; dtype: cast the input to it first (the
// result's dtype). Fused kernels with their own backward.
Tensor softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype = std::nullopt);
// softmax(-input)
Tensor softmin(const Tensor& input, int64_t dim, std::optional<DType> dtype = std::nullopt);
// The gradient of softmax (log = false) or log_softmax (log = true) with
// respect to its input, from the gradient of its output and the output.
// Differentiable (double backward).
Tensor softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, bool log);

}  // namespace ember::nn::functional
