#pragma once
// Kernel slots of the quantized convolution and linear (CPU:
// kernels/cpu/dnnl_quantized.cpp, oneDNN's int8 primitives). The op file
// (ao/nn/quantized/functional.cpp) checks arguments, allocates the output and
// keeps its float64 path for what no kernel takes (Note [Quantized kernels]).
#include <memory>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::ao::nn::quantized {

// What a kernel keeps between the calls of one module: the weight reordered
// into the primitive's layout, the primitives, the bias scaled for an input
// scale. The module owns it (an opaque pointer); the kernel makes and reads it
// and rebuilds it when the module's weight or bias is another tensor or has
// been written to.
struct QKernelState {
  virtual ~QKernelState() = default;
};
using QKernelStatePtr = std::shared_ptr<QKernelState>;

// A quantized convolution's geometry (2 or 3 spatial dims) and fused ReLU.
// A transposed convolution's padding_r is its padding minus its
// output_padding (negative where the output_padding is larger).
struct QConvParams {
  DimVector stride, padding_l, padding_r, dilation;
  int64_t groups = 1;
  bool relu = false;
  bool transposed = false;
};

// y = requantize(conv(x - x_zp, w) * x_scale * w_scale + bias) with y's scale
// and zero point, ReLU fused when p.relu. x quint8 or qint8 [N, C, *spatial]
// (2 or 3 spatial dims), dense channels-last; w qint8 [O, C / groups, k...]
// (transposed: [C, O / groups, k...], torch's ConvTranspose weight) with zero
// points 0, per-tensor or per-channel along dim 0 (any strides); bias floating
// [O] or undefined; y of x's dtype, [N, O, *out] dense channels-last,
// allocated by the caller with its parameters. state: null, or where the
// caller keeps the kernel's state for (w, bias) between calls.
using QConvFn = void(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, const QConvParams& p,
                     QKernelStatePtr* state);
extern KernelSlot<QConvFn> qconv_slot;

// y [M, N] = requantize(x [M, K] w^T + bias) as above: x quint8 or qint8,
// contiguous; w qint8 [N, K]; y contiguous.
using QLinearFn = void(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, bool relu,
                       QKernelStatePtr* state);
extern KernelSlot<QLinearFn> qlinear_slot;

}  // namespace ember::ao::nn::quantized
