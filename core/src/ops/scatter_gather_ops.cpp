// gather, scatter (plain, scalar, "add"/"multiply"), scatter_add, scatter_reduce,
// index_select, index_add/copy/fill and take_along_dim. index_add/copy/fill
// are scatters whose index is broadcast (stride 0) over the other dims.
#include <cmath>
#include <limits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ops/indexing_kernels.h"
#include "ops/indexing_utils.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_STUB(gather_stub, GatherFn, "gather");
EMBER_DEFINE_STUB(scatter_stub, ScatterFn, "scatter");
EMBER_DEFINE_STUB(scatter_scalar_stub, ScatterScalarFn, "scatter (value)");

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
  const Tensor s = as_1d_if_scalar(self), i = as_1d_if_scalar(index), o = as_1d_if_scalar(out);
  TensorIterator iter(op);
  iter.add_output(restride(o, i.sizes(), dim))
      .add_input(restride(s, i.sizes(), dim))
      .add_input(restride(i, i.sizes(), dim));
  iter.promote_inputs_to_common_dtype(false).output_dtype(self.dtype());
  iter.build();
  ScatterGatherDims dims = make_dims(s, i, o, dim, op, false);
  gather_stub(iter.device())(iter, dims);
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
  if (sr.defined()) scatter_stub(iter.device())(iter, dims, op);
  else scatter_scalar_stub(iter.device())(iter, dims, op, value);
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

}  // namespace

// ---- gather ----
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  EMBER_CHECK(self.defined() && index.defined(), "gather: got an undefined tensor");
  dim = wrap_dim(dim, self.dim(), "gather");
  check_gather(self, dim, index, "gather");
  Tensor out = empty(index.sizes(), self.options());
  run_gather(out, self, dim, index, "gather");
  return out;
}
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  EMBER_CHECK(out.defined() && self.defined() && index.defined(), "gather_out: got an undefined tensor");
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
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_CHECK(src.defined(), "scatter_: got an undefined src");
  return scatter_impl(*this, dim, index, src, 0, ScatterOp::Assign, "scatter_");
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_impl(*this, dim, index, Tensor(), value, ScatterOp::Assign, "scatter_");
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) {
  EMBER_CHECK(src.defined(), "scatter_: got an undefined src");
  return scatter_impl(*this, dim, index, src, 0, scatter_reduce_op(reduce, "scatter_"), "scatter_");
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) {
  return scatter_impl(*this, dim, index, Tensor(), value, scatter_reduce_op(reduce, "scatter_"), "scatter_");
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return self.clone().scatter_(dim, index, src);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.clone().scatter_(dim, index, value);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce) {
  return self.clone().scatter_(dim, index, src, reduce);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce) {
  return self.clone().scatter_(dim, index, value, reduce);
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
  return scatter_impl(*this, dim, index, src, 0, ScatterOp::Add, "scatter_add_");
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return self.clone().scatter_add_(dim, index, src);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}

Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                const std::string& reduce, bool include_self) {
  const char* name = "scatter_reduce_";
  EMBER_CHECK(src.defined(), name, ": got an undefined src");
  ScatterOp op;
  if (reduce == "sum" || reduce == "mean") op = ScatterOp::Add;
  else if (reduce == "prod") op = ScatterOp::Multiply;
  else if (reduce == "amax") op = ScatterOp::Amax;
  else if (reduce == "amin") op = ScatterOp::Amin;
  else EMBER_FAIL(name, ": reduce argument must be either sum, prod, mean, amax or amin, got \"", reduce, "\"");
  EMBER_CHECK(!(is_complex() && (op == ScatterOp::Amax || op == ScatterOp::Amin)), name, ": reduce \"",
              reduce, "\" is not supported for complex tensors (got ", dtype(), ")");
  // Without self, scattered positions start from the reduction's identity.
  if (!include_self)
    scatter_impl(*this, dim, index, Tensor(), reduce_identity(reduce, dtype()), ScatterOp::Assign, name);
  scatter_impl(*this, dim, index, src, 0, op, name);
  if (reduce == "mean") {
    Tensor count = include_self ? ones_like(*this) : zeros_like(*this);
    count.scatter_add_(dim, index, ones_like(src));
    count.masked_fill_(count == 0, 1);
    if (is_floating_point() || is_complex()) div_(count);
    else copy_(ember::div(*this, count, "floor"));
  }
  return *this;
}
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  return self.clone().scatter_reduce_(dim, index, src, reduce, include_self);
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                              bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}

// ---- index_select ----
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
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
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  return assign_result(out, index_select(self, dim, index), "index_select_out");
}
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}

// ---- index_add / index_copy / index_fill ----
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  const char* name = "index_add_";
  EMBER_CHECK(defined(), name, ": got an undefined tensor");
  dim = wrap_dim(dim, this->dim(), name);
  Tensor src = check_index_source(*this, dim, index, source, name);
  // alpha in self's dtype, as PyTorch's kernel converts it.
  if (!(alpha.is_integral(true) && alpha.toLong() == 1)) src = ember::mul(src, full({}, alpha, options()));
  Tensor idx = broadcast_dim_index(index, dim, src.sizes(), name);
  return scatter_impl(*this, dim, idx, src, 0, ScatterOp::Add, name);
}
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return self.clone().index_add_(dim, index, source, alpha);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  const char* name = "index_copy_";
  EMBER_CHECK(defined(), name, ": got an undefined tensor");
  dim = wrap_dim(dim, this->dim(), name);
  Tensor src = check_index_source(*this, dim, index, source, name);
  Tensor idx = broadcast_dim_index(index, dim, src.sizes(), name);
  return scatter_impl(*this, dim, idx, src, 0, ScatterOp::Assign, name);
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return self.clone().index_copy_(dim, index, source);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) {
  const char* name = "index_fill_";
  EMBER_CHECK(defined() && index.defined(), name, ": got an undefined tensor");
  dim = wrap_dim(dim, this->dim(), name);
  DimVector sizes(as_1d_if_scalar(*this).sizes());
  Tensor idx = broadcast_dim_index(index, dim, sizes, name);
  return scatter_impl(*this, dim, idx, Tensor(), value, ScatterOp::Assign, name, /*wrap_negative=*/true);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.defined() && value.dim() == 0,
              "index_fill_: only supports a 0-dimensional value tensor, but got tensor with ",
              value.defined() ? value.dim() : -1, " dimension(s)");
  return index_fill_(dim, index, value.item());
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.clone().index_fill_(dim, index, value);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return self.clone().index_fill_(dim, index, value);
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
