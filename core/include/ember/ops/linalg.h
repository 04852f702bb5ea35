#pragma once
// Linear algebra products: matmul (with PyTorch's broadcasting rules), mm, bmm,
// addmm, baddbmm, addmv, dot, vdot, mv, outer, einsum and tensordot.
// Floating and complex types run on OpenBLAS; integer, float16 and bfloat16 on
// a blocked loop accumulating in 64-bit integers / float. Bool is rejected.
// Operands must share one dtype (no promotion), as in PyTorch.
#include <string_view>

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

}  // namespace ember
