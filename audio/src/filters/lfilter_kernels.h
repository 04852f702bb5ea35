#pragma once
// The kernel slot of lfilter's difference equation (audio/src/filters/): defined
// in lfilter.cpp, filled by filters/cpu/lfilter_kernels.cpp and by any device
// backend that links Ember::backend (docs/architecture.md, "Device backends":
// a library's own slots, as vision's). Audio keeps its slot beside the op
// rather than in core: core's slots serve core's ops only.
//
// Note [lfilter arithmetic]
// torchaudio 0.13 filters in the waveform's dtype, in two passes per row
// (torchaudio/csrc/lfilter.cpp): DifferentiableFIR is torch's conv1d of the
// left-padded row with the flipped b (float32 runs in oneDNN, which
// accumulates from zero with a fused multiply-add per tap, oldest tap first),
// then DifferentiableIIR runs
//     acc = v[n]; for k = order .. 1: acc -= y[n-k] * a[k]; y[n] = acc
// compiled without FMA (a rounded product, then a rounded subtraction). Both
// with b and a already divided by a[0]. The CPU kernel performs exactly these
// roundings (its file is compiled with -ffp-contract=off; the FIR taps call
// an explicit FMA), so its outputs equal torchaudio's bit for bit, in float32
// and (torch's float64 conv1d accumulates the taps the same way) in float64:
// tests/audio/test_filters.cpp checks both. The recursion amplifies any other
// rounding by the filter's condition: an order-8 Butterworth run in float32
// with FMAs in the recursion differs from torchaudio by 7e-3.
#include <ember/core/tensor.h>

#include "kernels/slots/kernel_slot.h"

namespace ember::audio {

// For each row r of x [R, T] (float32 or float64, contiguous), with coefficient
// set s = r % C of a, b ([C, K], x's dtype, contiguous, already divided by
// a[s][0], which the kernel does not read):
//   v[t] = sum_{k = K-1 .. 0} b[s][k] x[r][t-k]       (skipped when b is undefined: v = x)
//   y[t] = v[t] - sum_{k = K-1 .. 1} a[s][k] y[t-k]   (skipped when a is undefined: y = v)
// with zero state before t = 0, in the order and roundings of Note [lfilter
// arithmetic]; out [R, T] (contiguous, x's dtype) = y, clamped to [-1, 1]
// (NaN stays NaN) when `clamp`. The recursion itself is never clamped.
using LfilterFn = void(Tensor& out, const Tensor& x, const Tensor& a, const Tensor& b, bool clamp);
extern KernelSlot<LfilterFn> lfilter_slot;

}  // namespace ember::audio
