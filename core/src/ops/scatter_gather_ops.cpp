// gather, scatter (plain, scalar, "add"/"multiply"), scatter_add, scatter_reduce,
// index_select, index_add/copy/fill and take_along_dim. index_add/copy/fill
// are scatters whose index is broadcast (stride 0) over the other dims.
#include <cmath>
#include <limits>

#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "kernels/slots/indexing_kernels.h"
#include "ops/indexing_utils.h"
#include "ops/conj_views.h"
#include "ops/op_utils.h"
#include "ops/scalar_overflow.h"

namespace ember {

EMBER_DEFINE_SLOT(gather_slot, GatherFn, "gather");
EMBER_DEFINE_FAMILY_SLOT(scatter_slot, ScatterFn, "scatter", kScatterOpNames,
                         static_cast<int>(std::size(kScatterOpNames)));
EMBER_DEFINE_FAMILY_SLOT(scatter_scalar_slot, ScatterScalarFn, "scatter_scalar", kScatterOpNames,
                         static_cast<int>(std::size(kScatterOpNames)));

namespace {

// Scatter/gather treat a 0-d tensor as 1-d of size 1 (PyTorch's ensure_nonempty_dim).
Tensor as_1d_if_scalar(const Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

// t with index's sizes, except size 1 along dim, keeping t's strides: the
// iterator walks every position but dim; the kernel walks dim.
Tensor restride(const Tensor& t, IntArrayRef index_sizes, int64_t dim) {
  DimVector sizes(index_sizes);
  sizes[dim] = 1;
  return t.as_strided(sizes, t.strides(), t.storage_offset());
}

ScatterGatherDims make_dims(const Tensor& self, const Tensor& index, const Tensor& other, int64_t dim,
                            const char* op, bool wrap_negative) {
  ScatterGatherDims d;
  d.n = index.size(dim);
  d.self_stride = self.stride(dim);
  d.index_stride = index.stride(dim);
  d.src_stride = other.defined() ? other.stride(dim) : 0;
  d.dim_is_inner = dim == index.dim() - 1;
  d.bound = IndexBound{op, dim, self.size(dim), wrap_negative};
  return d;
}

void check_index_rank(const Tensor& self, const Tensor& index, const char* op) {
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == std::max<int64_t>(self.dim(), 1), op,
              ": index tensor must have the same number of dimensions as input tensor (index sizes ",
              index.sizes(), ", input sizes ", self.sizes(), ")");
}

void check_gather(const Tensor& self, int64_t dim, const Tensor& index, const char* op) {
  EMBER_CHECK(index.dtype() == kInt64, op, ": expected dtype int64 for index, got ", index.dtype());
  check_index_rank(self, index, op);
  const Tensor s = as_1d_if_scalar(self), i = as_1d_if_scalar(index);
  for (int64_t d = 0; d < i.dim(); ++d)
    EMBER_CHECK(d == dim || i.size(d) <= s.size(d), op, ": size does not match at dimension ", d,
                ": expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                " apart from dimension ", dim);
}

void run_gather(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const char* op) {
  if (index.numel() == 0) return;
  if (out.impl()->has_lazy_bits()) {
    // Note [Conjugate bit]: gather into plain memory, store it through the bits.
    Tensor values = empty(out.sizes(), out.options());
    run_gather(values, self, dim, index, op);
    out.copy_(values);
    return;
  }
  // The kernel reads self through offsets past the restrided view's own
  // extent: a conjugate/negative view is resolved first.
  const Tensor s = as_1d_if_scalar(resolve_bits(self)), i = as_1d_if_scalar(index), o = as_1d_if_scalar(out);
  TensorIterator iter(op);
  iter.add_output(restride(o, i.sizes(), dim))
      .add_input(restride(s, i.sizes(), dim))
      .add_input(restride(i, i.sizes(), dim));
  iter.promote_inputs_to_common_dtype(false).output_dtype(self.dtype());
  iter.build();
  ScatterGatherDims dims = make_dims(s, i, o, dim, op, false);
  gather_slot(iter.device())(iter, dims);
}

void check_writable(const Tensor& self, const char* op) {
  EMBER_CHECK(!has_internal_overlap(self), op,
              ": unsupported operation: some elements of the written-to tensor (sizes ", self.sizes(),
              ", strides ", self.strides(), ") refer to a single memory location; clone() it first");
}

// self (op)= src or value at index, along dim. src undefined: use value.
Tensor& scatter_impl(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     const Scalar& value, ScatterOp op, const char* name, bool wrap_negative = false) {
  EMBER_CHECK(self.defined() && index.defined(), name, ": got an undefined tensor");
  if (!src.defined()) check_scalar_fits(value, self.dtype(), name);  // Note [Scalar overflow]
  if (self.impl()->has_lazy_bits() || (src.defined() && src.impl()->has_lazy_bits())) {
    // Note [Conjugate bit]: the kernel writes and reads through offsets past
    // the restrided views' extent: work on values, store them back through self's bits.
    Tensor values = resolve_bits(self);
    scatter_impl(values, dim, index, resolve_bits(src), value, op, name, wrap_negative);
    if (!values.is_same(self)) self.copy_(values);
    return self;
  }
  dim = wrap_dim(dim, self.dim(), name);
  EMBER_CHECK(index.dtype() == kInt64, name, ": expected dtype int64 for index, got ", index.dtype());
  check_index_rank(self, index, name);
  if (src.defined()) {
    EMBER_CHECK(src.dtype() == self.dtype(), name, ": expected self.dtype to be equal to src.dtype, got ",
                self.dtype(), " and ", src.dtype());
    EMBER_CHECK(std::max<int64_t>(src.dim(), 1) == std::max<int64_t>(index.dim(), 1), name,
                ": index tensor must have the same number of dimensions as src tensor (index sizes ",
                index.sizes(), ", src sizes ", src.sizes(), ")");
  }
  check_writable(self, name);
  const Tensor s = as_1d_if_scalar(self), i = as_1d_if_scalar(index);
  const Tensor sr = src.defined() ? as_1d_if_scalar(src.storage() == self.storage() ? src.clone() : src)
                                  : Tensor();
  for (int64_t d = 0; d < i.dim(); ++d) {
    const bool ok = (d == dim || i.size(d) <= s.size(d)) && (!sr.defined() || i.size(d) <= sr.size(d));
    EMBER_CHECK(ok, name, ": expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                " apart from dimension ", dim,
                sr.defined() ? detail::concat(" and to be smaller size than src ", src.sizes()) : "");
  }
  if (index.numel() == 0) return self;
  TensorIterator iter(name);
  iter.add_output(restride(s, i.sizes(), dim));
  if (sr.defined()) iter.add_input(restride(sr, i.sizes(), dim));
  iter.add_input(restride(i, i.sizes(), dim));
  iter.promote_inputs_to_common_dtype(false).output_dtype(self.dtype());
  iter.build();
  ScatterGatherDims dims = make_dims(s, i, sr, dim, name, wrap_negative);
  if (sr.defined()) scatter_slot(iter.device())(iter, dims, op);
  else scatter_scalar_slot(iter.device())(iter, dims, op, value);
  self.bump_version();
  return self;
}

ScatterOp scatter_reduce_op(const std::string& reduce, const char* name) {
  if (reduce == "add") return ScatterOp::Add;
  if (reduce == "multiply") return ScatterOp::Multiply;
  EMBER_FAIL(name, ": reduce argument must be either add or multiply, got \"", reduce, "\"");
}

// Value of an empty reduction of each kind, in self's dtype.
Scalar reduce_identity(const std::string& reduce, DType dtype) {
  if (reduce == "sum" || reduce == "mean") return 0;
  if (reduce == "prod") return 1;
  const bool is_max = reduce == "amax";
  if (is_floating_point(dtype)) return is_max ? -INFINITY : INFINITY;
  return dispatch<kMaskIntegral | kMaskBool>(dtype, "scatter_reduce", [&](auto tag) -> Scalar {
    using T = decltype(tag);
    return is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  });
}

// A 1-d index for index_add/copy/fill, as a scatter index: shaped like
// `sizes` with the index along dim and stride 0 elsewhere.
Tensor broadcast_dim_index(const Tensor& index, int64_t dim, IntArrayRef sizes, const char* op) {
  EMBER_CHECK(index.dim() <= 1, op, ": index is supposed to be a vector, got sizes ", index.sizes());
  Tensor flat = checked_long_index(index, op, true).reshape({-1});
  DimVector view_sizes(sizes.size(), 1), target(sizes);
  view_sizes[dim] = flat.numel();
  target[dim] = flat.numel();
  return flat.view(view_sizes).expand(target);
}

// index_add_/index_copy_ argument checks; returns the source as a scatter src.
Tensor check_index_source(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                          const char* op) {
  EMBER_CHECK(self.defined() && index.defined() && source.defined(), op, ": got an undefined tensor");
  EMBER_CHECK(source.dtype() == self.dtype(), op, ": self (", self.dtype(), ") and source (",
              source.dtype(), ") must have the same scalar type");
  EMBER_CHECK(index.dim() <= 1, op, ": index is supposed to be a vector, got sizes ", index.sizes());
  const Tensor s = as_1d_if_scalar(self), src = as_1d_if_scalar(source);
  EMBER_CHECK(src.dim() == s.dim(), op, ": source ", source.sizes(),
              " must have the same number of dimensions as self ", self.sizes());
  EMBER_CHECK(index.numel() == src.size(dim), op, ": number of indices (", index.numel(),
              ") should be equal to source.size(dim) (", src.size(dim), ")");
  for (int64_t d = 0; d < s.dim(); ++d)
    EMBER_CHECK(d == dim || s.size(d) == src.size(d), op, ": self ", self.sizes(), " and source ",
                source.sizes(), " must have the same size apart from dimension ", dim);
  return src;
}

using autograd::BackwardContext;
using autograd::variable_list;

// Note [scatter_reduce backward]
// PyTorch's scatter_reduce_backward, with one fix: for amax/amin without
// include_self, a self value that was dropped but happens to equal the result
// does not take a share of the gradient (PyTorch counts it in the ties and
// then zeroes it, losing that share). For complex inputs prod uses the
// conjugate derivative. With several zeros of src reduced by prod into one
// position, src's gradient is right but its double backward is not
// (PyTorch raises there).
std::pair<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                  const Tensor& index, const Tensor& full_src,
                                                  const std::string& reduce, bool include_self,
                                                  const Tensor& result) {
  // Only src's leading corner of index's shape takes part.
  const DimVector src_sizes(full_src.sizes());
  Tensor src_used = full_src;
  for (int64_t d = 0; d < index.dim() && full_src.dim() == index.dim(); ++d)
    if (src_used.size(d) != index.size(d)) src_used = src_used.narrow(d, 0, index.size(d));
  const Tensor& src = src_used;
  Tensor grad_self, grad_src;
  if (reduce == "sum") {
    grad_self = grad;
    grad_src = grad.gather(dim, index);
  } else if (reduce == "prod") {
    // Exclusive products computed explicitly where self or src is 0.
    Tensor masked_self = self.masked_fill(self == 0, 1);
    Tensor masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce, include_self);
    grad_self = grad * (masked_self_result / masked_self).conj();
    Tensor src_zero = src == 0;
    Tensor src_num_zeros =
        zeros_like(self).scatter_add(dim, index, src_zero.to(self.dtype())).gather(dim, index);
    Tensor src_single_zero = logical_and(src_zero, src_num_zeros == 1);
    Tensor masked_src = src.masked_fill(src_single_zero, 1);
    Tensor masked_src_result = self.scatter_reduce(dim, index, masked_src, reduce, include_self);
    grad_src = where(src_single_zero, (grad * masked_src_result.conj()).gather(dim, index),
                     (grad * result.conj()).gather(dim, index) / src.masked_fill(src_zero, 1).conj());
  } else if (reduce == "mean") {
    Tensor n = include_self ? ones_like(grad) : zeros_like(grad);
    n = n.scatter_add(dim, index, ones_like(src));
    n.masked_fill_(n == 0, 1);
    grad_self = grad / n;
    grad_src = grad.gather(dim, index) / n.gather(dim, index);
  } else {  // amax, amin: the gradient is split evenly between ties
    Tensor value = result.gather(dim, index);
    Tensor self_is_result = (self == result).to(self.dtype());
    if (!include_self) self_is_result = self_is_result.scatter(dim, index, Scalar(0));
    Tensor src_is_result = (src == value).to(self.dtype());
    Tensor n = self_is_result.scatter_add(dim, index, src_is_result);
    Tensor grad_distributed = grad / n;
    grad_self = self_is_result * grad_distributed;
    grad_src = src_is_result * grad_distributed.gather(dim, index);
  }
  if (!include_self) grad_self = grad_self.scatter(dim, index, Scalar(0));
  return {grad_self, pad_to(grad_src, src_sizes)};
}

}  // namespace

// ---- gather ----
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  EMBER_CHECK(self.defined() && index.defined(), "gather: got an undefined tensor");
  dim = wrap_dim(dim, self.dim(), "gather");
  check_gather(self, dim, index, "gather");
  autograd::OpRecorder rec("gather", {self});
  Tensor out = empty(index.sizes(), self.options());
  run_gather(out, self, dim, index, "gather");
  if (rec)
    rec.record(out, [sizes = DimVector(self.sizes()), dim, saved = rec.save(index)](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return variable_list{ember::scatter_add(zeros(sizes, g.options()), dim, c.unpack(saved), g)};
    });
  return out;
}
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  EMBER_CHECK(out.defined() && self.defined() && index.defined(), "gather_out: got an undefined tensor");
  autograd::check_out_arguments("gather", out, {self});
  dim = wrap_dim(dim, self.dim(), "gather_out");
  check_gather(self, dim, index, "gather_out");
  EMBER_CHECK(out.dtype() == self.dtype(), "gather_out: expected out dtype ", self.dtype(), ", got ",
              out.dtype());
  EMBER_CHECK(out.sizes() == index.sizes(), "gather_out: expected out of shape ", index.sizes(),
              ", got ", out.sizes());
  check_writable(out, "gather_out");
  Tensor target = out;
  if (out.storage() == self.storage() || out.storage() == index.storage()) target = empty_like(out);
  run_gather(target, self, dim, index, "gather_out");
  if (!target.is_same(out)) out.copy_(target);
  out.bump_version();
  return out;
}
Tensor Tensor::gather(int64_t dim, const Tensor& index, bool sparse_grad) const {
  return ember::gather(*this, dim, index, sparse_grad);
}

// ---- scatter ----
// In-place variants under autograd run the recorded out-of-place op and copy
// it in (autograd::assign_inplace); the out-of-place ops record.
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_CHECK(src.defined(), "scatter_: got an undefined src");
  if (autograd::inplace_records(*this, {src}))
    return autograd::assign_inplace(*this, ember::scatter(*this, dim, index, src), "scatter_");
  return scatter_impl(*this, dim, index, src, 0, ScatterOp::Assign, "scatter_");
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) {
  if (autograd::inplace_records(*this))
    return autograd::assign_inplace(*this, ember::scatter(*this, dim, index, value), "scatter_");
  return scatter_impl(*this, dim, index, Tensor(), value, ScatterOp::Assign, "scatter_");
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) {
  EMBER_CHECK(src.defined(), "scatter_: got an undefined src");
  if (autograd::inplace_records(*this, {src}))
    return autograd::assign_inplace(*this, ember::scatter(*this, dim, index, src, reduce), "scatter_");
  return scatter_impl(*this, dim, index, src, 0, scatter_reduce_op(reduce, "scatter_"), "scatter_");
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) {
  if (autograd::inplace_records(*this))
    return autograd::assign_inplace(*this, ember::scatter(*this, dim, index, value, reduce), "scatter_");
  return scatter_impl(*this, dim, index, Tensor(), value, scatter_reduce_op(reduce, "scatter_"), "scatter_");
}
// self's gradient is zero where src was written; src's is grad read back there.
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_CHECK(src.defined(), "scatter: got an undefined src");
  autograd::OpRecorder rec("scatter", {self, src});
  Tensor out = self.clone();
  scatter_impl(out, dim, index, src, 0, ScatterOp::Assign, "scatter");
  if (rec)
    rec.record(out, [dim, saved = rec.save(index), src_sizes = DimVector(src.sizes())](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      const Tensor idx = c.unpack(saved);
      return variable_list{c.needs(0) ? g.scatter(dim, idx, Scalar(0)) : Tensor(),
                           c.needs(1) ? pad_to(g.gather(dim, idx), src_sizes) : Tensor()};
    });
  return out;
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  autograd::OpRecorder rec("scatter", {self});
  Tensor out = self.clone();
  scatter_impl(out, dim, index, Tensor(), value, ScatterOp::Assign, "scatter");
  if (rec)
    rec.record(out, [dim, saved = rec.save(index)](BackwardContext& c) {
      return variable_list{c.grads[0].scatter(dim, c.unpack(saved), Scalar(0))};
    });
  return out;
}
// reduce "add" is scatter_add; "multiply" is scatter_reduce's prod with self included.
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce) {
  EMBER_CHECK(src.defined(), "scatter: got an undefined src");
  const ScatterOp op = scatter_reduce_op(reduce, "scatter");
  autograd::OpRecorder rec("scatter", {self, src});
  Tensor out = self.clone();
  scatter_impl(out, dim, index, src, 0, op, "scatter");
  if (rec) {
    const bool needs_inputs = op == ScatterOp::Multiply;
    rec.record(out, [dim, op, saved = rec.save(index), s = rec.save_if(needs_inputs, self),
                     sr = rec.save_if(needs_inputs, src), r = needs_inputs ? rec.save_output(out) : autograd::SavedVariable(),
                     src_sizes = DimVector(src.sizes())](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      const Tensor idx = c.unpack(saved);
      if (op == ScatterOp::Add)
        return variable_list{g, c.needs(1) ? pad_to(g.gather(dim, idx), src_sizes) : Tensor()};
      auto [gs, gsrc] = scatter_reduce_backward(g, c.unpack(s), dim, idx, c.unpack(sr), "prod", true, c.unpack(r));
      return variable_list{gs, gsrc};
    });
  }
  return out;
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce) {
  const ScatterOp op = scatter_reduce_op(reduce, "scatter");
  autograd::OpRecorder rec("scatter", {self});
  Tensor out = self.clone();
  scatter_impl(out, dim, index, Tensor(), value, op, "scatter");
  if (rec)
    rec.record(out, [dim, op, value, saved = rec.save(index)](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      if (op == ScatterOp::Add) return variable_list{g};
      // Each write multiplies by value: the factor is value ** (number of writes).
      Tensor factor = ones_like(g).scatter(dim, c.unpack(saved), value, "multiply");
      return variable_list{g * factor.conj()};
    });
  return out;
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) const {
  return ember::scatter(*this, dim, index, src, reduce);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) const {
  return ember::scatter(*this, dim, index, value, reduce);
}

Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_CHECK(src.defined(), "scatter_add_: got an undefined src");
  if (autograd::inplace_records(*this, {src}))
    return autograd::assign_inplace(*this, ember::scatter_add(*this, dim, index, src), "scatter_add_");
  return scatter_impl(*this, dim, index, src, 0, ScatterOp::Add, "scatter_add_");
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_CHECK(src.defined(), "scatter_add: got an undefined src");
  autograd::OpRecorder rec("scatter_add", {self, src});
  Tensor out = self.clone();
  scatter_impl(out, dim, index, src, 0, ScatterOp::Add, "scatter_add");
  if (rec)
    rec.record(out, [dim, saved = rec.save(index), src_sizes = DimVector(src.sizes())](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return variable_list{g, c.needs(1) ? pad_to(g.gather(dim, c.unpack(saved)), src_sizes) : Tensor()};
    });
  return out;
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}

namespace {
Tensor& scatter_reduce_impl(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                            const std::string& reduce, bool include_self, const char* name) {
  EMBER_CHECK(src.defined(), name, ": got an undefined src");
  ScatterOp op;
  if (reduce == "sum" || reduce == "mean") op = ScatterOp::Add;
  else if (reduce == "prod") op = ScatterOp::Multiply;
  else if (reduce == "amax") op = ScatterOp::Amax;
  else if (reduce == "amin") op = ScatterOp::Amin;
  else EMBER_FAIL(name, ": reduce argument must be either sum, prod, mean, amax or amin, got \"", reduce, "\"");
  EMBER_CHECK(!(self.is_complex() && (op == ScatterOp::Amax || op == ScatterOp::Amin)), name, ": reduce \"",
              reduce, "\" is not supported for complex tensors (got ", self.dtype(), ")");
  // Without self, scattered positions start from the reduction's identity.
  if (!include_self)
    scatter_impl(self, dim, index, Tensor(), reduce_identity(reduce, self.dtype()), ScatterOp::Assign, name);
  scatter_impl(self, dim, index, src, 0, op, name);
  if (reduce == "mean") {
    Tensor count = include_self ? ones_like(self) : zeros_like(self);
    count.scatter_add_(dim, index, ones_like(src));
    count.masked_fill_(count == 0, 1);
    if (self.is_floating_point() || self.is_complex()) self.div_(count);
    else self.copy_(ember::div(self, count, "floor"));
  }
  return self;
}
}  // namespace

Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                const std::string& reduce, bool include_self) {
  if (autograd::inplace_records(*this, {src}))
    return autograd::assign_inplace(*this, ember::scatter_reduce(*this, dim, index, src, reduce, include_self),
                                    "scatter_reduce_");
  return scatter_reduce_impl(*this, dim, index, src, reduce, include_self, "scatter_reduce_");
}
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  autograd::OpRecorder rec("scatter_reduce", {self, src});
  Tensor out = self.clone();
  scatter_reduce_impl(out, dim, index, src, reduce, include_self, "scatter_reduce");
  if (rec) {
    const bool needs_values = reduce != "sum" && reduce != "mean";
    // sum and mean need only src's shape.
    rec.record(out, [dim, reduce, include_self, saved = rec.save(index), s = rec.save_if(needs_values, self),
                     sr = rec.save_if(needs_values, src), src_sizes = DimVector(src.sizes()),
                     r = needs_values ? rec.save_output(out) : autograd::SavedVariable()](BackwardContext& c) {
      const Tensor src_t = sr.defined() ? c.unpack(sr) : empty(src_sizes, c.grads[0].options());
      auto [gs, gsrc] = scatter_reduce_backward(c.grads[0], s.defined() ? c.unpack(s) : Tensor(), dim,
                                                c.unpack(saved), src_t, reduce, include_self,
                                                r.defined() ? c.unpack(r) : Tensor());
      return variable_list{c.needs(0) ? gs : Tensor(), c.needs(1) ? gsrc : Tensor()};
    });
  }
  return out;
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                              bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}

// ---- index_select ----
namespace {
Tensor index_select_impl(const Tensor& self, int64_t dim, const Tensor& index) {
  EMBER_CHECK(self.defined() && index.defined(), "index_select: got an undefined tensor");
  EMBER_CHECK(index.dim() <= 1, "index_select: index is supposed to be a vector, got sizes ", index.sizes());
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
              "index_select: expected dtype int32 or int64 for index, got ", index.dtype());
  dim = wrap_dim(dim, self.dim(), "index_select");
  const Tensor flat = checked_long_index(index, "index_select", true).reshape({-1});
  if (self.dim() == 0) {
    // As PyTorch: a 0-d input gives a 0-d result when one element is selected.
    Tensor out = index_along_dim(self.view({1}), 0, flat, "index_select", false);
    return out.numel() == 1 ? out.view(IntArrayRef()) : out;
  }
  return index_along_dim(self, dim, flat, "index_select", false);
}
}  // namespace

// The gradient goes back to the selected rows, summed where an index repeats.
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  autograd::OpRecorder rec("index_select", {self});
  Tensor out = unview(index_select_impl(self, dim, index));
  if (rec)
    rec.record(out, [sizes = DimVector(self.sizes()), dim, saved = rec.save(index)](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return variable_list{ember::index_add(zeros(sizes, g.options()), dim, c.unpack(saved), g)};
    });
  return out;
}
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  autograd::check_out_arguments("index_select", out, {self});
  return assign_result(out, index_select_impl(self, dim, index), "index_select_out");
}
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}

// ---- index_add / index_copy / index_fill ----
namespace {
Tensor& index_add_impl(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                       const char* name) {
  EMBER_CHECK(self.defined(), name, ": got an undefined tensor");
  dim = wrap_dim(dim, self.dim(), name);
  Tensor src = check_index_source(self, dim, index, source, name);
  // alpha in self's dtype, as PyTorch's kernel converts it.
  if (!(alpha.is_integral(true) && alpha.toLong() == 1)) src = ember::mul(src, full({}, alpha, self.options()));
  Tensor idx = broadcast_dim_index(index, dim, src.sizes(), name);
  return scatter_impl(self, dim, idx, src, 0, ScatterOp::Add, name);
}

Tensor& index_copy_impl(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const char* name) {
  EMBER_CHECK(self.defined(), name, ": got an undefined tensor");
  dim = wrap_dim(dim, self.dim(), name);
  Tensor src = check_index_source(self, dim, index, source, name);
  Tensor idx = broadcast_dim_index(index, dim, src.sizes(), name);
  return scatter_impl(self, dim, idx, src, 0, ScatterOp::Assign, name);
}

Tensor& index_fill_impl(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const char* name) {
  EMBER_CHECK(self.defined() && index.defined(), name, ": got an undefined tensor");
  dim = wrap_dim(dim, self.dim(), name);
  DimVector sizes(as_1d_if_scalar(self).sizes());
  Tensor idx = broadcast_dim_index(index, dim, sizes, name);
  return scatter_impl(self, dim, idx, Tensor(), value, ScatterOp::Assign, name, /*wrap_negative=*/true);
}

void check_fill_value(const Tensor& value, const char* name) {
  EMBER_CHECK(value.defined() && value.dim() == 0, name,
              ": only supports a 0-dimensional value tensor, but got tensor with ",
              value.defined() ? value.dim() : -1, " dimension(s)");
}

bool is_one(const Scalar& s) {
  if (s.is_complex()) return s.to<complex128>() == complex128(1, 0);
  if (s.is_floating_point()) return s.to<double>() == 1.0;
  return s.toLong() == 1;
}
}  // namespace

// self's gradient is grad; source's is grad at the indexed rows, times alpha.
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  autograd::OpRecorder rec("index_add", {self, source});
  Tensor out = self.clone();
  index_add_impl(out, dim, index, source, alpha, "index_add");
  if (rec)
    rec.record(out, [dim, alpha, saved = rec.save(index),
                     source_sizes = DimVector(source.sizes())](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      Tensor grad_source;
      if (c.needs(1)) {
        grad_source = g.index_select(dim, c.unpack(saved));
        if (!is_one(alpha)) grad_source = grad_source * (alpha.is_complex() ? Scalar(std::conj(alpha.to<complex128>())) : alpha);
        grad_source = grad_source.reshape(source_sizes);
      }
      return variable_list{g, grad_source};
    });
  return out;
}
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  if (autograd::inplace_records(*this, {source}))
    return autograd::assign_inplace(*this, ember::index_add(*this, dim, index, source, alpha), "index_add_");
  return index_add_impl(*this, dim, index, source, alpha, "index_add_");
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}

// self's gradient is zero at the copied rows; source's is grad there.
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  autograd::OpRecorder rec("index_copy", {self, source});
  Tensor out = self.clone();
  index_copy_impl(out, dim, index, source, "index_copy");
  if (rec)
    rec.record(out, [dim, saved = rec.save(index), source_sizes = DimVector(source.sizes())](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      const Tensor idx = c.unpack(saved);
      return variable_list{c.needs(0) ? g.index_fill(dim, idx, Scalar(0)) : Tensor(),
                           c.needs(1) ? g.index_select(dim, idx).reshape(source_sizes) : Tensor()};
    });
  return out;
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  if (autograd::inplace_records(*this, {source}))
    return autograd::assign_inplace(*this, ember::index_copy(*this, dim, index, source), "index_copy_");
  return index_copy_impl(*this, dim, index, source, "index_copy_");
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}

// self's gradient is zero at the filled rows; a tensor value's is the sum of
// grad there (each position once, however often the index repeats it).
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  autograd::OpRecorder rec("index_fill", {self});
  Tensor out = self.clone();
  index_fill_impl(out, dim, index, value, "index_fill");
  if (rec)
    rec.record(out, [dim, saved = rec.save(index)](BackwardContext& c) {
      return variable_list{c.grads[0].index_fill(dim, c.unpack(saved), Scalar(0))};
    });
  return out;
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  check_fill_value(value, "index_fill");
  autograd::OpRecorder rec("index_fill", {self, value});
  Tensor out = self.clone();
  index_fill_impl(out, dim, index, value.item(), "index_fill");
  if (rec)
    rec.record(out, [dim, saved = rec.save(index)](BackwardContext& c) {
      const Tensor& g = c.grads[0];
      Tensor kept = g.index_fill(dim, c.unpack(saved), Scalar(0));
      return variable_list{kept, c.needs(1) ? (g - kept).sum() : Tensor()};
    });
  return out;
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) {
  if (autograd::inplace_records(*this))
    return autograd::assign_inplace(*this, ember::index_fill(*this, dim, index, value), "index_fill_");
  return index_fill_impl(*this, dim, index, value, "index_fill_");
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) {
  check_fill_value(value, "index_fill_");
  if (autograd::inplace_records(*this, {value}))
    return autograd::assign_inplace(*this, ember::index_fill(*this, dim, index, value), "index_fill_");
  return index_fill_impl(*this, dim, index, value.item(), "index_fill_");
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  return ember::index_fill(*this, dim, index, value);
}

// ---- take_along_dim ----
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(self.defined() && indices.defined(), "take_along_dim: got an undefined tensor");
  EMBER_CHECK(indices.dtype() == kInt64, "take_along_dim: dtype of indices should be int64 but got ",
              indices.dtype());
  if (!dim) return gather(self.reshape({-1}), 0, indices.reshape({-1}));
  const int64_t d = wrap_dim(*dim, self.dim(), "take_along_dim");
  EMBER_CHECK(self.dim() == indices.dim(), "take_along_dim: input and indices should have the same number of dimensions, but got ",
              self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  if (self.dim() == 0) return gather(self, 0, indices);
  DimVector self_sizes(self.sizes());
  self_sizes[d] = indices.size(d);
  DimVector shape = infer_broadcast_size(self_sizes, indices.sizes(), "take_along_dim");
  Tensor idx = indices.expand(shape);
  shape[d] = self.size(d);
  return gather(self.expand(shape), d, idx);
}
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return ember::take_along_dim(*this, indices, dim);
}

}  // namespace ember
