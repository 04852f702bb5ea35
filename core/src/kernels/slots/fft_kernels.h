#pragma once
// Kernel slots of the FFT family: the three transform primitives every
// ember::fft function reduces to (ATen's _fft_c2c / _fft_r2c / _fft_c2r).
// Unnormalized DFT along `dims` (wrapped, distinct, non-empty, every signal
// size >= 1: the op file checks), with
//   forward:  X[k] = sum_j x[j] exp(-2 pi i j k / n)
//   backward: the same with +i.
// `scale` multiplies the result by 1, 1/sqrt(N) or 1/N, N = the product of the
// signal sizes (for c2r: of the real output's sizes). No autograd here: the
// recorded wrappers in fft/fft_ops.cpp call these. Outputs are new tensors on
// the input's device. The CPU's engine is fft/fft_exec.cpp.
#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::fft::detail {

enum class Scale { None, InvSqrtN, InvN };

// complex64/complex128 input, any strides -> output of the same shape and dtype.
using FFTC2CFn = Tensor(const Tensor& in, IntArrayRef dims, Scale scale, bool forward);
extern KernelSlot<FFTC2CFn> fft_c2c_slot;

// float32/float64 input -> complex64/complex128, forward transform. With
// `onesided` the last of `dims` keeps n/2 + 1 entries (the rest follow from
// Hermitian symmetry); otherwise the full spectrum.
using FFTR2CFn = Tensor(const Tensor& in, IntArrayRef dims, Scale scale, bool onesided);
extern KernelSlot<FFTR2CFn> fft_r2c_slot;

// Hermitian half spectrum (complex; the last of `dims` has last_dim_size/2 + 1
// entries) -> real output whose last transformed dim has last_dim_size entries;
// backward transform. Imaginary parts that the symmetry makes zero (bin 0, and
// bin n/2 for even n) are ignored, as numpy/pocketfft do.
using FFTC2RFn = Tensor(const Tensor& in, IntArrayRef dims, Scale scale, int64_t last_dim_size);
extern KernelSlot<FFTC2RFn> fft_c2r_slot;

}  // namespace ember::fft::detail
