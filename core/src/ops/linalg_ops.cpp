// Matrix products: argument checks, broadcasting and output allocation for
// matmul, mm, bmm, addmm, baddbmm, addmv, mv, dot, vdot and outer. Every
// product ends in gemm_slot or dot_slot (kernels/slots/linalg_kernels.h).
// Backward formulas (Note [Recording an op]) live beside each op: products of
// the output gradient with the other operand's conjugate transpose, passed to
// mm/bmm as transposed views (BLAS reads them through its transpose flags).
#include <complex>
#include <string>

#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "kernels/slots/linalg_kernels.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_SLOT(gemm_slot, GemmFn, "gemm");
EMBER_DEFINE_SLOT(dot_slot, DotFn, "dot");

namespace {

// "2x3" as in PyTorch's shape messages.
std::string shape_str(IntArrayRef sizes) {
  if (sizes.empty()) return "[]";
  std::string s = std::to_string(sizes[0]);
  for (size_t i = 1; i < sizes.size(); ++i) {
    s += 'x';
    s += std::to_string(sizes[i]);
  }
  return s;
}

void check_operands(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.defined() && b.defined(), op, ": got an undefined tensor");
  EMBER_CHECK(a.dtype() == b.dtype(), op, ": expected both operands to have the same dtype, but got ",
              a.dtype(), " and ", b.dtype());
  EMBER_CHECK(a.device() == b.device(), op, ": expected both operands on one device, but got ",
              a.device(), " and ", b.device());
  EMBER_CHECK(a.dtype() != kBool, op, ": bool tensors are not supported (as in PyTorch); convert to an integer or floating dtype");
}

// beta/alpha must be representable in the operands' dtype category.
void check_coefficients(const char* op, DType t, const Scalar& beta, const Scalar& alpha) {
  for (const Scalar* s : {&beta, &alpha}) {
    if (is_integral(t))
      EMBER_CHECK(s->is_integral(true), op, ": for integral input tensors, beta and alpha must be integers (got ",
                  *s, ")");
    // (a complex number with a zero imaginary part converts, as in PyTorch)
    if (!is_complex(t))
      EMBER_CHECK(!s->is_complex() || s->to<complex128>().imag() == 0, op,
                  ": complex beta/alpha with a non-zero imaginary part need complex operands (value cannot be "
                  "converted to ", t, "), got ", *s);
  }
}

void check_matrices(const char* op, const Tensor& m1, const Tensor& m2) {
  check_operands(op, m1, m2);
  EMBER_CHECK(m1.dim() == 2 && m2.dim() == 2, op, ": expected 2-D matrices, but got ", m1.dim(),
              "-D and ", m2.dim(), "-D tensors");
  EMBER_CHECK(m1.size(1) == m2.size(0), op, ": mat1 and mat2 shapes cannot be multiplied (",
              shape_str(m1.sizes()), " and ", shape_str(m2.sizes()), ")");
}

void check_batches(const char* op, const Tensor& b1, const Tensor& b2) {
  check_operands(op, b1, b2);
  EMBER_CHECK(b1.dim() == 3 && b2.dim() == 3, op, ": expected 3-D tensors, but got ", b1.dim(),
              "-D and ", b2.dim(), "-D tensors");
  EMBER_CHECK(b1.size(0) == b2.size(0), op,
              ": batch1 and batch2 must have the same batch size, but got ", b1.size(0), " and ",
              b2.size(0));
  EMBER_CHECK(b1.size(2) == b2.size(1), op, ": batch1 and batch2 shapes cannot be multiplied (",
              shape_str(b1.sizes()), " and ", shape_str(b2.sizes()), ")");
}

void check_matrix_vector(const char* op, const Tensor& mat, const Tensor& vec) {
  check_operands(op, mat, vec);
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, op, ": expected a 2-D matrix and a 1-D vector, but got ",
              mat.dim(), "-D and ", vec.dim(), "-D tensors");
  EMBER_CHECK(mat.size(1) == vec.size(0), op, ": mat and vec shapes cannot be multiplied (",
              shape_str(mat.sizes()), " and ", shape_str(vec.sizes()), ")");
}

// Makes `out` ready to receive a result of `sizes` and `dtype`: an out= tensor
// of the wrong shape is resized only when empty (as TensorIterator does).
void prepare_out(Tensor& out, IntArrayRef sizes, DType dtype, Device device, const char* op) {
  EMBER_CHECK(out.defined(), op, ": out= tensor is undefined");
  EMBER_CHECK(out.dtype() == dtype, op, ": expected out tensor to have dtype ", dtype, ", but got ",
              out.dtype(), " instead");
  EMBER_CHECK(out.device() == device, op, ": expected out tensor on ", device, ", but got ",
              out.device());
  if (out.sizes() == sizes) return;
  EMBER_CHECK(out.numel() == 0, op, ": out= tensor has shape ", out.sizes(),
              " but the result has shape ", sizes, " (only an empty out= tensor is resized)");
  Tensor fresh = empty(sizes, TensorOptions(dtype).device(device));
  out.impl()->set_storage(fresh.storage());
  out.impl()->set_geometry(fresh.sizes(), fresh.strides(), fresh.storage_offset());
}

bool is_zero(const Scalar& s) { return s.toComplexDouble() == complex128(0, 0); }
bool is_one(const Scalar& s) { return s.toComplexDouble() == complex128(1, 0); }

// A vector [n] as a batch of one [n, 1] matrix.
Tensor as_column(const Tensor& v) { return v.unsqueeze(1).unsqueeze(0); }

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.storage().get() == b.storage().get();
}

// out = beta * out + alpha * a @ b on [B, M, K] x [B, K, N] -> [B, M, N].
void run_gemm(const Tensor& a_in, const Tensor& b_in, Tensor out, const Scalar& beta,
              const Scalar& alpha) {
  if (out.numel() == 0) return;
  // Note [Conjugate bit]: the kernel consumes conjugate views through BLAS's
  // conjugate-transpose flag; negative views (imag() of a conjugate view) are resolved.
  const Tensor a = a_in.resolve_neg(), b = b_in.resolve_neg();
  const bool beta_zero = is_zero(beta);
  if (a.size(2) == 0) {  // empty contraction: the product is all zeros
    if (beta_zero) out.zero_();
    else out.mul_(beta);
    return;
  }
  if (shares_storage(out, a) || shares_storage(out, b) || out.impl()->has_lazy_bits()) {
    // BLAS must not write what it reads: compute aside. An out= conjugate
    // view gets the product through copy_, which stores conj().
    Tensor tmp = beta_zero ? empty(out.sizes(), out.options()) : out.clone(MemoryFormat::Contiguous);
    gemm_slot.fused(out.device())(a, b, tmp, beta, alpha);  // consumes conj bits (BLAS flags)
    out.copy_(tmp);
    return;
  }
  gemm_slot.fused(out.device())(a, b, out, beta, alpha);
  out.bump_version();
}


// Fills `out` with `self` broadcast to its shape when beta != 0 (addmm & co).
void seed_with_self(const char* op, Tensor out, const Tensor& self, const Scalar& beta) {
  EMBER_CHECK(self.defined(), op, ": self is undefined");
  EMBER_CHECK(self.dtype() == out.dtype(), op, ": expected self to have dtype ", out.dtype(),
              ", but got ", self.dtype());
  Tensor expanded;
  try {
    expanded = self.expand(out.sizes());
  } catch (const Error&) {
    EMBER_FAIL(op, ": self of shape ", self.sizes(), " cannot be broadcast to the product shape ",
               out.sizes());
  }
  if (!is_zero(beta) && !expanded.is_same(out)) out.copy_(expanded);
}

Tensor dot_impl(const char* op, const Tensor& a, const Tensor& b, bool conjugate_a) {  // NOLINT(misc-no-recursion)
  check_operands(op, a, b);
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, op, ": 1D tensors expected, but got ", a.dim(), "D and ",
              b.dim(), "D tensors");
  EMBER_CHECK(a.numel() == b.numel(), op,
              ": expected both vectors to have the same number of elements, but got ", a.numel(),
              " and ", b.numel());
  Tensor out = empty({}, a.options());
  if (a.numel() == 0) return out.zero_();
  if (a.is_neg() || b.is_neg()) return dot_impl(op, a.resolve_neg(), b.resolve_neg(), conjugate_a);
  dot_slot.fused(a.device())(a, b, out, conjugate_a);  // consumes conj bits (dotc)
  return out;
}

// Shape of matmul(a, b) and the pieces needed to compute it.
struct MatmulPlan {
  DimVector batch;   // broadcast batch dims
  int64_t m = 1, k = 1, n = 1;
  DimVector result;  // final shape (1-d operands' dims dropped)
};

MatmulPlan plan_matmul(const Tensor& a, const Tensor& b) {
  check_operands("matmul", a, b);
  EMBER_CHECK(a.dim() >= 1 && b.dim() >= 1, "matmul: both arguments need to be at least 1D, but they are ",
              a.dim(), "D and ", b.dim(), "D");
  MatmulPlan p;
  p.m = a.dim() == 1 ? 1 : a.size(-2);
  p.k = a.size(-1);
  const int64_t kb = b.dim() == 1 ? b.size(0) : b.size(-2);
  p.n = b.dim() == 1 ? 1 : b.size(-1);
  EMBER_CHECK(p.k == kb, "matmul: self and other shapes cannot be multiplied (", shape_str(a.sizes()),
              " and ", shape_str(b.sizes()), ")");
  const IntArrayRef batch_a = a.dim() > 2 ? a.sizes().slice(0, a.dim() - 2) : IntArrayRef();
  const IntArrayRef batch_b = b.dim() > 2 ? b.sizes().slice(0, b.dim() - 2) : IntArrayRef();
  p.batch = infer_broadcast_size(batch_a, batch_b, "matmul");
  p.result = p.batch;
  if (a.dim() > 1) p.result.push_back(p.m);
  if (b.dim() > 1) p.result.push_back(p.n);
  return p;
}

// matmul into `out` (already shaped p.result) or a fresh tensor when out is undefined.
Tensor matmul_impl(const Tensor& a, const Tensor& b, Tensor out) {
  const MatmulPlan p = plan_matmul(a, b);
  if (a.dim() == 1 && b.dim() == 1) {
    Tensor d = dot_impl("matmul", a, b, false);
    return out.defined() ? out.copy_(d) : d;
  }
  if (!out.defined()) out = empty(p.result, a.options());
  // Batched form: a -> [B, M, K], b -> [B, K, N]. Batch dims that broadcast
  // keep stride 0 where the reshape allows it, so nothing is copied.
  const int64_t batch = numel_of(p.batch);
  DimVector a_full = p.batch, b_full = p.batch;
  a_full.push_back(p.m);
  a_full.push_back(p.k);
  b_full.push_back(p.k);
  b_full.push_back(p.n);
  Tensor a3, b3;
  const bool fold = b.dim() <= 2 && a.dim() >= 2;
  if (fold) {
    // Fold a's batch dims into its rows: one [B*M, K] x [K, N] product.
    a3 = a.reshape({1, batch * p.m, p.k});
    b3 = (b.dim() == 1 ? b.unsqueeze(1) : b).unsqueeze(0);
  } else {
    const Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
    const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
    a3 = a2.expand(a_full).reshape({batch, p.m, p.k});
    b3 = b2.expand(b_full).reshape({batch, p.k, p.n});
  }
  const DimVector out3_shape =
      fold ? DimVector({1, batch * p.m, p.n}) : DimVector({batch, p.m, p.n});
  if (out.is_contiguous()) {
    run_gemm(a3, b3, out.view(out3_shape), 0, 1);
  } else {
    Tensor tmp = empty(out3_shape, a.options());
    run_gemm(a3, b3, tmp, 0, 1);
    out.copy_(tmp.view(p.result));
  }
  return out;
}


// ---- backward formulas ----
using autograd::BackwardContext;
using autograd::variable_list;

// The conjugate transpose of the last two dims: a view for real dtypes.
Tensor mh(const Tensor& t) { return t.mT().conj(); }
Scalar conj_scalar(const Scalar& s) { return s.is_complex() ? Scalar(std::conj(s.to<complex128>())) : s; }
// t * s, skipping the pass when s == 1.
Tensor scaled(const Tensor& t, const Scalar& s) { return is_one(s) ? t : t * s; }
int64_t prod_front(IntArrayRef sizes) {  // product of all but the last size
  int64_t n = 1;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) n *= sizes[i];
  return n;
}

// d(beta * self + alpha * (a @ b)) for mm, bmm, addmm and baddbmm. `first`
// is a's index among the recorder's inputs (1 when self comes first); self's
// gradient is grad * conj(beta), which the engine reduces to self's shape.
autograd::BackwardFn product_backward(autograd::OpRecorder& rec, size_t first, const Tensor& a,
                                      const Tensor& b, bool batched, const Scalar& beta,
                                      const Scalar& alpha) {
  auto sa = rec.save_if(rec.needs(first + 1), a), sb = rec.save_if(rec.needs(first), b);
  return [sa, sb, first, batched, beta = conj_scalar(beta), alpha = conj_scalar(alpha)](
             BackwardContext& c) -> variable_list {
    const Tensor& g = c.grads[0];
    variable_list out(first + 2);
    if (first == 1 && c.needs(0)) out[0] = scaled(g, beta);
    if (c.needs(first)) {
      const Tensor bh = mh(c.unpack(sb));
      out[first] = scaled(batched ? g.bmm(bh) : g.mm(bh), alpha);
    }
    if (c.needs(first + 1)) {
      const Tensor ah = mh(c.unpack(sa));
      out[first + 1] = scaled(batched ? ah.bmm(g) : ah.mm(g), alpha);
    }
    return out;
  };
}

// d(beta * self + alpha * (mat @ vec)) for mv (first = 0) and addmv (first = 1).
autograd::BackwardFn matvec_backward(autograd::OpRecorder& rec, size_t first, const Tensor& mat,
                                     const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  auto sm = rec.save_if(rec.needs(first + 1), mat), sv = rec.save_if(rec.needs(first), vec);
  return [sm, sv, first, beta = conj_scalar(beta), alpha = conj_scalar(alpha)](
             BackwardContext& c) -> variable_list {
    const Tensor& g = c.grads[0];
    variable_list out(first + 2);
    if (first == 1 && c.needs(0)) out[0] = scaled(g, beta);
    if (c.needs(first)) out[first] = scaled(g.unsqueeze(1) * c.unpack(sv).conj().unsqueeze(0), alpha);
    if (c.needs(first + 1)) out[first + 1] = scaled(mh(c.unpack(sm)).mv(g), alpha);
    return out;
  };
}

// d(matmul(a, b)) for every broadcasting case. Gradients of broadcast batch
// dims come back at the broadcast shape; the engine sums them to the inputs'.
autograd::BackwardFn matmul_backward(autograd::OpRecorder& rec, const Tensor& a, const Tensor& b) {
  auto sa = rec.save_if(rec.needs(1), a), sb = rec.save_if(rec.needs(0), b);
  return [sa, sb, da = a.dim(), db = b.dim()](BackwardContext& c) -> variable_list {
    const Tensor& g = c.grads[0];
    Tensor ga, gb;
    if (da == 1 && db == 1) {  // dot
      if (c.needs(0)) ga = g * c.unpack(sb).conj();
      if (c.needs(1)) gb = g * c.unpack(sa).conj();
      return {ga, gb};
    }
    if (da >= 2 && db <= 2) {
      // The forward folded a's batch dims into rows; so does b's gradient:
      // one [k, rows] x [rows, n] product, no batch of partial products to sum.
      if (c.needs(0)) {
        const Tensor bb = c.unpack(sb);
        ga = db == 1 ? g.unsqueeze(-1) * bb.conj() : g.matmul(mh(bb));
      }
      if (c.needs(1)) {
        const Tensor aa = c.unpack(sa);
        const int64_t rows = prod_front(aa.sizes());
        const Tensor ah = mh(aa.reshape({rows, aa.size(-1)}));
        gb = db == 1 ? ah.mv(g.reshape({rows})) : ah.mm(g.reshape({rows, g.size(-1)}));
      }
      return {ga, gb};
    }
    // Batched (db >= 2 here; a may be 1-d): a 1-d a is a [1, k] row.
    const Tensor g2 = da == 1 ? g.unsqueeze(-2) : g;
    if (c.needs(0)) {
      const Tensor r = g2.matmul(mh(c.unpack(sb)));
      ga = da == 1 ? r.squeeze(-2) : r;
    }
    if (c.needs(1)) {
      const Tensor aa = c.unpack(sa);
      gb = da == 1 ? aa.conj().unsqueeze(-1) * g2 : mh(aa).matmul(g2);
    }
    return {ga, gb};
  };
}

}  // namespace

Tensor matmul(const Tensor& self, const Tensor& other) {
  autograd::OpRecorder rec("matmul", {self, other});
  Tensor out = matmul_impl(self, other, Tensor());
  if (rec) rec.record(out, matmul_backward(rec, self, other));
  return out;
}

Tensor& matmul_out(Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::check_out_arguments("matmul", out, {self, other});
  const MatmulPlan p = plan_matmul(self, other);
  prepare_out(out, p.result, self.dtype(), self.device(), "matmul");
  matmul_impl(self, other, out);
  return out;
}

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_matrices("mm", self, mat2);
  autograd::OpRecorder rec("mm", {self, mat2});
  Tensor out = empty({self.size(0), mat2.size(1)}, self.options());
  run_gemm(self.unsqueeze(0), mat2.unsqueeze(0), out.unsqueeze(0), 0, 1);
  if (rec) rec.record(out, product_backward(rec, 0, self, mat2, false, 0, 1));
  return out;
}

Tensor& mm_out(Tensor& out, const Tensor& self, const Tensor& mat2) {
  autograd::check_out_arguments("mm", out, {self, mat2});
  check_matrices("mm", self, mat2);
  prepare_out(out, {self.size(0), mat2.size(1)}, self.dtype(), self.device(), "mm");
  run_gemm(self.unsqueeze(0), mat2.unsqueeze(0), out.unsqueeze(0), 0, 1);
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  check_batches("bmm", self, mat2);
  autograd::OpRecorder rec("bmm", {self, mat2});
  Tensor out = empty({self.size(0), self.size(1), mat2.size(2)}, self.options());
  run_gemm(self, mat2, out, 0, 1);
  if (rec) rec.record(out, product_backward(rec, 0, self, mat2, true, 0, 1));
  return out;
}

Tensor& bmm_out(Tensor& out, const Tensor& self, const Tensor& mat2) {
  autograd::check_out_arguments("bmm", out, {self, mat2});
  check_batches("bmm", self, mat2);
  prepare_out(out, {self.size(0), self.size(1), mat2.size(2)}, self.dtype(), self.device(), "bmm");
  run_gemm(self, mat2, out, 0, 1);
  return out;
}

namespace {
void addmm_into(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                const Scalar& beta, const Scalar& alpha) {
  check_matrices("addmm", mat1, mat2);
  check_coefficients("addmm", mat1.dtype(), beta, alpha);
  prepare_out(out, {mat1.size(0), mat2.size(1)}, mat1.dtype(), mat1.device(), "addmm");
  seed_with_self("addmm", out, self, beta);
  run_gemm(mat1.unsqueeze(0), mat2.unsqueeze(0), out.unsqueeze(0), beta, alpha);
}
}  // namespace

Tensor& addmm_out(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                  const Scalar& beta, const Scalar& alpha) {
  autograd::check_out_arguments("addmm", out, {self, mat1, mat2});
  addmm_into(out, self, mat1, mat2, beta, alpha);
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  check_matrices("addmm", mat1, mat2);
  autograd::OpRecorder rec("addmm", {self, mat1, mat2});
  Tensor out = empty({mat1.size(0), mat2.size(1)}, mat1.options());
  addmm_into(out, self, mat1, mat2, beta, alpha);
  if (rec) rec.record(out, product_backward(rec, 1, mat1, mat2, false, beta, alpha));
  return out;
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  check_batches("baddbmm", batch1, batch2);
  check_coefficients("baddbmm", batch1.dtype(), beta, alpha);
  autograd::OpRecorder rec("baddbmm", {self, batch1, batch2});
  Tensor out = empty({batch1.size(0), batch1.size(1), batch2.size(2)}, batch1.options());
  seed_with_self("baddbmm", out, self, beta);
  run_gemm(batch1, batch2, out, beta, alpha);
  if (rec) rec.record(out, product_backward(rec, 1, batch1, batch2, true, beta, alpha));
  return out;
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  check_matrix_vector("addmv", mat, vec);
  check_coefficients("addmv", mat.dtype(), beta, alpha);
  autograd::OpRecorder rec("addmv", {self, mat, vec});
  Tensor out = empty({mat.size(0)}, mat.options());
  seed_with_self("addmv", out, self, beta);
  run_gemm(mat.unsqueeze(0), as_column(vec), as_column(out), beta, alpha);
  if (rec) rec.record(out, matvec_backward(rec, 1, mat, vec, beta, alpha));
  return out;
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  check_matrix_vector("mv", self, vec);
  autograd::OpRecorder rec("mv", {self, vec});
  Tensor out = empty({self.size(0)}, self.options());
  run_gemm(self.unsqueeze(0), as_column(vec), as_column(out), 0, 1);
  if (rec) rec.record(out, matvec_backward(rec, 0, self, vec, 0, 1));
  return out;
}

Tensor dot(const Tensor& self, const Tensor& other) {
  autograd::OpRecorder rec("dot", {self, other});
  Tensor out = dot_impl("dot", self, other, false);
  if (rec) {
    auto sa = rec.save_if(rec.needs(1), self), sb = rec.save_if(rec.needs(0), other);
    rec.record(out, [sa, sb](BackwardContext& c) -> variable_list {
      const Tensor& g = c.grads[0];
      return {c.needs(0) ? g * c.unpack(sb).conj() : Tensor(), c.needs(1) ? g * c.unpack(sa).conj() : Tensor()};
    });
  }
  return out;
}

// vdot(a, b) = sum(conj(a) * b): d/da = conj(grad) * b, d/db = grad * a.
Tensor vdot(const Tensor& self, const Tensor& other) {
  autograd::OpRecorder rec("vdot", {self, other});
  Tensor out = dot_impl("vdot", self, other, true);
  if (rec) {
    auto sa = rec.save_if(rec.needs(1), self), sb = rec.save_if(rec.needs(0), other);
    rec.record(out, [sa, sb](BackwardContext& c) -> variable_list {
      const Tensor& g = c.grads[0];
      return {c.needs(0) ? g.conj() * c.unpack(sb) : Tensor(), c.needs(1) ? g * c.unpack(sa) : Tensor()};
    });
  }
  return out;
}

// A broadcast product of recorded views: its gradients flow through mul.
Tensor outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.defined() && vec2.defined(), "outer: got an undefined tensor");
  EMBER_CHECK(self.dim() == 1 && vec2.dim() == 1, "outer: expected 1-D vectors, but got ", self.dim(),
              "-D and ", vec2.dim(), "-D tensors");
  return mul(self.unsqueeze(1), vec2.unsqueeze(0));
}
Tensor ger(const Tensor& self, const Tensor& vec2) { return outer(self, vec2); }

// ---- Tensor methods ----
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return ember::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return ember::bmm(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }
Tensor Tensor::vdot(const Tensor& other) const { return ember::vdot(*this, other); }
Tensor Tensor::outer(const Tensor& vec2) const { return ember::outer(*this, vec2); }
Tensor Tensor::ger(const Tensor& vec2) const { return ember::outer(*this, vec2); }

Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}
Tensor& Tensor::addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                       const Scalar& alpha) {
  check_matrices("addmm_", mat1, mat2);
  check_coefficients("addmm_", mat1.dtype(), beta, alpha);
  EMBER_CHECK(dtype() == mat1.dtype(), "addmm_: expected self to have dtype ", mat1.dtype(),
              ", but got ", dtype());
  EMBER_CHECK(sizes() == IntArrayRef({mat1.size(0), mat2.size(1)}), "addmm_: self of shape ",
              sizes(), " doesn't match the product shape [", mat1.size(0), ", ", mat2.size(1), "]");
  if (autograd::inplace_records(*this, {mat1, mat2}))
    return autograd::assign_inplace(*this, ember::addmm(*this, mat1, mat2, beta, alpha), "addmm_");
  run_gemm(mat1.unsqueeze(0), mat2.unsqueeze(0), unsqueeze(0), beta, alpha);
  return *this;
}
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return ember::baddbmm(*this, batch1, batch2, beta, alpha);
}
Tensor& Tensor::baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                         const Scalar& alpha) {
  check_batches("baddbmm_", batch1, batch2);
  check_coefficients("baddbmm_", batch1.dtype(), beta, alpha);
  EMBER_CHECK(dtype() == batch1.dtype(), "baddbmm_: expected self to have dtype ", batch1.dtype(),
              ", but got ", dtype());
  EMBER_CHECK(sizes() == IntArrayRef({batch1.size(0), batch1.size(1), batch2.size(2)}),
              "baddbmm_: self of shape ", sizes(), " doesn't match the product shape [",
              batch1.size(0), ", ", batch1.size(1), ", ", batch2.size(2), "]");
  if (autograd::inplace_records(*this, {batch1, batch2}))
    return autograd::assign_inplace(*this, ember::baddbmm(*this, batch1, batch2, beta, alpha), "baddbmm_");
  run_gemm(batch1, batch2, *this, beta, alpha);
  return *this;
}
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor& Tensor::addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                       const Scalar& alpha) {
  check_matrix_vector("addmv_", mat, vec);
  check_coefficients("addmv_", mat.dtype(), beta, alpha);
  EMBER_CHECK(dtype() == mat.dtype(), "addmv_: expected self to have dtype ", mat.dtype(),
              ", but got ", dtype());
  EMBER_CHECK(dim() == 1 && size(0) == mat.size(0), "addmv_: self of shape ", sizes(),
              " doesn't match the product shape [", mat.size(0), "]");
  if (autograd::inplace_records(*this, {mat, vec}))
    return autograd::assign_inplace(*this, ember::addmv(*this, mat, vec, beta, alpha), "addmv_");
  run_gemm(mat.unsqueeze(0), as_column(vec), as_column(*this), beta, alpha);
  return *this;
}

}  // namespace ember
