#pragma once
// Convolutions: conv1d/2d/3d and conv_transpose1d/2d/3d, as torch.nn.functional.
// float32 runs on oneDNN (NCHW or channels-last; the output keeps the input's
// memory format), float64 on an im2col + matmul path (for gradcheck). Inputs
// may be batched [N, C, ...] or unbatched [C, ...]. Differentiable in input,
// weight and bias, twice (double backward composes convolutions).
//
//   using namespace ember::nn::functional;
//   Tensor y = conv2d(x, w, {.bias = b, .stride = 2, .padding = 1});
//   Tensor z = conv1d(x, w, {.padding = "same", .dilation = 2, .padding_mode = "reflect"});
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/functional/expanding.h"

namespace ember::nn::functional {

// Padding of a convolution: numbers (one, or one per spatial dim) or "valid"
// (no padding) / "same" (output size = input size; stride 1 only; an odd
// total puts the extra element on the right, as PyTorch).
struct ConvPadding {
  ConvPadding(int64_t v) : values{v} {}  // NOLINT(google-explicit-constructor)
  ConvPadding(int v) : values{v} {}      // NOLINT(google-explicit-constructor)
  ConvPadding(std::initializer_list<int64_t> v) : values(v) {}
  ConvPadding(std::vector<int64_t> v) : values(std::move(v)) {}  // NOLINT
  ConvPadding(const char* m) : mode(m) {}                        // NOLINT
  ConvPadding(std::string m) : mode(std::move(m)) {}             // NOLINT
  std::vector<int64_t> values;
  std::string mode;  // "" (numbers), "same" or "valid"
};

// Conv{1,2,3}dFuncOptions. padding_mode (an Ember extension of the functional
// form; PyTorch's Conv modules have it): "zeros", "reflect", "replicate" or
// "circular" — the non-zero modes pad the input with ember::pad first.
struct ConvFuncOptions {
  Tensor bias = {};
  ExpandingInts stride = 1;
  ConvPadding padding = 0;
  ExpandingInts dilation = 1;
  int64_t groups = 1;
  std::string padding_mode = "zeros";
};
using Conv1dFuncOptions = ConvFuncOptions;
using Conv2dFuncOptions = ConvFuncOptions;
using Conv3dFuncOptions = ConvFuncOptions;

// ConvTranspose{1,2,3}dFuncOptions (weight [C_in, C_out / groups, k...]).
struct ConvTransposeFuncOptions {
  Tensor bias = {};
  ExpandingInts stride = 1;
  ExpandingInts padding = 0;
  ExpandingInts output_padding = 0;
  int64_t groups = 1;
  ExpandingInts dilation = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions;

Tensor conv1d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options = {});
Tensor conv2d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options = {});
Tensor conv3d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options = {});

// The elementwise activations conv2d_activation can apply in the
// convolution's own pass over its output (oneDNN post-ops).
enum class ConvActivation { None, ReLU, ReLU6, Hardswish, SiLU };

// activation(conv2d(input, weight, options)), an inference fusion (PyTorch
// has it only behind torch.jit.freeze / fx fusion passes): on the float32
// oneDNN path with nothing to record for autograd, the activation runs as a
// post-op of the convolution, saving a pass over the output. Otherwise
// (float64, or inputs that need a gradient) it is conv2d followed by relu /
// relu6 / hardswish / silu, recorded as those ops. Results agree with the
// unfused ops to rounding (oneDNN's SiLU uses its own exp).
Tensor conv2d_activation(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options,
                         ConvActivation activation);

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTransposeFuncOptions& options = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTransposeFuncOptions& options = {});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTransposeFuncOptions& options = {});

}  // namespace ember::nn::functional
