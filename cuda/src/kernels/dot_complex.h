#pragma once
// dot_complex: the complex64/complex128 part of the CUDA dot_slot kernel
// (dot_complex.cpp). The slot takes one function for all dtypes: the real
// dtypes' kernel (another file) calls this one for complex operands, and
// registers dot_slot with kMaskComplex added to its mask.
#include "ember/core/tensor.h"

namespace ember::cuda::kernels {

// out (0-d, complex) = sum_i op(a[i]) * b[i] over two 1-d CUDA tensors of
// out's dtype, op conjugating when conjugate_a (vdot); conjugate views are
// consumed by the choice of cuBLAS's dotu/dotc (dot_slot's contract).
void dot_complex(const Tensor& a, const Tensor& b, Tensor& out, bool conjugate_a);

}  // namespace ember::cuda::kernels
