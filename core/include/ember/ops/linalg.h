#pragma once
// Linear algebra products: matmul (with PyTorch's broadcasting rules), mm, bmm,
// addmm, baddbmm, addmv, dot, vdot, mv, outer, einsum and tensordot; and the
// torch.linalg functions at the end (solve, matrix_exp, householder_product, qr).
// Floating and complex types run on OpenBLAS; integer, float16 and bfloat16 on
// a blocked loop accumulating in 64-bit integers / float. Bool is rejected.
// Operands must share one dtype (no promotion), as in PyTorch.
#include <string>
#include <string_view>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// matmul: 1-d x 1-d is a dot product, 2-d x 1-d a matrix-vector product,
// 1-d x 2-d a vector-matrix product, 2-d x 2-d a matrix product; with more
// dims the leading (batch) dims broadcast and a 1-d operand gets a temporary
// dim of size 1 that is removed from the result.
Tensor matmul(const Tensor& self, const Tensor& other);
Tensor& matmul_out(Tensor& out, const Tensor& self, const Tensor& other);

// mm: [n, m] x [m, p] -> [n, p]. bmm: [b, n, m] x [b, m, p] -> [b, n, p].
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor& mm_out(Tensor& out, const Tensor& self, const Tensor& mat2);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor& bmm_out(Tensor& out, const Tensor& self, const Tensor& mat2);

// beta * self + alpha * (mat1 @ mat2); self broadcasts to the product's shape.
// With beta == 0, self is ignored (its NaNs and infs do not propagate).
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor& addmm_out(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                  const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);

// dot: sum(self * other) of two 1-d tensors; vdot conjugates self first.
Tensor dot(const Tensor& self, const Tensor& other);
Tensor vdot(const Tensor& self, const Tensor& other);
Tensor mv(const Tensor& self, const Tensor& vec);
// outer(a, b)[i, j] = a[i] * b[j] (alias ger).
Tensor outer(const Tensor& self, const Tensor& vec2);
Tensor ger(const Tensor& self, const Tensor& vec2);

// einsum("bij,bjk->bik", {a, b}): labels a-z and A-Z, "..." for broadcast
// dims, "->" for an explicit output (implicit: labels seen once, in
// alphabetical order with upper case first, after the ellipsis dims). A label
// repeated within one operand takes its diagonal; labels absent from the
// output are summed. Size-1 dims broadcast.
Tensor einsum(std::string_view equation, ArrayRef<Tensor> tensors);

// tensordot: contracts dims_a of a with dims_b of b (same sizes, pairwise);
// the result has a's free dims then b's. The int form contracts the last
// `dims` dims of a with the first `dims` dims of b.
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);

// geqrf: the QR factorization of A [..., m, n] in LAPACK's packed form
// (Householder vectors below the diagonal of `a`, R on and above it, and the
// scalar factors tau [..., min(m, n)]). Not differentiable, as in PyTorch.
std::tuple<Tensor, Tensor> geqrf(const Tensor& A);

// torch.linalg: float32/float64 (complex not yet), CPU, batched over leading
// dims; LAPACK (bundled in OpenBLAS) does the factorizations. Every result is
// differentiable (gradcheck'ed).
namespace linalg {

// torch.linalg.vector_norm: the ord-norm of x over `dims` (all dims when
// empty) as a flat vector; complex inputs give real results (norm of |x|).
Tensor vector_norm(const Tensor& x, const Scalar& ord = 2, IntArrayRef dims = {}, bool keepdim = false);

// X with A X = B (left) or X A = B (!left). A [..., n, n]; B [..., n, k], or
// [..., n] (a batch of vectors: B.dim() == 1 or B's shape is A's without the
// last dim); batch dims broadcast. A singular A is an error.
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);

// exp(A) of square matrices [..., n, n] (scaling and squaring of a Taylor
// polynomial). Gradient through the block-triangular identity PyTorch uses.
Tensor matrix_exp(const Tensor& A);

// The first n columns of H_1 H_2 ... H_k (H_i = I - tau_i v_i v_i^H, v_i the
// i-th column of A below the diagonal with an implicit 1 on it): A [..., m,
// n], tau [..., k], m >= n >= k. LAPACK's orgqr; when a gradient is needed the
// product is formed with differentiable Tensor ops (one reflector at a time).
Tensor householder_product(const Tensor& A, const Tensor& tau);

// A = Q R. mode "reduced": Q [..., m, k], R [..., k, n] with k = min(m, n);
// "complete": Q [..., m, m], R [..., m, n]; "r": Q empty, R as "reduced".
// Differentiable for "reduced" and for "complete" when m <= n (PyTorch's rule).
std::tuple<Tensor, Tensor> qr(const Tensor& A, const std::string& mode = "reduced");

}  // namespace linalg

}  // namespace ember
