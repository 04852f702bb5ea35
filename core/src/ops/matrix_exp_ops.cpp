// linalg::matrix_exp: scaling and squaring of a Taylor polynomial; backward
// through exp([[A^H, G], [0, A^H]]) = [[., dexp_A^*(G)], [0, .]] (PyTorch's
// linalg_matrix_exp_differential), itself a matrix_exp, so double backward works.
#include <cmath>

#include "autograd/record.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"

namespace ember::linalg {

namespace {

// exp(A) for ||A||_1 <= 1/2 after scaling by 2^-s: Horner's rule on the
// degree-18 Taylor polynomial (truncation error < 0.5^19 / 19! relative),
// then s squarings.
Tensor matrix_exp_impl(const Tensor& A) {
  const int64_t n = A.size(-1);
  if (A.numel() == 0) return A.clone();
  const Tensor I = eye(n, A.options()).expand(A.sizes());
  const double norm = A.abs().sum({-2}).amax().item<double>();  // max 1-norm over the batch
  EMBER_CHECK(std::isfinite(norm), "linalg.matrix_exp: the input has non-finite values");
  const int s = norm > 0.5 ? static_cast<int>(std::ceil(std::log2(norm / 0.5))) : 0;
  const Tensor X = s > 0 ? A * std::ldexp(1.0, -s) : A;
  Tensor T = I;
  for (int j = 18; j >= 1; --j) T = I + X.matmul(T) * (1.0 / j);
  for (int i = 0; i < s; ++i) T = T.matmul(T);
  return T;
}

}  // namespace

Tensor matrix_exp(const Tensor& A) {
  EMBER_CHECK(A.defined() && A.dim() >= 2 && A.size(-1) == A.size(-2),
              "linalg.matrix_exp: The input tensor A must be batches of square matrices");
  EMBER_CHECK(A.is_floating_point(), "linalg.matrix_exp: expected a floating point tensor, got ", A.dtype());
  autograd::OpRecorder rec("linalg_matrix_exp", {A});
  Tensor out = matrix_exp_impl(A);
  if (rec)
    rec.record(out, [sa = rec.save(A)](autograd::BackwardContext& c) -> autograd::variable_list {
      const Tensor Ah = c.unpack(sa).mT();
      const Tensor& g = c.grads[0];
      const int64_t n = Ah.size(-1);
      const Tensor top = cat({Ah, g}, -1);
      const Tensor bottom = cat({zeros_like(Ah), Ah}, -1);
      return {matrix_exp(cat({top, bottom}, -2)).narrow(-2, 0, n).narrow(-1, n, n)};
    });
  return out;
}

}  // namespace ember::linalg
