// Reductions: dim handling, output dtypes and shapes. Kernels in
// kernels/cpu/reduce_kernels.cpp through the engine in kernels/cpu/reduce_engine.h.
#include <cmath>
#include <limits>

#include "autograd/formulas.h"
#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ember/ops/scan.h"
#include "ember/ops/shape.h"
#include "ops/conj_views.h"
#include "ops/op_utils.h"
#include "kernels/slots/reduce_kernels.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(reduce_slot, ReduceFn, "reduce", kReduceOpNames,
                         static_cast<int>(std::size(kReduceOpNames)));
EMBER_DEFINE_FAMILY_SLOT(arg_reduce_slot, ArgReduceFn, "arg_reduce", kArgReduceOpNames,
                         static_cast<int>(std::size(kArgReduceOpNames)));

namespace {
// Entry points read self's dtype before reduce() runs: check it exists first.
const Tensor& defined(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), op, ": input tensor is undefined");
  return t;
}

DimVector keepdim_shape(const Tensor& t, uint64_t mask) {
  DimVector shape(t.sizes());
  for (int64_t d = 0; d < t.dim(); ++d)
    if (mask >> d & 1) shape[d] = 1;
  return shape;
}

Tensor squeeze_reduced(const Tensor& out, uint64_t mask, bool keepdim) {
  if (keepdim) return out;
  DimVector dims;
  for (int64_t d = 0; d < out.dim(); ++d)
    if (mask >> d & 1) dims.push_back(d);
  if (dims.empty()) return out;
  DimVector sizes, strides;
  for (int64_t d = 0; d < out.dim(); ++d)
    if (!(mask >> d & 1)) {
      sizes.push_back(out.size(d));
      strides.push_back(out.stride(d));
    }
  return out.as_strided(sizes, strides);
}

void check_nonempty(const Tensor& t, uint64_t mask, const char* op) {
  if (t.numel() != 0) return;
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(!((mask >> d & 1) && t.size(d) == 0), op, "(): Expected reduction dim ", d,
                " to have non-zero size (input sizes ", t.sizes(), ")");
  EMBER_CHECK(t.dim() != 0 || t.numel() != 0, op, "(): Expected a non-empty tensor");
}

Tensor reduce(const Tensor& self, IntArrayRef dims, bool keepdim, DType out_dtype, ReduceOp op,
              const char* name, const ReduceParams& params = {}) {
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  const uint64_t mask = dims_to_mask(dims, self.dim(), name);
  Tensor out = empty(keepdim_shape(self, mask), TensorOptions(out_dtype).device(self.device()));
  if (self.numel() == 0) {
    // Identity of the reduction (mean of nothing is 0 / 0: nan, and nan + nan i
    // for complex, as PyTorch).
    switch (op) {
      case ReduceOp::Prod: case ReduceOp::All: out.fill_(1); break;
      case ReduceOp::Mean: case ReduceOp::Var:
        out.fill_(is_complex(out_dtype) ? Scalar(complex128(NAN, NAN)) : Scalar(NAN));
        break;
      // amax, amin and the infinity norms reject reducing over an empty dim
      // (check_nonempty): for them out is empty here.
      case ReduceOp::Sum: case ReduceOp::Any: case ReduceOp::CountNonzero: case ReduceOp::NormP:
      case ReduceOp::Norm0: case ReduceOp::NormInf: case ReduceOp::NormNegInf: case ReduceOp::Amax:
      case ReduceOp::Amin:
        out.fill_(0);
        break;
    }
  } else {
    // Resolving here costs one copy; the slot's generic path would also snapshot it.
    reduce_slot(self.device())(resolve_bits(self), out, mask, op, params);
  }
  return squeeze_reduced(out, mask, keepdim);
}

DType sum_dtype(const Tensor& self, std::optional<DType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}
}  // namespace

Tensor sum(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  autograd::OpRecorder rec("sum", {self});
  Tensor r = reduce(self, dims, keepdim, sum_dtype(defined(self, "sum"), dtype), ReduceOp::Sum, "sum");
  if (rec)
    rec.record(r, [sizes = DimVector(self.sizes()), d = DimVector(dims), keepdim](autograd::BackwardContext& c) {
      return autograd::variable_list{autograd::expand_reduced(c.grads[0], sizes, d, keepdim)};
    });
  return r;
}
Tensor sum(const Tensor& self, std::optional<DType> dtype) { return sum(self, {}, false, dtype); }
Tensor mean(const Tensor& self, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  const DType t = dtype.value_or(defined(self, "mean").dtype());
  EMBER_CHECK(is_floating_point(t) || is_complex(t),
              "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: ",
              t);
  autograd::OpRecorder rec("mean", {self});
  Tensor r = reduce(self, dims, keepdim, t, ReduceOp::Mean, "mean");
  if (rec) {
    const int64_t n = r.numel() == 0 ? 0 : self.numel() / r.numel();
    rec.record(r, [sizes = DimVector(self.sizes()), d = DimVector(dims), keepdim, n](autograd::BackwardContext& c) {
      return autograd::variable_list{autograd::expand_reduced(c.grads[0] / static_cast<double>(n), sizes, d, keepdim)};
    });
  }
  return r;
}
Tensor mean(const Tensor& self, std::optional<DType> dtype) { return mean(self, {}, false, dtype); }

// ---- prod backward (PyTorch's prod_backward) ----
namespace {
// d prod / d x_k = prod of the others, without dividing by x_k: exclusive
// cumulative products from the front and from the back, multiplied (safe
// with zeros in the input).
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& inp, int64_t dim) {
  if (inp.numel() == 0) return grad.expand(inp.sizes());
  const int64_t n = inp.size(dim);
  if (n == 1) return grad;
  DimVector ones_size(inp.sizes());
  ones_size[dim] = 1;
  Tensor one = ones(ones_size, inp.options());
  Tensor exclusive_normal = cat({one, inp.narrow(dim, 0, n - 1)}, dim).cumprod(dim);
  Tensor exclusive_reverse = cat({one, inp.narrow(dim, 1, n - 1).flip({dim})}, dim).cumprod(dim).flip({dim});
  return grad * autograd::maybe_conj(exclusive_normal * exclusive_reverse);
}

// Full product.
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  if (input.dim() == 0) return grad;
  const int64_t zeros_count = eq(input, 0).sum().item<int64_t>();
  if (zeros_count == 0) return grad * autograd::maybe_conj(result / input);
  // Two zeros or more: every partial product is zero (not so for its derivative).
  if (zeros_count > 1 && !is_grad_enabled()) return zeros(input.sizes(), grad.options());
  return prod_safe_zeros_backward(grad, input.reshape({-1}), 0).reshape(input.sizes());
}

// The input as the product saw it: prod(x, dtype=d) multiplies x.to(d)
// (PyTorch's prod_backward(grad, self.to(grad.scalar_type()), result)), so
// prod([0.6+1j, 0.7-2j], dtype=float64) has the gradient [0.7, 0.6].
Tensor as_grad_dtype(const Tensor& input, const Tensor& grad) {
  return input.dtype() == grad.dtype() ? input : input.to(grad.dtype());
}

// Product along dim.
Tensor prod_backward(Tensor grad, const Tensor& input, Tensor result, int64_t dim, bool keepdim) {
  if (input.dim() == 0) return grad;
  dim = wrap_dim(dim, input.dim(), "prod_backward");
  if (!keepdim) {
    grad = grad.unsqueeze(dim);
    result = result.unsqueeze(dim);
  }
  if (!eq(input, 0).any().item<bool>()) return grad * autograd::maybe_conj(result / input);
  return prod_safe_zeros_backward(grad, input, dim);
}
}  // namespace

Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<DType> dtype) {
  autograd::OpRecorder rec("prod", {self});
  Tensor r = reduce(self, IntArrayRef(dim), keepdim, sum_dtype(defined(self, "prod"), dtype), ReduceOp::Prod, "prod");
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r), dim, keepdim](autograd::BackwardContext& c) {
      return autograd::variable_list{
          prod_backward(c.grads[0], as_grad_dtype(c.unpack(s), c.grads[0]), c.unpack(o), dim, keepdim)};
    });
  return r;
}
Tensor prod(const Tensor& self, std::optional<DType> dtype) {
  autograd::OpRecorder rec("prod", {self});
  Tensor r = reduce(self, {}, false, sum_dtype(defined(self, "prod"), dtype), ReduceOp::Prod, "prod");
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r)](autograd::BackwardContext& c) {
      return autograd::variable_list{prod_backward(c.grads[0], as_grad_dtype(c.unpack(s), c.grads[0]), c.unpack(o))};
    });
  return r;
}

namespace {
// amax/amin: the gradient is shared evenly by the elements equal to the
// result (PyTorch's scale_grad_by_count); the mask is a constant, so this is
// differentiable in grad with mul/div only.
void record_amax_amin(autograd::OpRecorder& rec, const Tensor& self, const Tensor& r, IntArrayRef dims, bool keepdim) {
  rec.record(r, [s = rec.save(self), o = rec.save_output(r), d = DimVector(dims), keepdim](autograd::BackwardContext& c) {
    const Tensor x = c.unpack(s);
    const Tensor g = autograd::unsqueeze_reduced(c.grads[0], x.dim(), d, keepdim);
    const Tensor mask = eq(autograd::unsqueeze_reduced(c.unpack(o), x.dim(), d, keepdim), x);
    return autograd::variable_list{g / mask.sum(d, true) * mask};
  });
}

Tensor full_max_min(const Tensor& self, bool is_max) {
  const char* name = is_max ? "max" : "min";
  autograd::OpRecorder rec(name, {self});
  Tensor r = is_max ? amax(self) : amin(self);
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r)](autograd::BackwardContext& c) {
      return autograd::variable_list{autograd::evenly_distribute_backward(c.grads[0], c.unpack(s), c.unpack(o))};
    });
  return r;
}
}  // namespace

Tensor amax(const Tensor& self, IntArrayRef dims, bool keepdim) {
  EMBER_CHECK(!defined(self, "amax").is_complex(), "amax: complex inputs are not supported (got ", self.dtype(), ")");
  check_nonempty(self, dims_to_mask(dims, self.dim(), "amax"), "amax");
  autograd::OpRecorder rec("amax", {self});
  Tensor r = reduce(self, dims, keepdim, self.dtype(), ReduceOp::Amax, "amax");
  if (rec) record_amax_amin(rec, self, r, dims, keepdim);
  return r;
}
Tensor amin(const Tensor& self, IntArrayRef dims, bool keepdim) {
  EMBER_CHECK(!defined(self, "amin").is_complex(), "amin: complex inputs are not supported (got ", self.dtype(), ")");
  check_nonempty(self, dims_to_mask(dims, self.dim(), "amin"), "amin");
  autograd::OpRecorder rec("amin", {self});
  Tensor r = reduce(self, dims, keepdim, self.dtype(), ReduceOp::Amin, "amin");
  if (rec) record_amax_amin(rec, self, r, dims, keepdim);
  return r;
}
Tensor max(const Tensor& self) {
  EMBER_CHECK(defined(self, "max").numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  return full_max_min(self, true);
}
Tensor min(const Tensor& self) {
  EMBER_CHECK(defined(self, "min").numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  return full_max_min(self, false);
}

namespace {
std::pair<Tensor, Tensor> arg_reduce(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                                     ArgReduceOp op, const char* name) {
  EMBER_CHECK(!defined(self, name).is_complex(), name, ": complex inputs are not supported (got ", self.dtype(), ")");
  const uint64_t mask = dim ? dims_to_mask(IntArrayRef(*dim), self.dim(), name)
                            : dims_to_mask({}, self.dim(), name);
  if (dim) check_nonempty(self, mask, name);
  else EMBER_CHECK(self.numel() > 0, name, ": Expected reduction dim to be specified for input.numel() == 0.");
  DimVector shape = keepdim_shape(self, mask);
  Tensor values = empty(shape, self.options());
  Tensor indices = empty(shape, TensorOptions(kInt64).device(self.device()));
  if (self.numel() > 0) arg_reduce_slot(self.device())(resolve_bits(self), values, indices, mask, op);
  return {squeeze_reduced(values, mask, keepdim || !dim ? keepdim : false),
          squeeze_reduced(indices, mask, keepdim)};
}
}  // namespace

namespace {
// max(dim)/min(dim): the value's gradient goes to its index only.
std::pair<Tensor, Tensor> max_min_dim(const Tensor& self, int64_t dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "max" : "min";
  autograd::OpRecorder rec(name, {self});
  auto [values, indices] = arg_reduce(self, dim, keepdim, is_max ? ArgReduceOp::Max : ArgReduceOp::Min, name);
  if (rec) {
    const int64_t d = wrap_dim(dim, self.dim(), name);
    rec.record({values}, [i = rec.save(indices), sizes = DimVector(self.sizes()), d, keepdim](autograd::BackwardContext& c) {
      return autograd::variable_list{
          autograd::value_selecting_reduction_backward(c.grads[0], d, c.unpack(i), sizes, keepdim)};
    });
  }
  return {values, indices};
}
}  // namespace

std::pair<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  return max_min_dim(self, dim, keepdim, true);
}
std::pair<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  return max_min_dim(self, dim, keepdim, false);
}
namespace {
// Without dim: the index into the flattened input; keepdim keeps every dim as
// size 1 (PyTorch's shape, e.g. [1, 1, 1] for a 3-d input).
Tensor arg_reduce_all(const Tensor& self, bool keepdim, ArgReduceOp op, const char* name) {
  Tensor r = arg_reduce(defined(self, name).reshape({-1}), 0, false, op, name).second;
  if (!keepdim) return r;
  return r.reshape(DimVector(static_cast<size_t>(self.dim()), 1));
}
}  // namespace

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) return arg_reduce_all(self, keepdim, ArgReduceOp::Max, "argmax");
  return arg_reduce(self, dim, keepdim, ArgReduceOp::Max, "argmax").second;
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) return arg_reduce_all(self, keepdim, ArgReduceOp::Min, "argmin");
  return arg_reduce(self, dim, keepdim, ArgReduceOp::Min, "argmin").second;
}

namespace {
// PyTorch's var_backward: 2 / (n - correction) * grad * (x - mean(x)). With
// no degrees of freedom left, a full reduction gives NaN where x equals its
// mean and inf elsewhere (as PyTorch); over dims, 2 / (n - correction) is used as is.
Tensor var_backward(const Tensor& grad, const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  const Tensor g = autograd::unsqueeze_reduced(grad, x.dim(), dims, keepdim);
  int64_t n = 1;
  for (int64_t d : autograd::reduced_dims(dims, x.dim())) n *= x.dim() == 0 ? 1 : x.size(d);
  const double dof = static_cast<double>(n - correction);
  const bool full = dims.empty() || x.dim() == 0;
  if (full && dof <= 0) {
    return g * where(eq(x, x.mean()), std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity());
  }
  return g * (2.0 / dof) * (x - x.mean(dims, true));
}

// PyTorch's std_backward: var_backward(grad / (2 std)), 0 where std is 0.
// std is made 1 there before dividing (a constant mask) and the quotient
// multiplied by the mask: differentiable with add/mul/div only.
Tensor std_backward(const Tensor& grad, const Tensor& result, const Tensor& x, IntArrayRef dims, int64_t correction,
                    bool keepdim) {
  const Tensor zero = eq(result, 0).to(result.dtype());
  const Tensor grad_var = grad / ((result + zero) * 2.0) * (1.0 - zero);
  return var_backward(grad_var, x, dims, correction, keepdim);
}
}  // namespace

Tensor var(const Tensor& self, IntArrayRef dims, int64_t correction, bool keepdim) {
  // Complex (PyTorch): sum |z - mean|^2 / (N - correction), a real result; it
  // is var(real) + var(imag), differentiable through the real()/imag() views.
  if (defined(self, "var").is_complex())
    return var(self.real(), dims, correction, keepdim) + var(self.imag(), dims, correction, keepdim);
  EMBER_CHECK(self.is_floating_point(), "var: expected a floating point or complex tensor, got ", self.dtype());
  autograd::OpRecorder rec("var", {self});
  Tensor r = reduce(self, dims, keepdim, self.dtype(), ReduceOp::Var, "var", {2, correction, false});
  if (rec)
    rec.record(r, [s = rec.save(self), d = DimVector(dims), correction, keepdim](autograd::BackwardContext& c) {
      return autograd::variable_list{var_backward(c.grads[0], c.unpack(s), d, correction, keepdim)};
    });
  return r;
}
Tensor std(const Tensor& self, IntArrayRef dims, int64_t correction, bool keepdim) {
  if (defined(self, "std").is_complex()) {
    // sqrt of the (real) complex variance (see var), with std_backward's rule:
    // no gradient where std is 0 (sqrt's own derivative there is inf * 0 = NaN).
    const Tensor v = var(self, dims, correction, keepdim);
    autograd::OpRecorder rec("std", {v});
    Tensor r = v.sqrt();
    if (rec)
      rec.record(r, [o = rec.save_output(r)](autograd::BackwardContext& c) {
        const Tensor result = c.unpack(o);
        const Tensor zero = eq(result, 0).to(result.dtype());
        return autograd::variable_list{c.grads[0] / ((result + zero) * 2.0) * (1.0 - zero)};
      });
    return r;
  }
  EMBER_CHECK(self.is_floating_point(), "std: expected a floating point or complex tensor, got ", self.dtype());
  autograd::OpRecorder rec("std", {self});
  Tensor r = reduce(self, dims, keepdim, self.dtype(), ReduceOp::Var, "std", {2, correction, true});
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r), d = DimVector(dims), correction,
                   keepdim](autograd::BackwardContext& c) {
      return autograd::variable_list{std_backward(c.grads[0], c.unpack(o), c.unpack(s), d, correction, keepdim)};
    });
  return r;
}

namespace {
// PyTorch's norm_backward. Where it masks a division by a zero norm, the norm
// is made 1 there instead (a constant mask): the numerator is zero in those
// slices anyway, and the formula stays differentiable with mul/div.
Tensor norm_backward(Tensor grad, const Tensor& self, double p, Tensor norm, IntArrayRef dims, bool keepdim) {
  if (p == 0.0) return Tensor();  // piecewise constant: no gradient (as PyTorch)
  grad = autograd::unsqueeze_reduced(grad, self.dim(), dims, keepdim);
  norm = autograd::unsqueeze_reduced(norm, self.dim(), dims, keepdim);
  const Tensor norm_safe = norm + eq(norm, 0).to(norm.dtype());
  if (p == 1.0) return self.sgn() * grad;
  if (p == 2.0) return grad * (self / norm_safe);
  if (std::isinf(p)) {
    // The gradient of amax(abs(self)) (or amin), shared by the ties, NaNs included.
    const Tensor self_abs = self.abs();
    const Tensor mask = logical_or(eq(self_abs, norm), self_abs.isnan());
    return self.sgn() * (grad / mask.sum(dims, true) * mask);
  }
  if (p < 1.0) {
    // |x|^(p-1) is infinite at 0, where sgn(x) = 0: 1 is used instead.
    const Tensor abs_safe = self.abs() + eq(self, 0).to(norm.dtype());
    return self.sgn() * pow(abs_safe, p - 1) * grad * pow(norm, 1 - p);
  }
  // norm^(p-1) is 0 where the norm is 0, and where a tiny norm's power
  // underflows (subnormal float inputs; PyTorch's norm is 0 there, found by
  // ember_difffuzz): every |x|^(p-1) of the slice is below it, so the
  // numerator is 0 too, and dividing by 1 instead gives PyTorch's 0, not NaN.
  Tensor denominator = pow(norm, p - 1);
  denominator = denominator + eq(denominator, 0).to(denominator.dtype());
  if (p < 2.0) return self.sgn() * pow(self.abs(), p - 1) * (grad / denominator);
  return self * pow(self.abs(), p - 2) * (grad / denominator);
}
}  // namespace

Tensor norm(const Tensor& self, const Scalar& p_s, IntArrayRef dims, bool keepdim) {
  EMBER_CHECK(defined(self, "norm").is_floating_point() || self.is_complex(),
              "norm: expected a floating point or complex tensor, got ", self.dtype());
  const double p = p_s.toDouble();
  ReduceOp op = ReduceOp::NormP;
  if (p == 0) op = ReduceOp::Norm0;
  else if (std::isinf(p)) op = p > 0 ? ReduceOp::NormInf : ReduceOp::NormNegInf;
  if (op == ReduceOp::NormInf || op == ReduceOp::NormNegInf)
    check_nonempty(self, dims_to_mask(dims, self.dim(), "norm"), "norm");
  autograd::OpRecorder rec("norm", {self});
  Tensor r = reduce(self, dims, keepdim, to_real_dtype(self.dtype()), op, "norm", {p, 1, false});
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r), p, d = DimVector(dims), keepdim](autograd::BackwardContext& c) {
      return autograd::variable_list{norm_backward(c.grads[0], c.unpack(s), p, c.unpack(o), d, keepdim)};
    });
  return r;
}
Tensor norm(const Tensor& self, const Scalar& p) { return norm(self, p, {}, false); }

// torch.linalg.vector_norm: norm over `dims` (all when empty), the same reduction.
Tensor linalg::vector_norm(const Tensor& x, const Scalar& ord, IntArrayRef dims, bool keepdim) {
  return norm(x, ord, dims, keepdim);
}

namespace {
Tensor logsumexp_forward(const Tensor& self, IntArrayRef dims, bool keepdim);
}

// Backward: grad * exp(x - logsumexp(x)) (the softmax weights), as PyTorch:
// NaN where a slice is all -inf.
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim) {
  autograd::OpRecorder rec("logsumexp", {defined(self, "logsumexp")});
  Tensor r = logsumexp_forward(self, dims, keepdim);
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r), d = DimVector(dims), keepdim](autograd::BackwardContext& c) {
      const Tensor x = c.unpack(s);
      const Tensor g = autograd::unsqueeze_reduced(c.grads[0], x.dim(), d, keepdim);
      return autograd::variable_list{g * exp(x - autograd::unsqueeze_reduced(c.unpack(o), x.dim(), d, keepdim))};
    });
  return r;
}

namespace {
Tensor logsumexp_forward(const Tensor& self, IntArrayRef dims, bool keepdim) {
  Tensor x = is_integral(self.dtype(), true) ? self.to(default_dtype()) : self;
  if (x.numel() == 0) return log(sum(exp(x), dims, keepdim));
  // Shift by the max so exp never overflows; an infinite max is replaced by 0
  // so that inf - inf does not produce nan.
  Tensor m = amax(x, dims, true);
  m = where(isinf(m), zeros({}, m.options()), m);
  Tensor s = log(sum(exp(sub(x, m)), dims, true));
  Tensor out = add(s, m);
  return keepdim ? out : squeeze_reduced(out, dims_to_mask(dims, self.dim(), "logsumexp"), false);
}
}  // namespace

namespace {
DType all_any_dtype(const Tensor& self) { return defined(self, "all/any").dtype() == kUInt8 ? kUInt8 : kBool; }
}  // namespace
Tensor all(const Tensor& self) { return reduce(self, {}, false, all_any_dtype(self), ReduceOp::All, "all"); }
Tensor all(const Tensor& self, int64_t dim, bool keepdim) {
  return reduce(self, IntArrayRef(dim), keepdim, all_any_dtype(self), ReduceOp::All, "all");
}
Tensor any(const Tensor& self) { return reduce(self, {}, false, all_any_dtype(self), ReduceOp::Any, "any"); }
Tensor any(const Tensor& self, int64_t dim, bool keepdim) {
  return reduce(self, IntArrayRef(dim), keepdim, all_any_dtype(self), ReduceOp::Any, "any");
}
Tensor count_nonzero(const Tensor& self, IntArrayRef dims) {
  return reduce(self, dims, false, kInt64, ReduceOp::CountNonzero, "count_nonzero");
}

// ---- Tensor methods ----
Tensor Tensor::sum(std::optional<DType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  return ember::sum(*this, dims, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<DType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  return ember::mean(*this, dims, keepdim, dtype);
}
Tensor Tensor::prod(std::optional<DType> dtype) const { return ember::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<DType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}
Tensor Tensor::max() const { return ember::max(*this); }
Tensor Tensor::min() const { return ember::min(*this); }
std::pair<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return ember::max(*this, dim, keepdim); }
std::pair<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return ember::min(*this, dim, keepdim); }
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const { return ember::amax(*this, dims, keepdim); }
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const { return ember::amin(*this, dims, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const { return ember::argmax(*this, dim, keepdim); }
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const { return ember::argmin(*this, dim, keepdim); }
Tensor Tensor::var(IntArrayRef dims, int64_t correction, bool keepdim) const {
  return ember::var(*this, dims, correction, keepdim);
}
Tensor Tensor::std(IntArrayRef dims, int64_t correction, bool keepdim) const {
  return ember::std(*this, dims, correction, keepdim);
}
Tensor Tensor::norm(const Scalar& p) const { return ember::norm(*this, p); }
Tensor Tensor::norm(const Scalar& p, IntArrayRef dims, bool keepdim) const {
  return ember::norm(*this, p, dims, keepdim);
}
Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const { return ember::logsumexp(*this, dims, keepdim); }
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return ember::all(*this, dim, keepdim); }
Tensor Tensor::any() const { return ember::any(*this); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return ember::any(*this, dim, keepdim); }
Tensor Tensor::count_nonzero(IntArrayRef dims) const { return ember::count_nonzero(*this, dims); }

}  // namespace ember
