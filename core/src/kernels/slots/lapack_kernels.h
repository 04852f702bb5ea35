#pragma once
// Kernel slots of the dense factorizations (linalg_lapack_ops.cpp). The op
// file checks arguments, broadcasts batches, records autograd and lays each
// matrix out column by column (LAPACK's order: the buffer of a [..., r, c]
// batch is [..., c, r] contiguous); kernels factor every matrix of the batch
// in place. The CPU's are LAPACK (bundled in OpenBLAS), float32 and float64.
#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

// a: [B, n, n] column-major matrices, x: [B, k, n] column-major right-hand
// sides; x becomes A^-1 X (a is overwritten by its LU factors). Raises an
// ember::Error naming linalg.solve when a matrix is singular.
using LinalgSolveFn = void(Tensor& a, Tensor& x);
extern KernelSlot<LinalgSolveFn> linalg_solve_slot;

// a: [B, n, m] column-major m x n matrices, tau: [B, min(m, n)]: a becomes
// geqrf's compact QR (R above the diagonal, Householder vectors below), tau
// the reflector scales.
using GeqrfFn = void(Tensor& a, Tensor& tau);
extern KernelSlot<GeqrfFn> geqrf_slot;

// a: [B, n, m] column-major (Householder vectors as geqrf leaves them), tau:
// [B, k]: a becomes the first n columns of H_1 ... H_k (orgqr).
using OrgqrFn = void(Tensor& a, const Tensor& tau);
extern KernelSlot<OrgqrFn> orgqr_slot;

}  // namespace ember
