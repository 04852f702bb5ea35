#pragma once
// dot_complex: the complex64/complex128 part of the CUDA dot_slot kernel
// (dot_complex.cpp). The slot takes one function for all dtypes: the real
// dtypes' kernel (another file) calls this one for complex operands, and
// registers dot_slot with kMaskComplex added to its mask.
#include <cublas_v2.h>

#include "ember/core/tensor.h"

namespace ember::cuda::kernels {

// The dot kernels' cuBLAS handle: one per thread and device, in device pointer
// mode (so not gemm.cpp's, whose alpha and beta are host values).
cublasHandle_t dot_handle_for(int16_t device);
// Raises naming the dot op and the cuBLAS call unless s is success.
void check_dot_cublas(cublasStatus_t s, const char* call);

// out (0-d, complex) = sum_i op(a[i]) * b[i] over two 1-d CUDA tensors of
// out's dtype, op conjugating when conjugate_a (vdot); conjugate views are
// consumed by the choice of cuBLAS's dotu/dotc (dot_slot's contract).
void dot_complex(const Tensor& a, const Tensor& b, Tensor& out, bool conjugate_a);

}  // namespace ember::cuda::kernels
