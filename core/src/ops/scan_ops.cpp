// Scans along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp. The op
// converts the input to the result dtype and makes it contiguous; kernels in
// kernels/cpu/scan_kernels.cpp compute on contiguous data.
#include <limits>

#include "autograd/formulas.h"
#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
#include "ember/ops/scan.h"
#include "ember/ops/shape.h"
#include "ops/conj_views.h"
#include "ops/op_utils.h"
#include "ops/out_resize.h"
#include "ops/scan_kernels.h"

namespace ember {

EMBER_DEFINE_STUB(scan_stub, ScanFn, "scan");
EMBER_DEFINE_STUB(cum_min_max_stub, CumMinMaxFn, "cum_min_max");

namespace {

DType scan_dtype(const Tensor& self, std::optional<DType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}

// Scans `self` (converted to `dtype`) into `out`, which has self's shape.
void run_scan(const Tensor& self, Tensor& out, int64_t dim, DType dtype, ScanOp op) {
  if (self.numel() == 0) return;
  const Tensor in = resolve_bits(self).to(dtype).contiguous();  // Note [Conjugate bit]: one copy, no snapshot
  if (out.is_contiguous()) {
    scan_stub(self.device())(in, out, dim, op);
  } else {
    Tensor tmp = empty(self.sizes(), TensorOptions(dtype).device(self.device()));
    scan_stub(self.device())(in, tmp, dim, op);
    out.copy_(tmp);
  }
}

Tensor scan(const Tensor& self, int64_t dim, DType dtype, ScanOp op, const char* name) {
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  const int64_t d = wrap_dim(dim, self.dim(), name);
  Tensor out = empty(self.sizes(), TensorOptions(dtype).device(self.device()));
  run_scan(self, out, d, dtype, op);
  return out;
}

Tensor& scan_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<DType> dtype, ScanOp op,
                 const char* name) {
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  const int64_t d = wrap_dim(dim, self.dim(), name);
  EMBER_CHECK(!dtype || *dtype == out.dtype(), name, ": Expected out tensor to have dtype ", *dtype,
              ", but got ", out.dtype(), " instead");
  resize_out(out, self.sizes(), name);
  run_scan(self, out, d, out.dtype(), op);
  return out;
}

std::pair<Tensor, Tensor> cum_min_max(const Tensor& self, int64_t dim, bool is_max) {
  const char* name = is_max ? "cummax" : "cummin";
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  EMBER_CHECK(!self.is_complex(), name, ": complex inputs are not supported (got ", self.dtype(), ")");
  const int64_t d = wrap_dim(dim, self.dim(), name);
  Tensor values = empty(self.sizes(), self.options());
  Tensor indices = empty(self.sizes(), TensorOptions(kInt64).device(self.device()));
  if (self.numel() > 0) cum_min_max_stub(self.device())(self.contiguous(), values, indices, d, is_max);
  return {values, indices};
}

}  // namespace

// ---- backward formulas (PyTorch's cumsum/cumprod/cummaxmin/logcumsumexp_backward) ----
namespace {

// Sums from each position to the end of dim.
Tensor reversed_cumsum(const Tensor& t, int64_t dim) { return t.flip({dim}).cumsum(dim).flip({dim}); }

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() <= 1 || grad.size(dim) == 1) return grad;
  return reversed_cumsum(grad, dim);
}

// d out_j / d x_k = prod_{i <= j, i != k} x_i for j >= k. Without zeros that
// is out_j / x_k: grad_k = reversed_cumsum(grad * out)_k / x_k. With zeros:
//  - first order (grad mode off): positions before the first zero use the
//    same formula; the first zero gets sum_{j >= z} grad_j * cumprod(x with
//    x_z = 1)_j; later positions get 0 (their products all hold x_z = 0);
//  - under create_graph that shortcut's derivative is wrong (the gradient of
//    later positions depends on x_z), so the products that omit x_k are built
//    for every k as an n x n triangle, O(n^2) (PyTorch does the same).
Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& output) {
  if (input.dim() == 0 || input.numel() <= 1 || input.size(dim) == 1) return grad;
  const Tensor is_zero = eq(input, 0);
  if (!is_zero.any().item<bool>())
    return reversed_cumsum(grad * autograd::maybe_conj(output), dim) / autograd::maybe_conj(input);
  const DType real = to_real_dtype(input.dtype());
  if (!is_grad_enabled()) {
    const Tensor zeros_seen = is_zero.cumsum(dim);
    const Tensor before = eq(zeros_seen, 0);
    const Tensor first_zero = logical_and(is_zero, eq(zeros_seen, 1));
    const Tensor before_f = before.to(real);
    // Before the first zero: x is non-zero (made 1 elsewhere to divide safely).
    const Tensor x_safe = input * before_f + (1.0 - before_f);
    const Tensor g_before =
        reversed_cumsum(grad * autograd::maybe_conj(output), dim) / autograd::maybe_conj(x_safe) * before_f;
    const Tensor first_f = first_zero.to(real);
    const Tensor omitted = (input * (1.0 - first_f) + first_f).cumprod(dim);
    const Tensor g_first = reversed_cumsum(grad * autograd::maybe_conj(omitted), dim) * first_f;
    return g_before + g_first;
  }
  // Differentiable O(n^2) form: row k of X holds x with x_k replaced by 1;
  // its cumprod, kept for j >= k (triu), is d out_j / d x_k.
  const int64_t n = input.size(dim);
  const Tensor x = input.movedim(dim, -1);  // (..., n)
  DimVector square(x.sizes());
  square.push_back(n);  // (..., n(k), n(i))
  const Tensor eye_n = eye(n, TensorOptions(real));
  const Tensor rows = x.unsqueeze(-2).expand(square) * (1.0 - eye_n) + eye_n;
  const Tensor partial = rows.cumprod(-1).triu();  // [k, j] = d out_j / d x_k
  const Tensor g = grad.movedim(dim, -1).unsqueeze(-2);  // (..., 1, n(j))
  return (g * autograd::maybe_conj(partial)).sum({-1}).movedim(-1, dim);
}

// Each value's gradient goes to the index where the running max/min was attained.
Tensor cummaxmin_backward(const Tensor& grad, const Tensor& input, const Tensor& indices, int64_t dim) {
  if (input.dim() == 0 || input.numel() == 0) return grad;
  return zeros(input.sizes(), grad.options()).scatter_add(dim, indices, grad);
}

// grad_k = sum_{j >= k} grad_j exp(x_k - out_j), computed in log space for
// positive and negative gradients separately (PyTorch's formula, after TensorFlow's).
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  auto reverse_logcumsumexp = [dim](const Tensor& t) { return t.flip({dim}).logcumsumexp(dim).flip({dim}); };
  const double lowest = std::numeric_limits<double>::lowest();
  const Tensor lowest_t = full({}, lowest, grad.options());
  const Tensor log_abs_grad = grad.abs().log();
  const Tensor log_grad_positive = where(gt(grad, 0), log_abs_grad, lowest_t);
  const Tensor log_grad_negative = where(lt(grad, 0), log_abs_grad, lowest_t);
  const Tensor output_pos = (reverse_logcumsumexp(log_grad_positive - result) + self).exp();
  const Tensor output_neg = (reverse_logcumsumexp(log_grad_negative - result) + self).exp();
  return output_pos - output_neg;
}

}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  autograd::OpRecorder rec("cumsum", {self});
  Tensor r = scan(self, dim, scan_dtype(self, dtype), ScanOp::Sum, "cumsum");
  if (rec)
    rec.record(r, [d = wrap_dim(dim, self.dim(), "cumsum")](autograd::BackwardContext& c) {
      return autograd::variable_list{cumsum_backward(c.grads[0], d)};
    });
  return r;
}
Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  autograd::check_out_arguments("cumsum", out, {self});
  return scan_out(out, self, dim, dtype, ScanOp::Sum, "cumsum");
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  autograd::OpRecorder rec("cumprod", {self});
  Tensor r = scan(self, dim, scan_dtype(self, dtype), ScanOp::Prod, "cumprod");
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r), d = wrap_dim(dim, self.dim(), "cumprod")](
                      autograd::BackwardContext& c) {
      return autograd::variable_list{cumprod_backward(c.grads[0], c.unpack(s), d, c.unpack(o))};
    });
  return r;
}
Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  autograd::check_out_arguments("cumprod", out, {self});
  return scan_out(out, self, dim, dtype, ScanOp::Prod, "cumprod");
}

namespace {
std::pair<Tensor, Tensor> recorded_cum_min_max(const Tensor& self, int64_t dim, bool is_max) {
  autograd::OpRecorder rec(is_max ? "cummax" : "cummin", {self});
  auto [values, indices] = cum_min_max(self, dim, is_max);
  if (rec)
    rec.record({values}, [i = rec.save(indices), s = rec.save(self), d = wrap_dim(dim, self.dim(), "cummax")](
                             autograd::BackwardContext& c) {
      return autograd::variable_list{cummaxmin_backward(c.grads[0], c.unpack(s), c.unpack(i), d)};
    });
  return {values, indices};
}
}  // namespace

std::pair<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { return recorded_cum_min_max(self, dim, true); }
std::pair<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { return recorded_cum_min_max(self, dim, false); }

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.defined(), "logcumsumexp: input tensor is undefined");
  EMBER_CHECK(self.is_floating_point(), "logcumsumexp: expected a floating point tensor, got ", self.dtype());
  autograd::OpRecorder rec("logcumsumexp", {self});
  Tensor r = scan(self, dim, self.dtype(), ScanOp::LogSumExp, "logcumsumexp");
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r), d = wrap_dim(dim, self.dim(), "logcumsumexp")](
                      autograd::BackwardContext& c) {
      return autograd::variable_list{logcumsumexp_backward(c.grads[0], c.unpack(s), c.unpack(o), d)};
    });
  return r;
}

// ---- Tensor methods ----
Tensor Tensor::cumsum(int64_t dim, std::optional<DType> dtype) const { return ember::cumsum(*this, dim, dtype); }
Tensor Tensor::cumprod(int64_t dim, std::optional<DType> dtype) const { return ember::cumprod(*this, dim, dtype); }
Tensor& Tensor::cumsum_(int64_t dim, std::optional<DType> dtype) {
  if (autograd::inplace_records(*this))
    return autograd::assign_inplace(*this, ember::cumsum(*this, dim, dtype.value_or(this->dtype())), "cumsum_");
  return cumsum_out(*this, *this, dim, dtype.value_or(this->dtype()));
}
Tensor& Tensor::cumprod_(int64_t dim, std::optional<DType> dtype) {
  // cumprod saves its input for backward: it must not be the tensor copy_ then overwrites.
  if (autograd::inplace_records(*this))
    return autograd::assign_inplace(*this, ember::cumprod(clone(), dim, dtype.value_or(this->dtype())), "cumprod_");
  return cumprod_out(*this, *this, dim, dtype.value_or(this->dtype()));
}
std::pair<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ember::cummax(*this, dim); }
std::pair<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ember::cummin(*this, dim); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return ember::logcumsumexp(*this, dim); }

}  // namespace ember
