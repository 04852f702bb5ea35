#pragma once
// The CPU's FFT engine: the three primitives of kernels/slots/fft_kernels.h
// (their contracts are there), registered as the CPU's kernels.
#include "kernels/slots/fft_kernels.h"

namespace ember::fft::detail {

Tensor exec_c2c(const Tensor& in, IntArrayRef dims, Scale scale, bool forward);
Tensor exec_r2c(const Tensor& in, IntArrayRef dims, Scale scale, bool onesided);
Tensor exec_c2r(const Tensor& in, IntArrayRef dims, Scale scale, int64_t last_dim_size);

}  // namespace ember::fft::detail
