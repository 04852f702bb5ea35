#pragma once
// Kernel slots of nn::functional's convolutions (CPU: kernels/cpu/dnnl_conv.cpp,
// oneDNN, float32). The op file (conv.cpp) resolves options, allocates outputs
// and records the backward; float64 runs an im2col + matmul path in conv.cpp.
#include <cstddef>
#include <iterator>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::nn::functional {

// The elementwise activation a convolution kernel applies to y in the same
// pass (oneDNN post-ops). The slots' own vocabulary, so that kernels/ includes
// no nn/ header: conv.cpp maps the public ConvActivation onto it.
enum class ConvPostOp { None, ReLU, ReLU6, Hardswish, SiLU };
// The forward kernel's ops, one per post-op (conv_forward_slot is a family
// slot: a backend says per post-op which dtypes it fuses, and
// conv2d_activation runs the activation as a separate op where it does not).
inline constexpr const char* kConvPostOpNames[] = {"conv", "conv_relu", "conv_relu6", "conv_hardswish",
                                                   "conv_silu"};
static_assert(std::size(kConvPostOpNames) == static_cast<size_t>(ConvPostOp::SiLU) + 1);

// A convolution's geometry over `nd` spatial dims (1-3). Output size per dim:
// (in + padding_l + padding_r - dilation * (k - 1) - 1) / stride + 1, exactly
// (padding_r is chosen so; it may be smaller than padding_l, even negative).
struct ConvParams {
  DimVector stride, padding_l, padding_r, dilation;
  int64_t groups = 1;
  // Activations (x, y, their gradients) are dense channels-last (nwc, nhwc,
  // ndhwc) rather than row-major.
  bool channels_last = false;
  // The weight is dense channels-last (a model converted with
  // to(ChannelsLast)); its gradient is made in the same layout. Kernels read
  // weights of either layout through their strides.
  bool weight_channels_last = false;
  // Forward only: an activation applied to y in the same pass (inference;
  // conv2d_activation sets it only when nothing is recorded).
  ConvPostOp activation = ConvPostOp::None;
};

// y = act(conv(x, w) + b) (b may be undefined; act = p.activation). x [N, C,
// in...], w [O, C/groups, k...], y [N, O, out...] allocated by the caller;
// all float32 and dense.
using ConvForwardFn = void(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& y,
                           const ConvParams& p);
extern KernelSlot<ConvForwardFn> conv_forward_slot;

// gx = d(conv)/dx applied to gy (a transposed convolution): gy [N, O, out...],
// w [O, C/groups, k...], gx [N, C, in...] allocated by the caller.
using ConvBackwardDataFn = void(const Tensor& gy, const Tensor& w, Tensor& gx, const ConvParams& p);
extern KernelSlot<ConvBackwardDataFn> conv_backward_data_slot;

// gw (and gb = sum of gy over all dims but 1, when defined) of conv(x, w).
using ConvBackwardWeightFn = void(const Tensor& x, const Tensor& gy, Tensor& gw, Tensor& gb,
                                  const ConvParams& p);
extern KernelSlot<ConvBackwardWeightFn> conv_backward_weight_slot;

}  // namespace ember::nn::functional
