#pragma once
// nn::functional dropout family, as torch.nn.functional's: dropout (inverted
// scaling), channel-wise dropout1d/2d/3d, alpha_dropout and
// feature_alpha_dropout (keeping SELU's mean and variance). Each takes the
// drop probability p, `training` (false: the input is returned unchanged),
// `inplace` and an optional Generator (nullptr: the default generator).
// Gradients flow through the recorded multiplication by the mask:
// d out / d input = mask / (1 - p).
#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::nn::functional {

// Zeroes each element with probability p and scales the rest by 1/(1-p).
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false,
               Generator* generator = nullptr);
// Zeroes whole channels: input [N, C, L] or unbatched [C, L].
Tensor dropout1d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false,
                 Generator* generator = nullptr);
// Zeroes whole channels of [N, C, H, W] (as PyTorch, a 3-d input is read as [N, C, L]).
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false,
                 Generator* generator = nullptr);
// Zeroes whole channels of [N, C, D, H, W] or unbatched [C, D, H, W].
Tensor dropout3d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false,
                 Generator* generator = nullptr);
// Dropped elements are set to SELU's negative saturation value, then an
// affine map restores zero mean and unit variance.
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false,
                     Generator* generator = nullptr);
// alpha_dropout by channels (dims 0 and 1 of an input of at least 2 dims).
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false,
                             Generator* generator = nullptr);

}  // namespace ember::nn::functional
