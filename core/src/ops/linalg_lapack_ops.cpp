// torch.linalg factorizations through the dense-factorization slots: geqrf, solve,
// householder_product and qr, with their backward formulas
// (tools/autograd/FunctionsManual.cpp semantics).
//
// The kernels (kernels/slots/lapack_kernels.h; LAPACK on the CPU) are
// column-major: a batch [..., r, c] is copied as its transpose (A.mT() made
// contiguous), whose row-major bytes are A column by column; a result written
// there is read back through .mT() (a column-major view, as PyTorch's linalg
// results are).
#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/record.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "kernels/slots/lapack_kernels.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_SLOT(linalg_solve_slot, LinalgSolveFn, "linalg_solve");
EMBER_DEFINE_SLOT(geqrf_slot, GeqrfFn, "geqrf");
EMBER_DEFINE_SLOT(orgqr_slot, OrgqrFn, "orgqr");

namespace {

template <class Fn>
void check_input(const char* op, const Tensor& A, const KernelSlot<Fn>& slot) {
  EMBER_CHECK(A.defined(), op, ": got an undefined tensor");
  EMBER_CHECK(A.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(slot.supports(A.device(), A.dtype()), op, ": ", A.dtype(), " on ", A.device(),
              " is not supported (the CPU computes float32 and float64)");
  EMBER_CHECK(A.size(-1) <= INT32_MAX && A.size(-2) <= INT32_MAX, op, ": matrix too large for LAPACK");
}

// A fresh column-major copy of the matrices of `t` ([..., r, c] -> buffer
// [..., c, r] contiguous), never aliasing t.
Tensor column_major_copy(const Tensor& t) {
  Tensor buf = empty(t.mT().sizes(), t.options());
  buf.copy_(t.mT());
  return buf;
}

std::vector<int64_t> batch_of(const Tensor& t, int64_t matrix_dims = 2) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end() - matrix_dims);
}

int64_t count(const std::vector<int64_t>& batch) {
  int64_t n = 1;
  for (int64_t b : batch) n *= b;
  return n;
}

// orgqr on column-major copies: the first n columns of H_1 ... H_k.
Tensor orgqr(const Tensor& A, const Tensor& tau) {
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  Tensor a = column_major_copy(A);
  const int64_t batches = count(batch_of(A));
  if (m == 0 || n == 0) return a.mT();
  Tensor a_batch = a.view({batches, n, m});
  orgqr_slot(A.device())(a_batch, tau.contiguous().view({batches, k}));
  return a.mT();
}

// householder_product with differentiable ops: Q = H_1 (H_2 (... (H_k E))).
Tensor householder_composite(const Tensor& A, const Tensor& tau) {
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  std::vector<int64_t> shape = batch_of(A);
  shape.push_back(m);
  shape.push_back(n);
  Tensor Q = eye(m, n, A.options()).expand(shape);
  const Tensor rows = arange(m, TensorOptions(kInt64).device(A.device()));
  for (int64_t i = k - 1; i >= 0; --i) {
    const Tensor below = (rows > i).to(A.dtype());
    const Tensor unit = (rows == i).to(A.dtype());
    const Tensor v = (A.select(-1, i) * below + unit).unsqueeze(-1);  // [..., m, 1]
    const Tensor t = tau.select(-1, i).unsqueeze(-1).unsqueeze(-1);
    Q = Q - (v * t).matmul(v.mT().matmul(Q));
  }
  return Q;
}

}  // namespace

std::tuple<Tensor, Tensor> geqrf(const Tensor& A) {
  check_input("geqrf", A, geqrf_slot);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Tensor a = column_major_copy(A.detach());
  std::vector<int64_t> tshape = batch_of(A);
  tshape.push_back(k);
  Tensor tau = zeros(tshape, A.options());
  const int64_t batches = count(batch_of(A));
  if (m > 0 && n > 0) {
    Tensor a_batch = a.view({batches, n, m}), tau_batch = tau.view({batches, k});
    geqrf_slot(A.device())(a_batch, tau_batch);
  }
  return {a.mT(), tau};
}

namespace linalg {

Tensor solve(const Tensor& A, const Tensor& B, bool left) {
  check_input("linalg.solve", A, linalg_solve_slot);
  EMBER_CHECK(B.defined(), "linalg.solve: got an undefined tensor B");
  EMBER_CHECK(A.dtype() == B.dtype(), "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
              A.dtype(), " and B of type ", B.dtype(), " instead");
  EMBER_CHECK(A.size(-1) == A.size(-2), "linalg.solve: A must be batches of square matrices, but they are ",
              A.size(-2), " by ", A.size(-1), " matrices");
  const bool vector =
      B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == A.sizes().slice(0, static_cast<size_t>(A.dim() - 1)));
  if (!left) return vector ? solve(A.mT(), B, true) : solve(A.mT(), B.mT(), true).mT();
  const Tensor Bm = vector ? B.unsqueeze(-1) : B;
  EMBER_CHECK(Bm.dim() >= 2 && Bm.size(-2) == A.size(-1), "linalg.solve: Incompatible shapes of A and B for the "
              "equation AX = B (", A.sizes(), " and ", B.sizes(), ")");
  const int64_t n = A.size(-1), k = Bm.size(-1);
  auto batch = infer_broadcast_size(IntArrayRef(batch_of(A)), IntArrayRef(batch_of(Bm)), "linalg.solve");
  std::vector<int64_t> ashape(batch.begin(), batch.end()), bshape(batch.begin(), batch.end());
  ashape.insert(ashape.end(), {n, n});
  bshape.insert(bshape.end(), {n, k});

  autograd::OpRecorder rec("linalg_solve", {A, B});
  Tensor a = column_major_copy(A.expand(ashape));
  Tensor x = column_major_copy(Bm.expand(bshape));
  const int64_t batches = count(std::vector<int64_t>(batch.begin(), batch.end()));
  if (n > 0 && k > 0) {
    Tensor a_batch = a.view({batches, n, n}), x_batch = x.view({batches, k, n});
    linalg_solve_slot(A.device())(a_batch, x_batch);
  }
  Tensor X = vector ? x.mT().squeeze(-1) : x.mT();
  if (rec) {
    auto sa = rec.save(A);
    auto sx = rec.needs(0) ? rec.save_output(X) : autograd::SavedVariable();
    rec.record(X, [sa, sx, vector](autograd::BackwardContext& c) -> autograd::variable_list {
      const Tensor& g = c.grads[0];
      const Tensor Ah = c.unpack(sa).mT();
      // gB = A^-H gX; gA = -gB X^H.
      Tensor gB = solve(Ah, vector ? g.unsqueeze(-1) : g);
      Tensor gA;
      if (c.needs(0)) {
        const Tensor X = c.unpack(sx);
        gA = -gB.matmul((vector ? X.unsqueeze(-1) : X).mT());
      }
      return {gA, c.needs(1) ? (vector ? gB.squeeze(-1) : gB) : Tensor()};
    });
  }
  return X;
}

Tensor householder_product(const Tensor& A, const Tensor& tau) {
  check_input("linalg.householder_product", A, orgqr_slot);
  EMBER_CHECK(tau.defined() && tau.dtype() == A.dtype(),
              "linalg.householder_product: tau dtype must match input dtype");
  const int64_t m = A.size(-2), n = A.size(-1);
  EMBER_CHECK(m >= n, "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                      "input.shape[-1]");
  EMBER_CHECK(tau.dim() == A.dim() - 1, "torch.linalg.householder_product: input.dim() must be greater than "
                                        "tau.dim() by 1");
  EMBER_CHECK(tau.size(-1) <= n, "torch.linalg.householder_product: input.shape[-1] must be greater than or equal "
                                 "to tau.shape[-1]");
  EMBER_CHECK(tau.sizes().slice(0, tau.dim() - 1) == A.sizes().slice(0, A.dim() - 2),
              "torch.linalg.householder_product: Expected batch dimensions of tau to be equal to input.shape[:-2], "
              "but got ", tau.sizes(), " and ", A.sizes());
  if (autograd::is_recording() && (A.requires_grad() || tau.requires_grad())) return householder_composite(A, tau);
  return orgqr(A, tau);
}

std::tuple<Tensor, Tensor> qr(const Tensor& A, const std::string& mode) {
  check_input("linalg.qr", A, geqrf_slot);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r",
              "qr received unrecognized mode '", mode, "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  autograd::OpRecorder rec("linalg_qr", {A});
  auto [a, tau] = geqrf(A);
  Tensor Q, R;
  if (mode == "complete") {
    R = a.triu();
    // m x m: the reflectors padded with zero columns when m > n.
    Tensor reflectors = a.narrow(-1, 0, k);
    if (m > n) {
      auto pad = a.sizes().vec();
      pad.back() = m - n;
      reflectors = cat({a, zeros(pad, a.options())}, -1);
    }
    Q = orgqr(reflectors, tau);
  } else {
    R = a.narrow(-2, 0, k).triu();
    if (mode == "reduced") Q = orgqr(a.narrow(-1, 0, k), tau);
  }
  if (mode == "r") Q = empty({0}, A.options());
  if (rec) {
    auto sq = rec.save_output(Q, 0), sr = rec.save_output(R, 1);
    rec.record({Q, R}, [sq, sr, mode, m, n](autograd::BackwardContext& c) -> autograd::variable_list {
      EMBER_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                               "linalg.qr.");
      EMBER_CHECK(mode == "reduced" || m <= n,
                  "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
      const Tensor Q = c.unpack(sq), R = c.unpack(sr);
      const Tensor& gQ = c.grads[0];
      const Tensor& gR = c.grads[1];
      Tensor gA = gR.matmul(R.mT()) - Q.mT().matmul(gQ);
      if (m >= n) {
        // Q (sym(triu(gA)) with the diagonal halved) + gQ, times R^-H.
        const Tensor sym = gA.triu() + gA.triu(1).mT();
        return {solve(R.mT(), Q.matmul(sym) + gQ, /*left=*/false)};
      }
      const Tensor X = -gA;
      const Tensor skew = (X - X.mT()).tril();
      Tensor out = solve(R.narrow(-1, 0, m).mT(), Q.matmul(skew), /*left=*/false);
      auto shape = out.sizes().vec();
      shape.back() = n - m;
      out = cat({out, zeros(shape, out.options())}, -1);
      return {out + Q.matmul(gR)};
    });
  }
  return {Q, R};
}

}  // namespace linalg
}  // namespace ember
