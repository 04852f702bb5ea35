#pragma once
// Kernel slots of the dense factorizations (linalg_lapack_ops.cpp). The op
// file checks arguments, broadcasts batches, records autograd and lays each
// matrix out column by column (LAPACK's order: the buffer of a [..., r, c]
// batch is [..., c, r] contiguous); kernels factor every matrix of the batch
// in place. The CPU's are LAPACK (bundled in OpenBLAS), float32 and float64.
#include "ember/core/tensor.h"
#include "kernels/slots/dispatch_stub.h"

namespace ember {

// a: [B, n, n] column-major matrices, x: [B, k, n] column-major right-hand
// sides; x becomes A^-1 X (a is overwritten by its LU factors). Raises an
// ember::Error naming linalg.solve when a matrix is singular.
using LinalgSolveFn = void(Tensor& a, Tensor& x);
extern DispatchStub<LinalgSolveFn> linalg_solve_stub;

// a: [B, n, m] column-major m x n matrices, tau: [B, min(m, n)]: a becomes
// geqrf's compact QR (R above the diagonal, Householder vectors below), tau
// the reflector scales.
using GeqrfFn = void(Tensor& a, Tensor& tau);
extern DispatchStub<GeqrfFn> geqrf_stub;

// a: [B, n, m] column-major (Householder vectors as geqrf leaves them), tau:
// [B, k]: a becomes the first n columns of H_1 ... H_k (orgqr).
using OrgqrFn = void(Tensor& a, const Tensor& tau);
extern DispatchStub<OrgqrFn> orgqr_stub;

}  // namespace ember
