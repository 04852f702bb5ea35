#pragma once
// Kernel slots of nn::functional's activations (kernels in
// kernels/cpu/activation_kernels.cpp). The ops (activation.cpp, softmax.cpp)
// check arguments, allocate outputs and record the backward formulas.
#include <cstddef>
#include <iterator>

#include "ember/core/tensor.h"
#include "iter/tensor_iterator.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::nn::functional {

// Elementwise activations computed by one kernel; p0..p2 are the op's
// parameters (listed next to each).
enum class ActOp {
  LeakyRelu,    // p0 negative_slope
  Elu,          // p0 alpha, p1 scale, p2 input_scale (elu, celu, selu)
  Hardtanh,     // p0 min, p1 max (relu6 = hardtanh(0, 6))
  Hardswish,
  Hardsigmoid,
  Softsign,
  Softshrink,   // p0 lambd
  Hardshrink,   // p0 lambd
  Tanhshrink,
  Threshold,    // p0 threshold, p1 value
  Mish,
  LogSigmoid,
};
// Op names (activation_slot is a family slot: missing_kernels reports single
// ops). Elu's row computes elu, celu and selu.
inline constexpr const char* kActOpNames[] = {
    "leaky_relu", "elu", "hardtanh", "hardswish", "hardsigmoid", "softsign",
    "softshrink", "hardshrink", "tanhshrink", "threshold", "mish", "logsigmoid"};
static_assert(std::size(kActOpNames) == static_cast<size_t>(ActOp::LogSigmoid) + 1);
struct ActParams {
  double p0 = 0, p1 = 0, p2 = 0;
};
// iter: one output and one input of the same floating dtype.
using ActivationFn = void(TensorIterator& iter, ActOp op, const ActParams& p);
extern KernelSlot<ActivationFn> activation_slot;

// prelu: iter's output = input 0 where it is > 0, else input 0 * input 1 (the
// slope, broadcast over the input's channels); one floating dtype throughout.
using PreluFn = void(TensorIterator& iter);
extern KernelSlot<PreluFn> prelu_slot;

// Softmax family along `dim`: in and out contiguous, same floating dtype and
// shape. log: log_softmax. One pass for the max, one for the sum of
// exponentials, one write; rows in parallel.
using SoftmaxFn = void(const Tensor& in, Tensor& out, int64_t dim, bool log);
// Op names, indexed by `log` (the softmax slots are family slots of two ops).
inline constexpr const char* kSoftmaxOpNames[] = {"softmax", "log_softmax"};
extern KernelSlot<SoftmaxFn> softmax_slot;
// Backward data of softmax (grad_in = y * (g - sum(g * y))) and log_softmax
// (grad_in = g - exp(y) * sum(g)); g, y, out contiguous, same dtype and shape.
using SoftmaxBackwardFn = void(const Tensor& grad, const Tensor& y, Tensor& out, int64_t dim, bool log);
extern KernelSlot<SoftmaxBackwardFn> softmax_backward_slot;

}  // namespace ember::nn::functional
