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
#include "kernels/slots/scan_kernels.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(scan_slot, ScanFn, "scan", kScanOpNames, static_cast<int>(std::size(kScanOpNames)));
EMBER_DEFINE_FAMILY_SLOT(cum_min_max_slot, CumMinMaxFn, "cum_min_max", kCumMinMaxOpNames,
                         static_cast<int>(std::size(kCumMinMaxOpNames)));

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
    scan_slot(self.device())(in, out, dim, op);
  } else {
    Tensor tmp = empty(self.sizes(), TensorOptions(dtype).device(self.device()));
    scan_slot(self.device())(in, tmp, dim, op);
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
  if (self.numel() > 0) cum_min_max_slot(self.device())(self.contiguous(), values, indices, d, is_max);
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

// d out_j / d x_k = prod_{i <= j, i != k} x_i for j >= k: PyTorch's
// cumprod_backward, step for step, so that zeros, infinities and NaNs give
// the same gradients (inf * 0 and inf / inf make NaNs whose places depend on
// the order of the operations; masked_fill keeps masked-out infinities out).
// Without zeros that is reversed_cumsum(grad * out)_k / x_k. With zeros:
//  - first order (grad mode off), with z1 the first zero of a slice: positions
//    before z1 use the same formula on the masked prefix; z1 gets
//    out_{z1-1} * sum_{z1 <= j < z2} grad_j * prod_{z1 < i <= j} x_i (z2 the
//    second zero); later positions get 0;
//  - under create_graph that shortcut's derivative is wrong (the gradient of
//    later positions depends on x_z1), so the products that omit x_k are built
//    for every k as prod(x[:k]) * cumprod(x[k+1:]), O(n^2) (as PyTorch).
Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& output) {
  if (input.dim() == 0 || input.numel() <= 1 || input.size(dim) == 1) return grad;
  const Tensor input_conj = autograd::maybe_conj(input), output_conj = autograd::maybe_conj(output);
  const Tensor w = output_conj * grad;
  const Tensor is_zero = eq(input, 0);
  if (!is_zero.any().item<bool>()) return reversed_cumsum(w, dim) / input_conj;
  if (!is_grad_enabled()) {
    Tensor grad_input = zeros(input.sizes(), grad.options());
    const Tensor zeros_seen = is_zero.cumsum(dim);
    // Before the first zero: [0, z1).
    Tensor mask = eq(zeros_seen, 0);
    grad_input.masked_scatter_(mask, (reversed_cumsum(w.masked_fill(logical_not(mask), 0), dim) / input_conj)
                                         .masked_select(mask));
    // The first zero z1 (first_zero_mask), and (z1, z2) (mask).
    mask = eq(zeros_seen, 1);
    const Tensor first_zero_index = mask.max(dim, true).second;
    const Tensor first_zero_mask =
        logical_and(zeros_like(mask).scatter_(dim, first_zero_index, Scalar(true)), mask);
    mask = logical_and(mask, logical_not(first_zero_mask));
    // out_{z1 - 1}, or 1 where z1 is the first position.
    const Tensor before_first = output_conj.gather(dim, (first_zero_index - 1).clamp_min(0))
                                    .masked_fill(eq(first_zero_index, 0), 1);
    const Tensor at_first = (input_conj.masked_fill(logical_not(mask), 1).cumprod(dim) *
                             grad.masked_fill(ne(zeros_seen, 1), 0))
                                .sum({dim}, true) *
                            before_first;
    grad_input.masked_scatter_(first_zero_mask, at_first.masked_select(first_zero_mask));
    return grad_input;
  }
  // Differentiable: row k is sum_{j >= k} grad_j * prod_{i <= j, i != k} x_i.
  const int64_t n = input.size(dim);
  DimVector ones_size(input.sizes());
  ones_size[dim] = 1;
  const Tensor ones = ember::ones({1}, grad.options()).expand(ones_size);
  std::vector<Tensor> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    Tensor omitted_products;
    if (k == 0) {
      omitted_products = cat({ones, input_conj.slice(dim, k + 1).cumprod(dim)}, dim);
    } else if (k == n - 1) {
      omitted_products = input_conj.slice(dim, 0, k).prod(dim, true);
    } else {
      const Tensor prods_until_k = input_conj.slice(dim, 0, k).prod(dim, true);
      const Tensor prods_from_k_plus_1 = input_conj.slice(dim, k + 1).cumprod(dim);
      omitted_products =
          cat({prods_until_k, prods_until_k.expand(prods_from_k_plus_1.sizes()) * prods_from_k_plus_1}, dim);
    }
    rows.push_back((grad.slice(dim, k) * omitted_products).sum({dim}));
  }
  return stack(rows, dim);
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
  // The dtype's lowest finite value (PyTorch's scalar_min): log(0) stand-in
  // that stays finite after subtractions, and fits the dtype (Note [Scalar overflow]).
  const DType dt = grad.dtype();
  const double lowest = dt == kFloat64 ? std::numeric_limits<double>::lowest()
                        : dt == kFloat16 ? -65504.0
                        : dt == kBFloat16 ? -3.3895313892515355e38
                                          : static_cast<double>(std::numeric_limits<float>::lowest());
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
    rec.record(r, [d = wrap_dim(dim, self.dim(), "cumsum"), t = self.dtype()](autograd::BackwardContext& c) {
      // With dtype=, the gradient flows back in the input's dtype (PyTorch's formula).
      return autograd::variable_list{cumsum_backward(c.grads[0].to(t), d)};
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
      // With dtype=, PyTorch's formula: the gradient in the input's dtype,
      // with the output as computed (cumprod_backward promotes the two).
      const Tensor self_ = c.unpack(s);
      return autograd::variable_list{cumprod_backward(c.grads[0].to(self_.dtype()), self_, d, c.unpack(o))};
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
