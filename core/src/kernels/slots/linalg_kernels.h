#pragma once
// Kernel slots of the linear algebra family. The ops (linalg_ops.cpp,
// einsum_ops.cpp) check shapes and dtypes, broadcast and allocate; every
// product ends in one of these two slots.
#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

// out[i] = beta * out[i] + alpha * (a[i] @ b[i]) for every batch index i.
// a: [B, M, K], b: [B, K, N], out: [B, M, N], one dtype, any strides (batch
// strides may be 0); out does not overlap a or b. beta == 0 ignores out's
// contents (NaN included), as BLAS does. K == 0 is allowed.
using GemmFn = void(const Tensor& a, const Tensor& b, Tensor& out, const Scalar& beta,
                    const Scalar& alpha);
extern KernelSlot<GemmFn> gemm_slot;

// out (0-d) = sum_i op(a[i]) * b[i] over two 1-d tensors of one dtype, where
// op conjugates when conjugate_a (vdot) and is the identity otherwise.
using DotFn = void(const Tensor& a, const Tensor& b, Tensor& out, bool conjugate_a);
extern KernelSlot<DotFn> dot_slot;

}  // namespace ember
