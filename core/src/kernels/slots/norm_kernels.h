#pragma once
// Kernel slots of nn::functional's normalizations (CPU: kernels/cpu/dnnl_norm.cpp,
// oneDNN, float32). The op file (normalization.cpp) checks arguments, updates
// running statistics and records the backward; float64 is composed of Tensor ops.
#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::nn::functional {

// Batch normalization over every dim but 1 of x [N, C, ...] (dense; row-major
// or, when channels_last, nwc/nhwc/ndhwc), into y (same layout).
// w, b: [C] scale and shift, both or neither (undefined: no affine).
// use_input_stats: mean and var [C] receive the batch statistics (biased
// variance); otherwise they are read (running statistics).
using BatchNormForwardFn = void(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& mean,
                                Tensor& var, Tensor& y, double eps, bool use_input_stats,
                                bool channels_last);
extern KernelSlot<BatchNormForwardFn> batch_norm_forward_slot;
// Gradients of the batch-statistics form: gx (layout of x), gw, gb [C].
using BatchNormBackwardFn = void(const Tensor& x, const Tensor& gy, const Tensor& w, const Tensor& mean,
                                 const Tensor& var, Tensor& gx, Tensor& gw, Tensor& gb,
                                 double eps, bool channels_last);
extern KernelSlot<BatchNormBackwardFn> batch_norm_backward_slot;

// Layer normalization of the rows of x [M, N] (contiguous) into y; w, b [N]
// (both or neither: undefined = no affine); mean, var [M] receive the row statistics.
using LayerNormForwardFn = void(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& mean,
                                Tensor& var, Tensor& y, double eps);
extern KernelSlot<LayerNormForwardFn> layer_norm_forward_slot;
using LayerNormBackwardFn = void(const Tensor& x, const Tensor& gy, const Tensor& w, const Tensor& mean,
                                 const Tensor& var, Tensor& gx, Tensor& gw, Tensor& gb,
                                 double eps);
extern KernelSlot<LayerNormBackwardFn> layer_norm_backward_slot;

// Group normalization of x [N, C, L] (contiguous) in `groups` groups of
// channels into y; w, b [C] (each may be undefined: no scale / no shift);
// mean, rstd [N * groups] receive the group statistics (rstd = 1 / sqrt(var + eps),
// biased variance). CPU: kernels/cpu/group_norm_kernels.cpp.
using GroupNormForwardFn = void(const Tensor& x, const Tensor& w, const Tensor& b, int64_t groups, Tensor& mean,
                                Tensor& rstd, Tensor& y, double eps);
extern KernelSlot<GroupNormForwardFn> group_norm_forward_slot;
// gx (undefined: not wanted) [N, C, L]; gw, gb [C] (each undefined when not wanted).
using GroupNormBackwardFn = void(const Tensor& x, const Tensor& gy, const Tensor& w, int64_t groups,
                                 const Tensor& mean, const Tensor& rstd, Tensor& gx, Tensor& gw, Tensor& gb);
extern KernelSlot<GroupNormBackwardFn> group_norm_backward_slot;

}  // namespace ember::nn::functional
