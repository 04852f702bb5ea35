// Tensor::index / index_put_ with TensorIndex lists (PyTorch's C++ frontend),
// advanced indexing with index tensors (at::index, at::index_put_) and take.
#include <string_view>

#include "autograd/record.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "kernels/slots/indexing_kernels.h"
#include "ops/indexing_utils.h"
#include "ops/conj_views.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_SLOT(index_offsets_slot, IndexOffsetsFn, "index_offsets");
EMBER_DEFINE_SLOT(index_gather_slot, IndexGatherFn, "index");
EMBER_DEFINE_FAMILY_SLOT(index_put_slot, IndexPutFn, "index_put_", kIndexPutOpNames,
                         static_cast<int>(std::size(kIndexPutOpNames)));
EMBER_DEFINE_SLOT(index_select_slot, IndexSelectFn, "index_select");

// Note [Advanced indexing]
// Index tensors follow NumPy: a mask becomes the index tensors of its true
// positions (nonzero()), all index tensors broadcast to one shape B, and the
// result is self's dims with the indexed ones replaced by B: in place when the
// indexed dims are adjacent, else B goes first (x[:, i, :, j] has shape B + rest).
// Kernels never see index tensors: the op folds them, bound-checked, into one
// int64 tensor of element offsets over B, and restrides self so its indexed
// dims become B with stride 0. index and index_put_ are then one elementwise
// pass over (result, self restrided, offsets) through TensorIterator.
// A k-d mask covers k dims, as in NumPy (PyTorch 1.13's x[mask2d, 1:3] applied
// the slice to the mask's second dim and failed; later versions fixed that).

TensorIndex::TensorIndex(const char* str) : kind_(Kind::Ellipsis) {
  EMBER_CHECK(str != nullptr && std::string_view(str) == "...",
              "TensorIndex: expected \"...\" to represent an ellipsis index, got \"",
              str ? str : "(null)", "\"");
}

std::ostream& operator<<(std::ostream& os, const TensorIndex& index) {
  switch (index.kind()) {
    case TensorIndex::Kind::None: return os << "None";
    case TensorIndex::Kind::Ellipsis: return os << "...";
    case TensorIndex::Kind::Integer: return os << index.integer();
    case TensorIndex::Kind::Boolean: return os << (index.boolean() ? "True" : "False");
    case TensorIndex::Kind::Slice: {
      const auto& s = index.slice();
      if (s.start()) os << *s.start();
      os << ':';
      if (s.stop()) os << *s.stop();
      return os << ':' << s.step();
    }
    case TensorIndex::Kind::Tensor: return os << "Tensor(" << index.tensor().sizes() << ")";
  }
  return os;
}

Tensor checked_long_index(const Tensor& index, const char* op, bool allow_int32) {
  EMBER_CHECK(index.defined(), op, ": got an undefined index tensor");
  if (index.dtype() == kInt64) return index;
  EMBER_CHECK(allow_int32 && index.dtype() == kInt32, op, ": tensors used as indices must be ",
              allow_int32 ? "long, int, byte or bool" : "long", " tensors, got ", index.dtype());
  return index.to(kInt64);
}

Tensor& assign_result(Tensor& out, const Tensor& result, const char* op) {
  EMBER_CHECK(out.defined(), op, ": got an undefined out tensor");
  EMBER_CHECK(out.dtype() == result.dtype(), op, ": expected out dtype ", result.dtype(), ", got ",
              out.dtype());
  if (out.sizes() == result.sizes()) {
    out.copy_(result);
    return out;
  }
  EMBER_CHECK(out.numel() == 0, op, ": out= tensor has shape ", out.sizes(), " but the result has shape ",
              result.sizes(), " (only an empty out= tensor is resized)");
  out.impl()->set_storage(result.storage());
  out.impl()->set_geometry(result.sizes(), result.strides(), result.storage_offset());
  out.bump_version();
  return out;
}

Tensor reduce_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.dim() >= static_cast<int64_t>(sizes.size())) return autograd::sum_to(grad, sizes);
  size_t lead = 0;
  while (sizes.size() - lead > static_cast<size_t>(grad.dim()) && sizes[lead] == 1) ++lead;
  const IntArrayRef trimmed(sizes.data() + lead, sizes.size() - lead);
  return autograd::sum_to(grad, trimmed).reshape(sizes);
}

Tensor pad_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  if (sizes.empty()) return grad.sum();  // a 0-d src read as 1-d
  const Tensor g = grad.dim() == 0 ? grad.reshape({1}) : grad;
  Tensor result = zeros(sizes, g.options());
  Tensor corner = result;
  for (int64_t d = 0; d < g.dim(); ++d) corner = corner.narrow(d, 0, g.size(d));
  corner.copy_(g);
  return result;
}

namespace {

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

// Dims of self an index list addresses: a k-d mask counts k, a 0-d mask none.
int64_t count_indexed_dims(ArrayRef<std::optional<Tensor>> indices) {
  int64_t n = 0;
  for (const auto& i : indices) n += (i && i->defined() && is_mask(*i)) ? i->dim() : 1;
  return n;
}

void check_index_count(const Tensor& self, int64_t specified, const char* op) {
  EMBER_CHECK(specified <= self.dim(), op, ": too many indices for tensor of dimension ", self.dim(),
              " (got ", specified, ")");
}

void check_mask_shape(const Tensor& mask, const Tensor& self, int64_t dim, const char* op) {
  for (int64_t k = 0; k < mask.dim(); ++k)
    EMBER_CHECK(dim + k < self.dim() && mask.size(k) == self.size(dim + k), op,
                ": the shape of the mask ", mask.sizes(), " at index ", k,
                " does not match the shape of the indexed tensor ", self.sizes(), " at index ", dim + k);
}

// A Python bool as an index: an axis of size 1 kept whole (true) or emptied (false).
Tensor bool_index(bool keep, Device device) {
  const TensorOptions opts = TensorOptions(kInt64).device(device);
  return keep ? zeros({1}, opts) : empty({0}, opts);
}

// One int64 index tensor (or undefined: dim kept whole) per dim of `self`.
struct DimIndices {
  Tensor self;  // 0-d masks add an axis
  std::vector<Tensor> indices;
};

DimIndices expand_indices(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const char* op) {
  DimIndices out{self, {}};
  int64_t d = 0;
  for (const auto& entry : indices) {
    if (!entry || !entry->defined()) {
      out.indices.emplace_back();
      ++d;
      continue;
    }
    const Tensor& t = *entry;
    if (!is_mask(t)) {
      out.indices.push_back(checked_long_index(t, op, true));
      ++d;
    } else if (t.dim() == 0) {
      out.self = out.self.unsqueeze(d);
      out.indices.push_back(bool_index(t.item<bool>(), self.device()));
      ++d;
    } else {
      check_mask_shape(t, out.self, d, op);
      Tensor nz = nonzero(t);
      for (int64_t k = 0; k < t.dim(); ++k) out.indices.push_back(nz.select(1, k));
      d += t.dim();
    }
  }
  out.indices.resize(out.self.dim());
  return out;
}

// self restrided to the result's shape (stride 0 along the index dims) and
// the element offsets the index tensors select, expanded to the same shape.
struct IndexPlan {
  Tensor src;
  Tensor offsets;
};

IndexPlan make_plan(Tensor self, std::vector<Tensor> indices, const char* op, bool wrap_negative) {
  // The kernel reads self through offsets past the restrided plan's own
  // extent: a conjugate/negative view is resolved here (Note [Conjugate bit]).
  self = resolve_bits(self);
  const int64_t nd = self.dim();
  DimVector indexed;
  for (int64_t d = 0; d < nd; ++d)
    if (indices[d].defined()) indexed.push_back(d);
  DimVector bshape(indices[indexed[0]].sizes());
  for (int64_t d : indexed) {
    const Tensor& t = indices[d];
    const size_t n = std::max(bshape.size(), static_cast<size_t>(t.dim()));
    bool ok = true;
    for (size_t i = 0; i < n && ok; ++i) {
      const int64_t a = i < n - bshape.size() ? 1 : bshape[i - (n - bshape.size())];
      const int64_t b = i < n - t.dim() ? 1 : t.size(static_cast<int64_t>(i - (n - t.dim())));
      ok = a == b || a == 1 || b == 1;
    }
    if (!ok) {
      std::ostringstream shapes;
      for (size_t k = 0; k < indexed.size(); ++k) shapes << (k ? ", " : "") << indices[indexed[k]].sizes();
      EMBER_FAIL(op, ": shape mismatch: indexing tensors could not be broadcast together with shapes ",
                 shapes.str());
    }
    bshape = infer_broadcast_size(bshape, t.sizes(), op);
  }
  // Original dim of each dim of (possibly permuted) self, for error messages.
  DimVector dim_ids(nd);
  for (int64_t d = 0; d < nd; ++d) dim_ids[d] = d;
  const bool adjacent = indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  if (!adjacent) {
    DimVector perm(indexed);
    for (int64_t d = 0; d < nd; ++d)
      if (!indices[d].defined()) perm.push_back(d);
    std::vector<Tensor> reordered;
    for (int64_t d : perm) reordered.push_back(indices[d]);
    indices = std::move(reordered);
    self = self.permute(perm);
    dim_ids = perm;
  }
  const int64_t first = adjacent ? indexed.front() : 0;
  const int64_t m = static_cast<int64_t>(indexed.size());

  const TensorOptions long_opts = TensorOptions(kInt64).device(self.device());
  Tensor offsets = empty(bshape, long_opts);
  for (int64_t k = 0; k < m; ++k) {
    const int64_t d = first + k;
    TensorIterator iter(op);
    iter.add_output(offsets);
    if (k > 0) iter.add_input(offsets);
    iter.add_input(indices[d].expand(bshape)).promote_inputs_to_common_dtype(false);
    iter.build();
    index_offsets_slot(iter.device())(iter, IndexBound{op, dim_ids[d], self.size(d), wrap_negative},
                                      self.stride(d));
  }

  DimVector shape, src_strides, off_strides;
  for (int64_t d = 0; d < first; ++d) {
    shape.push_back(self.size(d));
    src_strides.push_back(self.stride(d));
    off_strides.push_back(0);
  }
  for (size_t i = 0; i < bshape.size(); ++i) {
    shape.push_back(bshape[i]);
    src_strides.push_back(0);
    off_strides.push_back(offsets.stride(static_cast<int64_t>(i)));
  }
  for (int64_t d = first + m; d < nd; ++d) {
    shape.push_back(self.size(d));
    src_strides.push_back(self.stride(d));
    off_strides.push_back(0);
  }
  return {self.as_strided(shape, src_strides, self.storage_offset()),
          offsets.as_strided(shape, off_strides, offsets.storage_offset())};
}

Tensor run_index(const IndexPlan& plan, DType dtype, const char* op) {
  TensorIterator iter(op);
  iter.add_output(Tensor()).add_input(plan.src).add_input(plan.offsets);
  iter.promote_inputs_to_common_dtype(false).output_dtype(dtype);
  iter.build();
  index_gather_slot(iter.device())(iter);
  return iter.output();
}

// A fresh view of self (basic indexing always returns a new tensor, as PyTorch's alias()).
Tensor alias_of(const Tensor& self) {
  autograd::OpRecorder rec("alias", {self});
  Tensor out = self.as_strided(self.sizes(), self.strides(), self.storage_offset());
  if (rec) rec.record(out, [](autograd::BackwardContext& c) { return autograd::variable_list{c.grads[0]}; });
  return out;
}

bool has_index_tensor(ArrayRef<std::optional<Tensor>> indices) {
  for (const auto& i : indices)
    if (i && i->defined()) return true;
  return false;
}

Tensor index_impl(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const char* op) {
  EMBER_CHECK(self.defined(), op, ": got an undefined tensor");
  check_index_count(self, count_indexed_dims(indices), op);
  // Fast paths for a single index tensor: it is one index_select or masked_select.
  int64_t ndefined = 0, at_dim = 0, d = 0;
  const Tensor* single = nullptr;
  for (const auto& entry : indices) {
    const bool defined = entry && entry->defined();
    if (defined) {
      ++ndefined;
      single = &*entry;
      at_dim = d;
    }
    d += defined && is_mask(*entry) ? entry->dim() : 1;
  }
  if (ndefined == 0) return alias_of(self);
  if (ndefined == 1 && single->dim() > 0) {
    const Tensor& t = *single;
    if (is_mask(t)) {
      check_mask_shape(t, self, at_dim, op);
      const Tensor mask = t.dtype() == kBool ? t : t.to(kBool);
      if (at_dim == 0 && t.dim() == self.dim()) return masked_select(self, mask);
      if (self.is_contiguous()) {
        Tensor flat_positions = nonzero(mask.reshape({-1})).view({-1});
        return index_along_dim(self.flatten(at_dim, at_dim + t.dim() - 1), at_dim, flat_positions, op,
                               false);
      }
    } else {
      return index_along_dim(self, at_dim, checked_long_index(t, op, true), op, true);
    }
  }
  DimIndices ex = expand_indices(self, indices, op);
  return run_index(make_plan(ex.self, ex.indices, op, true), self.dtype(), op);
}

// Advanced indexing, recorded: the gradient goes back to the indexed
// positions, summed where an index repeats (index_put with accumulate).
Tensor recorded_index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const char* op) {
  if (!self.defined() || !has_index_tensor(indices)) return index_impl(self, indices, op);
  autograd::OpRecorder rec("index", {self});
  Tensor out = unview(index_impl(self, indices, op));
  if (rec)
    rec.record(out, [sizes = DimVector(self.sizes()), saved = save_indices(rec, indices)](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return autograd::variable_list{
          ember::index_put(zeros(sizes, g.options()), unpack_indices(c, saved), g, /*accumulate=*/true)};
    });
  return out;
}

// Values for self[...] = values: leading size-1 dims dropped (as PyTorch), then
// broadcast to the indexing result's shape.
// Python's `x[...] = v` drops v's leading size-1 dims first (PyTorch's
// slicePrefix1sDims); index_put (the op) does not: a [1] value cannot go into a
// 0-dim indexing result there.
Tensor strip_leading_ones(const Tensor& values) {
  Tensor v = values;
  while (v.dim() > 0 && v.size(0) == 1) v = v.squeeze(0);
  return v;
}

Tensor broadcast_value(const Tensor& values, IntArrayRef shape, const char* op) {
  const Tensor& v = values;
  bool ok = v.dim() <= static_cast<int64_t>(shape.size());
  for (int64_t i = 0; ok && i < v.dim(); ++i) {
    const int64_t target = shape[shape.size() - v.dim() + i];
    ok = v.size(i) == target || v.size(i) == 1;
  }
  EMBER_CHECK(ok, op, ": shape mismatch: value tensor of shape ", values.sizes(),
              " cannot be broadcast to indexing result of shape ", shape);
  return v.expand(shape);
}

// Reading from the storage being written (x[idx] = x[...]) needs a copy first.
Tensor unaliased(const Tensor& values, const Tensor& self) {
  return values.storage() == self.storage() ? values.clone() : values;
}

void check_writable(const Tensor& self, const char* op) {
  EMBER_CHECK(!has_internal_overlap(self), op,
              ": unsupported operation: some elements of the written-to tensor (sizes ", self.sizes(),
              ", strides ", self.strides(), ") refer to a single memory location; clone() it first");
}

// dst[...] = values with Python's assignment rule (see strip_leading_ones).
void copy_to(const Tensor& dst, const Tensor& values, const char* op) {
  check_writable(dst, op);
  Tensor v = broadcast_value(strip_leading_ones(unaliased(values, dst)), dst.sizes(), op);
  Tensor target = dst;
  target.copy_(v);
}

// One mask (bool/uint8) among the indices, the rest None: PyTorch then puts a
// one-element value as masked_fill does, whatever the value's shape.
bool single_mask(ArrayRef<std::optional<Tensor>> indices) {
  int masks = 0, tensors = 0;
  for (const std::optional<Tensor>& t : indices) {
    if (!t || !t->defined()) continue;
    ++tensors;
    if (t->dtype() == kBool || t->dtype() == kUInt8) ++masks;
  }
  return tensors == 1 && masks == 1;
}

Tensor& index_put_impl(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values_in,
                       bool accumulate, const char* op) {
  const Tensor values = values_in.defined() && !accumulate && values_in.numel() == 1 && single_mask(indices)
                            ? values_in.reshape({})
                            : values_in;
  EMBER_CHECK(self.defined() && values.defined(), op, ": got an undefined tensor");
  EMBER_CHECK(values.dtype() == self.dtype(), op,
              ": index put requires the source and destination dtypes match, got ", self.dtype(),
              " for the destination and ", values.dtype(), " for the source");
  EMBER_CHECK(values.device() == self.device(), op, ": values on ", values.device(),
              " cannot be put into a tensor on ", self.device());
  check_writable(self, op);
  check_index_count(self, count_indexed_dims(indices), op);
  if (self.impl()->has_lazy_bits()) {
    // Note [Conjugate bit]: write into the values, then store them back through the bits.
    Tensor values_of_self = resolve_bits(self);
    index_put_impl(values_of_self, indices, values, accumulate, op);
    self.copy_(values_of_self);
    return self;
  }
  DimIndices ex = expand_indices(self, indices, op);
  bool any = false;
  for (const Tensor& t : ex.indices) any = any || t.defined();
  if (!any) {
    Tensor target = self;
    const Tensor v = broadcast_value(unaliased(values, self), self.sizes(), op);
    if (accumulate) target.add_(v);
    else target.copy_(v);
    return self;
  }
  IndexPlan plan = make_plan(ex.self, ex.indices, op, true);
  Tensor v = broadcast_value(unaliased(values, self), plan.src.sizes(), op);
  TensorIterator iter(op);
  // plan.src is self restrided with stride 0 over the indexed dims; the kernel
  // writes through the offsets, so the overlap check does not apply.
  iter.add_output(plan.src).add_input(v).add_input(plan.offsets);
  iter.promote_inputs_to_common_dtype(false).output_dtype(self.dtype()).check_mem_overlap(false);
  iter.build();
  index_put_slot(iter.device())(iter, accumulate);
  self.bump_version();
  return self;
}

// ---- TensorIndex lists: basic indices applied as views, tensors collected ----
struct Sliced {
  Tensor result;
  std::vector<std::optional<Tensor>> tensors;  // per dim of result; empty = basic indexing only
};

Tensor select_checked(const Tensor& t, int64_t dim, int64_t index, int64_t orig_dim, const char* op) {
  const int64_t size = t.size(dim);
  EMBER_CHECK(index >= -size && index < size, op, ": index ", index, " is out of bounds for dimension ",
              orig_dim, " with size ", size);
  return t.select(dim, index);
}

Sliced apply_slicing(const Tensor& self, ArrayRef<TensorIndex> indices, const char* op) {
  EMBER_CHECK(self.defined(), op, ": got an undefined tensor");
  EMBER_CHECK(!indices.empty(), op, ": passing an empty index list to Tensor::", op,
              "() is not valid syntax");
  int64_t specified = 0, ellipses = 0;
  for (const TensorIndex& idx : indices) {
    if (idx.is_integer() || idx.is_slice()) ++specified;
    else if (idx.is_ellipsis()) ++ellipses;
    else if (idx.is_tensor() && idx.tensor().defined())
      specified += is_mask(idx.tensor()) ? idx.tensor().dim() : 1;
  }
  EMBER_CHECK(ellipses <= 1, op, ": an index can only have a single ellipsis ('...')");
  check_index_count(self, specified, op);

  Sliced s{self, {}};
  int64_t dim = 0;      // position in s.result
  int64_t orig = 0;     // position in self, for messages
  int64_t covered = 0;  // dims of s.result that s.tensors accounts for
  auto record = [&](Tensor t, int64_t span) {
    for (; covered < dim; ++covered) s.tensors.emplace_back(std::nullopt);
    s.tensors.emplace_back(std::move(t));
    covered += span;
    dim += span;
  };
  for (const TensorIndex& idx : indices) {
    switch (idx.kind()) {
      case TensorIndex::Kind::None:
        s.result = s.result.unsqueeze(dim++);
        break;
      case TensorIndex::Kind::Ellipsis: {
        const int64_t skipped = self.dim() - specified;
        dim += skipped;
        orig += skipped;
        break;
      }
      case TensorIndex::Kind::Integer:
        s.result = select_checked(s.result, dim, idx.integer(), orig++, op);
        break;
      case TensorIndex::Kind::Boolean:
        s.result = s.result.unsqueeze(dim);
        record(bool_index(idx.boolean(), self.device()), 1);
        break;
      case TensorIndex::Kind::Slice: {
        const auto& sl = idx.slice();
        EMBER_CHECK(sl.step() > 0, op, ": step must be greater than zero, got ", sl.step());
        s.result = s.result.slice(dim++, sl.start(), sl.stop(), sl.step());
        ++orig;
        break;
      }
      case TensorIndex::Kind::Tensor: {
        const Tensor& t = idx.tensor();
        EMBER_CHECK(t.defined(), op, ": got an undefined index tensor");
        if (t.dim() == 0 && is_integral(t.dtype(), /*include_bool=*/true)) {
          // 0-d integer tensors index like integers; 0-d masks like bools.
          if (is_mask(t)) {
            s.result = s.result.unsqueeze(dim);
            record(bool_index(t.item<bool>(), self.device()), 1);
          } else {
            s.result = select_checked(s.result, dim, t.item<int64_t>(), orig++, op);
          }
        } else {
          const int64_t span = is_mask(t) ? t.dim() : 1;
          record(t, span);
          orig += span;
        }
        break;
      }
    }
  }
  return s;
}

}  // namespace

Tensor index_along_dim(const Tensor& self, int64_t dim, const Tensor& index, const char* op,
                       bool wrap_negative) {
  DimVector shape;
  for (int64_t d = 0; d < dim; ++d) shape.push_back(self.size(d));
  for (int64_t s : index.sizes()) shape.push_back(s);
  for (int64_t d = dim + 1; d < self.dim(); ++d) shape.push_back(self.size(d));
  if (self.is_contiguous()) {
    DimVector flat_shape(self.sizes());
    flat_shape[dim] = index.numel();
    Tensor out = empty(flat_shape, self.options());
    index_select_slot(self.device())(self, dim, index.reshape({-1}).contiguous(), out,
                                     IndexBound{op, dim, self.size(dim), wrap_negative});
    return out.view(shape);
  }
  std::vector<Tensor> indices(self.dim());
  indices[dim] = index;
  return run_index(make_plan(self, indices, op, wrap_negative), self.dtype(), op);
}

Tensor index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) {
  return recorded_index(self, indices, "index");
}

Tensor& index_put_(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                   bool accumulate) {
  if (autograd::inplace_records(self, {values}))
    return autograd::assign_inplace(self, ember::index_put(self, indices, values, accumulate), "index_put_");
  return index_put_impl(self, indices, values, accumulate, "index_put_");
}

// self's gradient: grad where self survives (everywhere with accumulate, else
// zero at the written positions); values' gradient: grad read back at the
// written positions, reduced to values' shape.
Tensor index_put(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                 bool accumulate) {
  autograd::OpRecorder rec("index_put", {self, values});
  Tensor out = self.clone();
  index_put_impl(out, indices, values, accumulate, "index_put");
  if (rec)
    rec.record(out, [saved = save_indices(rec, indices), accumulate,
                     values_sizes = DimVector(values.sizes())](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      const auto indices = unpack_indices(c, saved);
      Tensor grad_self, grad_values;
      if (c.needs(0))
        grad_self = accumulate ? g : ember::index_put(g, indices, zeros({}, g.options()), false);
      if (c.needs(1)) grad_values = reduce_to(ember::index(g, indices), values_sizes);
      return autograd::variable_list{grad_self, grad_values};
    });
  return out;
}

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  Sliced s = apply_slicing(*this, indices, "index");
  if (s.tensors.empty()) return s.result.is_same(*this) ? alias_of(s.result) : s.result;
  return recorded_index(s.result, s.tensors, "index");
}
Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(ArrayRef<TensorIndex>(indices));
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) {
  Sliced s = apply_slicing(*this, indices, "index_put_");
  if (s.tensors.empty()) {
    copy_to(s.result, value, "index_put_");
  } else {
    ember::index_put_(s.result, s.tensors, strip_leading_ones(value), false);
  }
  return *this;
}
Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) {
  Sliced s = apply_slicing(*this, indices, "index_put_");
  if (s.tensors.empty()) {
    check_writable(s.result, "index_put_");
    s.result.fill_(value);
  } else {
    ember::index_put_(s.result, s.tensors, full({}, value, options()), false);
  }
  return *this;
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) {
  return index_put_(ArrayRef<TensorIndex>(indices), value);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) {
  return index_put_(ArrayRef<TensorIndex>(indices), value);
}

Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(self.defined() && index.defined(), "take: got an undefined tensor");
  EMBER_CHECK(index.dtype() == kInt64, "take: expected a long tensor for index, but got ", index.dtype());
  autograd::OpRecorder rec("take", {self});
  Tensor out = unview(index_along_dim(self.reshape({-1}), 0, index, "take", true));
  if (rec)
    rec.record(out, [sizes = DimVector(self.sizes()), saved = rec.save(index)](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      std::vector<std::optional<Tensor>> indices{c.unpack(saved)};
      return autograd::variable_list{
          ember::index_put(zeros({numel_of(sizes)}, g.options()), indices, g, /*accumulate=*/true).view(sizes)};
    });
  return out;
}
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }

}  // namespace ember
