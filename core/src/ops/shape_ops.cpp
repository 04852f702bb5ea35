// Shape and combination ops: cat/stack, flip/roll, repeat/tile,
// repeat_interleave, tril/triu. Copies go through copy_ (TensorIterator) or
// the per-dim index-map kernel in kernels/cpu/shape_kernels.cpp; pad lives in
// pad_ops.cpp.
#include <algorithm>
#include <numeric>

#include "autograd/formulas.h"
#include "autograd/record.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape.h"
#include "iter/tensor_iterator.h"
#include "ops/op_utils.h"
#include "ops/out_resize.h"
#include "kernels/slots/shape_kernels.h"

namespace ember {

EMBER_DEFINE_SLOT(remap_copy_slot, RemapCopyFn, "remap_copy");
EMBER_DEFINE_FAMILY_SLOT(triangle_slot, TriangleFn, "triangle", kTriangleOpNames,
                         static_cast<int>(std::size(kTriangleOpNames)));

namespace {

// The inputs for an OpRecorder (no copy of the list when nothing records).
std::vector<Tensor> recorder_inputs(TensorList tensors) {
  if (!autograd::is_recording()) return {};
  return std::vector<Tensor>(tensors.begin(), tensors.end());
}

// PyTorch skips 1-d empty inputs of cat whatever the other shapes are (legacy).
bool cat_skips(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

struct CatPlan {
  DimVector shape;
  int64_t dim = 0;
  DType dtype = DType::Float32;
  MemoryFormat format = MemoryFormat::Contiguous;
};

CatPlan plan_cat(TensorList tensors, int64_t dim, const char* op) {
  EMBER_CHECK(!tensors.empty(), op, "(): expected a non-empty list of Tensors");
  int64_t ref = -1;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), op, "(): tensor at position ", i, " is undefined");
    EMBER_CHECK(t.dim() > 0, op, "(): zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    EMBER_CHECK(t.device() == tensors[0].device(), op, "(): all tensors must be on the same device, got ",
                tensors[0].device(), " (tensor 0) and ", t.device(), " (tensor ", i, ")");
    if (ref < 0 && !cat_skips(t)) ref = static_cast<int64_t>(i);
  }
  CatPlan plan;
  plan.dtype = result_type(tensors);
  // The output keeps the layout every input suggests, else row-major.
  plan.format = tensors[0].suggest_memory_format();
  for (const Tensor& t : tensors)
    if (t.suggest_memory_format() != plan.format) plan.format = MemoryFormat::Contiguous;
  if (ref < 0) {  // every input is a skipped 1-d empty tensor
    plan.shape = DimVector(tensors[0].sizes());
    plan.dim = wrap_dim(dim, 1, op);
    return plan;
  }
  const Tensor& first = tensors[ref];
  plan.dim = wrap_dim(dim, first.dim(), op);
  plan.shape = DimVector(first.sizes());
  int64_t cat_size = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_skips(t)) continue;
    EMBER_CHECK(t.dim() == first.dim(), op, "(): Tensors must have same number of dimensions: got ",
                first.dim(), " (tensor ", ref, ", sizes ", first.sizes(), ") and ", t.dim(), " (tensor ", i,
                ", sizes ", t.sizes(), ")");
    for (int64_t d = 0; d < t.dim(); ++d)
      EMBER_CHECK(d == plan.dim || t.size(d) == first.size(d), op,
                  "(): Sizes of tensors must match except in dimension ", plan.dim, ". Expected size ",
                  first.size(d), " but got size ", t.size(d), " for tensor number ", i,
                  " in the list (sizes ", first.sizes(), " vs ", t.sizes(), ")");
    EMBER_CHECK(!add_overflows(cat_size, t.size(plan.dim), &cat_size), op, "(): the sizes of dim ", plan.dim,
                " of the inputs sum past int64 (at tensor ", i, ", sizes ", t.sizes(), ")");
  }
  plan.shape[plan.dim] = cat_size;
  return plan;
}

void cat_into(Tensor& out, TensorList tensors, const CatPlan& plan, const char* op) {
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].storage().get() != out.storage().get(), op,
                "(): the out tensor shares memory with input tensor ", i, "; pass a separate out tensor");
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (cat_skips(t)) continue;
    const int64_t n = t.size(plan.dim);
    if (n > 0 && t.numel() > 0) out.narrow(plan.dim, offset, n).copy_(t);
    offset += n;
  }
}

std::vector<Tensor> unsqueeze_all(TensorList tensors, int64_t dim, const char* op) {
  EMBER_CHECK(!tensors.empty(), op, " expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), op, ": tensor at position ", i, " is undefined");
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(), op,
                " expects each tensor to be equal size, but got ", tensors[0].sizes(), " at entry 0 and ",
                tensors[i].sizes(), " at entry ", i);
  }
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, op);
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.unsqueeze(d));
  return out;
}

Tensor at_least(const Tensor& t, int64_t ndim) {
  if (t.dim() >= ndim) return t;
  if (t.dim() == 0) return ndim == 1 ? t.reshape({1}) : t.reshape({1, 1});
  return t.unsqueeze(0);  // 1-d -> 2-d
}

std::vector<int64_t> identity_map(int64_t n) {
  std::vector<int64_t> m(static_cast<size_t>(n));
  std::iota(m.begin(), m.end(), int64_t{0});
  return m;
}

// An uninitialized tensor like `self`, laid out as PyTorch's TensorIterator
// allocates an elementwise op's output: the input's strides when it is dense,
// else dense strides in the input's stride order (a sliced channels-last input
// gives channels-last, a sliced row-major one row-major).
Tensor empty_in_stride_order(const Tensor& self, const char* op) {
  if (self.is_non_overlapping_and_dense()) return empty_strided_for(op, self.sizes(), self.strides(), self.options());
  TensorIterator iter(op);
  iter.add_output(Tensor()).add_input(self).promote_inputs_to_common_dtype(false).output_dtype(self.dtype());
  iter.build();
  return iter.output();
}

// Output of `self`'s dtype and the given shape for the index-map kernel. Its
// layout: `format` when given; else, for the same shape (flip), the input's, as
// PyTorch's TensorIterator gives; else contiguous. Allocated before the maps
// are built, so that a shape too large fails with the op's name before any map
// is (Note [Checked sizes]).
Tensor remap_output(const Tensor& self, IntArrayRef out_shape, const char* op,
                    std::optional<MemoryFormat> format = std::nullopt) {
  if (format) return empty_for(op, out_shape, self.options().memory_format(*format));
  if (out_shape == self.sizes()) return empty_in_stride_order(self, op);
  return empty_for(op, out_shape, self.options());
}

std::vector<std::vector<int64_t>> identity_maps(const Tensor& t) {
  std::vector<std::vector<int64_t>> maps;
  for (int64_t d = 0; d < t.dim(); ++d) maps.push_back(identity_map(t.size(d)));
  return maps;
}

Tensor triangle(const Tensor& self, int64_t diagonal, bool lower, const char* op) {
  EMBER_CHECK(self.defined(), op, ": input tensor is undefined");
  EMBER_CHECK(self.dim() >= 2, op, ": input tensor must have at least 2 dimensions, got sizes ", self.sizes());
  const Tensor src = self.contiguous();
  Tensor out = empty_for(op, self.sizes(), self.options());
  if (out.numel() > 0) triangle_slot(self.device())(src, out, diagonal, lower);
  return out;
}

}  // namespace

// ---- cat / stack ----
// Backward: each input gets its slice of the gradient; skipped 1-d empty
// inputs get an empty gradient (PyTorch's cat_tensors_backward).
Tensor cat(TensorList tensors, int64_t dim) {
  CatPlan plan = plan_cat(tensors, dim, "cat");
  autograd::OpRecorder rec("cat", recorder_inputs(tensors));
  Tensor out = empty_for("cat", plan.shape, TensorOptions(plan.dtype).device(tensors[0].device()).memory_format(plan.format));
  cat_into(out, tensors, plan, "cat");
  if (rec) {
    // (offset, length) along the cat dim per input; length -1: skipped.
    std::vector<std::pair<int64_t, int64_t>> parts;
    int64_t offset = 0;
    for (const Tensor& t : tensors) {
      if (cat_skips(t)) {
        parts.emplace_back(0, -1);
        continue;
      }
      parts.emplace_back(offset, t.size(plan.dim));
      offset += t.size(plan.dim);
    }
    rec.record(out, [parts = std::move(parts), d = plan.dim](autograd::BackwardContext& c) {
      autograd::variable_list grads;
      for (size_t i = 0; i < parts.size(); ++i) {
        if (!c.needs(i)) grads.emplace_back();
        else if (parts[i].second < 0) grads.push_back(zeros({0}, c.grads[0].options()));
        else grads.push_back(c.grads[0].narrow(d, parts[i].first, parts[i].second));
      }
      return grads;
    });
  }
  return out;
}

Tensor& cat_out(Tensor& out, TensorList tensors, int64_t dim) {
  for (const Tensor& t : tensors) autograd::check_out_arguments("cat", out, {t});
  CatPlan plan = plan_cat(tensors, dim, "cat");
  check_out_dtype(out, plan.dtype, "cat");
  EMBER_CHECK(out.device() == tensors[0].device(), "cat(): out tensor is on ", out.device(),
              " but the inputs are on ", tensors[0].device());
  resize_out(out, plan.shape, "cat", plan.format);
  cat_into(out, tensors, plan, "cat");
  return out;
}

Tensor concat(TensorList tensors, int64_t dim) { return cat(tensors, dim); }

// Backward: input i gets the gradient's slice i along the new dim.
Tensor stack(TensorList tensors, int64_t dim) {
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].defined(), "stack: tensor at position ", i, " is undefined");
  autograd::OpRecorder rec("stack", recorder_inputs(tensors));
  std::vector<Tensor> parts = unsqueeze_all(tensors, dim, "stack");
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  Tensor out = cat(parts, d);
  if (rec)
    rec.record(out, [n = tensors.size(), d](autograd::BackwardContext& c) {
      autograd::variable_list grads;
      for (size_t i = 0; i < n; ++i)
        grads.push_back(c.needs(i) ? c.grads[0].select(d, static_cast<int64_t>(i)) : Tensor());
      return grads;
    });
  return out;
}

Tensor& stack_out(Tensor& out, TensorList tensors, int64_t dim) {
  for (const Tensor& t : tensors) autograd::check_out_arguments("stack", out, {t});
  std::vector<Tensor> parts = unsqueeze_all(tensors, dim, "stack");
  return cat_out(out, parts, wrap_dim(dim, tensors[0].dim() + 1, "stack"));
}

Tensor hstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(at_least(t, 1));
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(at_least(t, 2));
  return cat(parts, 0);
}

// ---- flip / roll ----
namespace {
Tensor flip_impl(const Tensor& self, IntArrayRef dims) {
  const uint64_t mask = dims.empty() ? 0 : dims_to_mask(dims, self.dim(), "flip");
  if (mask == 0 || self.dim() == 0) return self.clone();  // layout preserved, as any flip
  Tensor out = remap_output(self, self.sizes(), "flip");
  if (out.numel() == 0) return out;
  const auto maps = build_index_maps("flip", [&] {
    auto m = identity_maps(self);
    for (int64_t d = 0; d < self.dim(); ++d)
      if (mask >> d & 1) std::reverse(m[d].begin(), m[d].end());
    return m;
  });
  remap_copy_slot(self.device())(self, out, maps);
  return out;
}
}  // namespace

// Backward: the same flip.
Tensor flip(const Tensor& self, IntArrayRef dims) {
  EMBER_CHECK(self.defined(), "flip: input tensor is undefined");
  autograd::OpRecorder rec("flip", {self});
  Tensor out = flip_impl(self, dims);
  if (rec)
    rec.record(out, [d = DimVector(dims)](autograd::BackwardContext& c) {
      return autograd::variable_list{c.grads[0].flip(d)};
    });
  return out;
}

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "fliplr: input must be >= 2-d, got sizes ", self.sizes());
  return flip(self, {1});
}

Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "flipud: input must be >= 1-d, got a 0-d tensor");
  return flip(self, {0});
}

namespace {
Tensor roll_impl(const Tensor& self, IntArrayRef shifts, IntArrayRef dims);
}

// Backward: the opposite roll.
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(self.defined(), "roll: input tensor is undefined");
  autograd::OpRecorder rec("roll", {self});
  Tensor out = roll_impl(self, shifts, dims);
  if (rec) {
    // The opposite shift, reduced modulo the dim's size first (-INT64_MIN is
    // not an int64; roll_impl checked shifts and dims already).
    DimVector back;
    for (size_t i = 0; i < shifts.size(); ++i) {
      const int64_t n = dims.empty() ? self.numel() : self.size(wrap_dim(dims[i], self.dim(), "roll"));
      back.push_back(n == 0 ? 0 : -(shifts[i] % n));
    }
    rec.record(out, [back, d = DimVector(dims)](autograd::BackwardContext& c) {
      return autograd::variable_list{c.grads[0].roll(back, d)};
    });
  }
  return out;
}

namespace {
Tensor roll_impl(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), "roll: `shifts` required");
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "roll: without dims, shifts must have one entry, got ", shifts);
    return roll_impl(self.flatten(), shifts, {0}).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "roll: shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  EMBER_CHECK(self.dim() > 0, "roll: dimension specified as ", dims[0], " but tensor has no dimensions");
  // Rolling one dim twice adds the shifts, as PyTorch's repeated rolls do,
  // modulo the size (kept in [0, n) at every step, so extreme shifts and
  // sizes cannot overflow).
  std::vector<int64_t> total(static_cast<size_t>(self.dim()), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim(), "roll");
    const int64_t n = self.size(d);
    if (n == 0) continue;
    int64_t r = shifts[i] % n;
    if (r < 0) r += n;
    total[d] = total[d] >= n - r ? total[d] - (n - r) : total[d] + r;
  }
  // PyTorch's roll writes channels-last for a channels-last input and
  // contiguous otherwise (even for a dense transposed input, unlike flip).
  Tensor out = remap_output(self, self.sizes(), "roll", self.suggest_memory_format());
  if (out.numel() == 0) return out;
  const auto maps = build_index_maps("roll", [&] {
    auto m = identity_maps(self);
    for (int64_t d = 0; d < self.dim(); ++d) {
      const int64_t n = self.size(d), s = total[d];
      for (int64_t j = 0; j < n; ++j) m[d][j] = j >= s ? j - s : j - s + n;
    }
    return m;
  });
  remap_copy_slot(self.device())(self, out, maps);
  return out;
}
}  // namespace

// ---- repeat / tile / repeat_interleave ----
Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  EMBER_CHECK(static_cast<int64_t>(repeats.size()) >= self.dim(),
              "repeat: Number of dimensions of repeat dims can not be smaller than number of dimensions of "
              "tensor (repeats ",
              repeats, ", tensor sizes ", self.sizes(), ")");
  const size_t nd = repeats.size();
  const size_t lead = nd - static_cast<size_t>(self.dim());
  DimVector padded(nd, 1), out_shape(nd), pair_shape, expanded_shape;
  for (size_t d = 0; d < nd; ++d) {
    EMBER_CHECK(repeats[d] >= 0, "repeat: repeats can not be negative, got ", repeats);
    if (d >= lead) padded[d] = self.size(static_cast<int64_t>(d - lead));
    EMBER_CHECK(!mul_overflows(padded[d], repeats[d], &out_shape[d]), "repeat: repeating size ", padded[d],
                " of dim ", d, " ", repeats[d], " times overflows int64 (repeats ", repeats, ", tensor sizes ",
                self.sizes(), ")");
    // Each dim becomes a (repeat, size) pair: the input broadcasts along the repeat.
    pair_shape.push_back(1);
    pair_shape.push_back(padded[d]);
    expanded_shape.push_back(repeats[d]);
    expanded_shape.push_back(padded[d]);
  }
  autograd::OpRecorder rec("repeat", {self});
  Tensor out = empty_for("repeat", out_shape, self.options());
  if (out.numel() > 0) out.view(expanded_shape).copy_(self.reshape(pair_shape).expand(expanded_shape));
  if (rec) {
    // Backward: the gradient viewed as (repeat, size) pairs, summed over the repeats.
    DimVector repeat_dims;
    for (size_t d = 0; d < nd; ++d) repeat_dims.push_back(static_cast<int64_t>(2 * d));
    rec.record(out, [expanded_shape, repeat_dims, sizes = DimVector(self.sizes())](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      if (repeat_dims.empty()) return autograd::variable_list{g};  // 0-d self, no repeats
      return autograd::variable_list{g.reshape(expanded_shape).sum(repeat_dims).reshape(sizes)};
    });
  }
  return out;
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  std::vector<int64_t> reps(dims.begin(), dims.end());
  while (static_cast<int64_t>(reps.size()) < self.dim()) reps.insert(reps.begin(), 1);
  return repeat(self, reps);
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.defined() && is_integral(repeats.dtype()),
              "repeat_interleave: repeats has to be Long or Int tensor, got ",
              repeats.defined() ? repeats.dtype() : kBool);
  EMBER_CHECK(repeats.dim() <= 1, "repeat_interleave: repeats must be 0-dim or 1-dim tensor, got sizes ",
              repeats.sizes());
  EMBER_CHECK(!dim || self.dim() > 0, "repeat_interleave: dim specified as ", *dim,
              " but the tensor has no dimensions");
  const Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = dim ? wrap_dim(*dim, self.dim(), "repeat_interleave") : 0;
  const int64_t n = input.size(d);
  // The counts decide the output's size: they are read on the host.
  Tensor reps = repeats.to(kInt64).cpu().contiguous().reshape({-1});
  EMBER_CHECK(reps.numel() == 1 || reps.numel() == n,
              "repeat_interleave: repeats must have the same size as input along dim, but got repeats.size(0) = ",
              reps.numel(), " and input.size(", d, ") = ", n);
  const int64_t* r = reps.data_ptr<int64_t>();
  // The output's length along d, checked, and the output allocated before
  // the index map of that length is built (Note [Checked sizes]).
  // One repeat for all: a product, not a loop over a dim that may be a huge
  // stride-0 view's.
  int64_t total = 0;
  if (reps.numel() == 1) {
    EMBER_CHECK(r[0] >= 0, "repeat_interleave: repeats can not be negative, got ", r[0]);
    EMBER_CHECK(!mul_overflows(n, r[0], &total), "repeat_interleave: repeating ", n, " elements ", r[0],
                " times each overflows int64");
  } else {
    for (int64_t i = 0; i < reps.numel(); ++i) {
      EMBER_CHECK(r[i] >= 0, "repeat_interleave: repeats can not be negative, got ", r[i], " at index ", i);
      EMBER_CHECK(!add_overflows(total, r[i], &total), "repeat_interleave: the repeats sum past int64 (at index ",
                  i, ", repeat ", r[i], ")");
    }
  }
  EMBER_CHECK(!output_size || *output_size == total, "repeat_interleave: output_size ", *output_size,
              " doesn't match the sum of repeats ", total);
  DimVector shape(input.sizes());
  shape[d] = total;
  Tensor out = remap_output(input, shape, "repeat_interleave");
  autograd::OpRecorder rec("repeat_interleave", {self});
  Tensor index;
  if (out.numel() > 0 || rec) {
    auto maps = build_index_maps("repeat_interleave", [&] {
      auto m = identity_maps(input);
      std::vector<int64_t> map;
      map.reserve(static_cast<size_t>(total));
      for (int64_t i = 0; i < n; ++i) map.insert(map.end(), static_cast<size_t>(reps.numel() == 1 ? r[0] : r[i]), i);
      m[d] = std::move(map);
      return m;
    });
    if (rec) index = tensor(maps[d], kInt64);
    if (out.numel() > 0) remap_copy_slot(input.device())(input, out, maps);
  }
  if (rec) {
    // Backward: each gradient element added to the element it repeats.
    std::vector<Tensor> index_maps(static_cast<size_t>(input.dim()));
    index_maps[d] = index;
    rec.record(out, [index_maps, in_sizes = DimVector(input.sizes()), sizes = DimVector(self.sizes())](
                        autograd::BackwardContext& c) {
      return autograd::variable_list{autograd::index_map_backward(c.grads[0], in_sizes, index_maps).reshape(sizes)};
    });
  }
  return out;
}

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, "repeat_interleave: repeats can not be negative, got ", repeats);
  return repeat_interleave(self, scalar_tensor(repeats, kInt64), dim, output_size);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.defined() && repeats.dim() == 1,
              "repeat_interleave: repeat_interleave only accept 1D vector as repeat, got sizes ",
              repeats.defined() ? repeats.sizes() : IntArrayRef());
  return repeat_interleave(arange(repeats.size(0), TensorOptions(repeats.dtype()).device(repeats.device())),
                           repeats, 0, output_size);
}

// ---- tril / triu ----
namespace {
// Backward: the same triangle of the gradient.
Tensor recorded_triangle(const Tensor& self, int64_t diagonal, bool lower, const char* op) {
  autograd::OpRecorder rec(op, {self});
  Tensor out = triangle(self, diagonal, lower, op);
  if (rec)
    rec.record(out, [diagonal, lower](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return autograd::variable_list{lower ? g.tril(diagonal) : g.triu(diagonal)};
    });
  return out;
}
}  // namespace

Tensor tril(const Tensor& self, int64_t diagonal) { return recorded_triangle(self, diagonal, true, "tril"); }
Tensor triu(const Tensor& self, int64_t diagonal) { return recorded_triangle(self, diagonal, false, "triu"); }

Tensor& tril_out(Tensor& out, const Tensor& self, int64_t diagonal) {
  autograd::check_out_arguments("tril", out, {self});
  Tensor result = tril(self, diagonal);
  check_out_dtype(out, result.dtype(), "tril");
  resize_out(out, result.sizes(), "tril");
  return out.copy_(result);
}

Tensor& triu_out(Tensor& out, const Tensor& self, int64_t diagonal) {
  autograd::check_out_arguments("triu", out, {self});
  Tensor result = triu(self, diagonal);
  check_out_dtype(out, result.dtype(), "triu");
  resize_out(out, result.sizes(), "triu");
  return out.copy_(result);
}

// ---- Tensor methods ----
Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::fliplr() const { return ember::fliplr(*this); }
Tensor Tensor::flipud() const { return ember::flipud(*this); }
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const { return ember::roll(*this, shifts, dims); }
Tensor Tensor::repeat(IntArrayRef repeats) const { return ember::repeat(*this, repeats); }
Tensor Tensor::tile(IntArrayRef dims) const { return ember::tile(*this, dims); }
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }
Tensor& Tensor::tril_(int64_t diagonal) {
  if (autograd::inplace_records(*this)) return autograd::assign_inplace(*this, ember::tril(*this, diagonal), "tril_");
  return copy_(triangle(*this, diagonal, true, "tril_"));
}
Tensor& Tensor::triu_(int64_t diagonal) {
  if (autograd::inplace_records(*this)) return autograd::assign_inplace(*this, ember::triu(*this, diagonal), "triu_");
  return copy_(triangle(*this, diagonal, false, "triu_"));
}

}  // namespace ember
