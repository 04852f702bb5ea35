#pragma once
// The complex64/complex128 halves of the CUDA elementwise and reduction
// kernels (unary_complex.cu, binary_complex.cu, reduce_complex.cu), called by
// the slot entries in unary.cu, binary.cu, ternary.cu and reduce_minmax.cu
// for complex operands. Kept in their own translation units so that each
// stays under the compile-time bound (docs/cuda.md). The math is
// complex_math.cuh's (Note [Complex math as the CPU's]).
#include <optional>

#include "iter/tensor_iterator.h"
#include "kernels/slots/elementwise_kernels.h"
#include "kernels/slots/reduce_kernels.h"

namespace ember::cuda::kernels {

// Every unary op the CPU computes for complex (the complex bits of kUnaryInfo).
void unary_complex_kernel(TensorIterator& iter, UnaryOp op);
// add (with alpha), mul, div, pow, eq, ne, logical_and/or/xor.
void binary_complex_kernel(TensorIterator& iter, BinaryOp op, const Scalar& alpha);
// where, lerp, addcmul, addcdiv.
void ternary_complex_kernel(TensorIterator& iter, TernaryOp op, const Scalar& value);
// pow(tensor, number) for a complex base: the CPU's exact forms, else binary pow.
void pow_scalar_complex_kernel(TensorIterator& iter, const Scalar& exponent);
// sum, prod, mean (complex results) and the norms (real results) of a complex input.
void reduce_complex(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params);

}  // namespace ember::cuda::kernels
