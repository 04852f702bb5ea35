// Views: tensors sharing their base's storage with new sizes/strides/offset.
// The metadata queries (size, stride, contiguity, item) are in
// metadata_ops.cpp, the complex views (real, imag, conj, view_as_real,
// view_as_complex) in complex_view_ops.cpp.
#include <algorithm>
#include <numeric>

#include <unistd.h>

#include "autograd/autograd_meta.h"
#include "autograd/formulas.h"
#include "autograd/record.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
#include "ops/op_utils.h"
#include "ops/quantized_tensor.h"
#include "ops/view_helpers.h"

namespace ember {

namespace {

// Multi-output views (split, chunk, tensor_split, unbind) make one tensor per
// piece. A dim of 2^40 values (an expanded view costs nothing) split into
// ones would fill the memory with tensor headers for minutes before failing:
// refuse a piece count whose headers cannot fit in the machine's memory.
void check_piece_count(const char* op, int64_t pieces) {
  constexpr int64_t kBytesPerPiece = sizeof(TensorImpl) + sizeof(Tensor);
  static const int64_t memory_bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : INT64_MAX;
  }();
  EMBER_CHECK(pieces <= memory_bytes / kBytesPerPiece, op, ": ", pieces, " outputs would need ",
              static_cast<double>(pieces) * kBytesPerPiece / (1 << 30), " GiB for their tensors, more than the ",
              memory_bytes >> 20, " MiB of memory this machine has");
}


// Note [Multi-output views]
// split, split_with_sizes (and chunk through them) and unbind record one node
// for all their outputs, whose backward writes every output's gradient (zeros
// where none flowed) into its region of a zero tensor. As in PyTorch, the
// outputs (and views of them) cannot be written in place while autograd
// records: check_inplace raises PyTorch's error. Unlike PyTorch, outputs of
// a tensor that did not require grad are not marked (marking costs an
// allocation per output on every call in grad mode), so writing a value that
// requires grad into them is allowed; the base's history is rebased as for any
// view (Note [In-place writes and views]), which gives correct gradients.
// tensor_split returns plain slices (as PyTorch's composite does), which can
// be written in place.
template <class Make, class Backward>
std::vector<Tensor> recorded_multi_view(const char* op, const Tensor& self, Make&& make, Backward&& backward) {
  autograd::OpRecorder rec(op, {self});
  std::vector<Tensor> out = make();
  if (!rec || out.empty()) return out;
  rec.record(out, [b = std::forward<Backward>(backward)](autograd::BackwardContext& c) {
    return autograd::variable_list{b(c.grads)};
  });
  {
    const std::string name = autograd::backward_name(op);
    for (size_t i = 0; i < out.size(); ++i) {
      autograd::AutogradMeta& m = out[i].impl()->ensure_autograd_meta();
      m.multi_output_view_fn = name;
      m.multi_output_view_nr = static_cast<uint32_t>(i);
    }
  }
  return out;
}

// Backward of as_strided (PyTorch's as_strided_backward): the gradient is
// scattered into a zero buffer standing for the storage, through the output's
// geometry (summed where output elements overlap), divided where the input's
// own elements overlap, and read back through the input's geometry. Offsets
// are relative to the smaller of the two.
bool maybe_overlapping(IntArrayRef sizes, IntArrayRef strides) {
  DimVector order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return strides[a] < strides[b]; });
  int64_t max_index_in_slice = 0;
  for (int64_t i : order) {
    if (strides[i] <= max_index_in_slice) return true;
    max_index_in_slice += strides[i] * (sizes[i] - 1);
  }
  return false;
}

int64_t min_storage_size(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t n = offset + 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return offset;
    n += (sizes[i] - 1) * strides[i];
  }
  return n;
}

struct StridedGeometry {
  DimVector sizes, strides;
  int64_t offset;
};

Tensor as_strided_backward(Tensor grad, const StridedGeometry& in, const StridedGeometry& out) {
  DimVector out_sizes, out_strides;
  for (int64_t i = static_cast<int64_t>(out.sizes.size()) - 1; i >= 0; --i) {
    if (out.sizes[i] == 0) return zeros(in.sizes, grad.options());
    if (out.sizes[i] == 1) {
      grad = grad.squeeze(i);
    } else if (out.strides[i] == 0) {
      grad = grad.sum(IntArrayRef(i));
    } else {
      out_sizes.insert(0, out.sizes[i]);
      out_strides.insert(0, out.strides[i]);
    }
  }
  const bool out_overlap = maybe_overlapping(out_sizes, out_strides);
  DimVector in_sizes, in_strides;
  for (size_t i = 0; i < in.sizes.size(); ++i) {
    if (in.sizes[i] == 0) return zeros(in.sizes, grad.options());
    if (in.sizes[i] != 1) {
      in_sizes.push_back(in.sizes[i]);
      in_strides.push_back(in.strides[i]);
    }
  }
  const bool in_overlap = maybe_overlapping(in_sizes, in_strides);
  const int64_t shared = std::min(in.offset, out.offset);
  const int64_t in_offset = in.offset - shared, out_offset = out.offset - shared;
  const int64_t size = std::max(min_storage_size(in_sizes, in_strides, in_offset),
                                min_storage_size(out_sizes, out_strides, out_offset));
  Tensor storage = zeros({size}, grad.options());
  Tensor positions;
  if (in_overlap || out_overlap) positions = arange(size, TensorOptions(kInt64).device(grad.device()));
  if (out_overlap) {
    Tensor index = positions.as_strided(out_sizes, out_strides, out_offset).reshape({-1});
    storage = ember::index_add(storage, 0, index, grad.reshape({-1}));
  } else {
    storage.as_strided(out_sizes, out_strides, out_offset).copy_(grad);
  }
  if (in_overlap) {
    Tensor index = positions.as_strided(in_sizes, in_strides, in_offset).reshape({-1});
    Tensor count = zeros({size}, TensorOptions(to_real_dtype(grad.dtype())).device(grad.device()));
    count.index_add_(0, index, ones({1}, count.options()).expand({index.numel()}));
    // Positions the input does not see: any non-zero count (not read back).
    count.masked_fill_(count == 0, 1);
    storage = storage / count;
  }
  return storage.as_strided(in.sizes, in.strides, in_offset);
}

// unfold's backward: each window's gradient added back to its positions.
Tensor unfold_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t d, int64_t size, int64_t step) {
  if (self_sizes.empty()) return grad.sum();
  const TensorOptions long_opts = TensorOptions(kInt64).device(grad.device());
  const int64_t windows = grad.size(d);
  Tensor positions = (arange(windows, long_opts) * step).unsqueeze(1) + arange(size, long_opts);
  Tensor g = grad.movedim(-1, d + 1).flatten(d, d + 1);
  return ember::index_add(zeros(self_sizes, grad.options()), d, positions.reshape({-1}), g);
}

// Views that only regroup elements: the gradient is reshaped back.
Tensor recorded_reshape_view(const char* op, const Tensor& self, Tensor view) {
  return recorded_view(op, self, std::move(view), [sizes = DimVector(self.sizes())](const Tensor& g) {
    return g.reshape(sizes);
  });
}

// The stride of a size-1 dim made from (size, stride), e.g. a new dim outside
// one of that size: their product, as PyTorch's, or `stride` where the
// product (in bytes) overflows. A size-1 dim is never stepped along, so any
// stride is right, and the byte strides must fit (Note [Checked sizes]).
int64_t stride_outside(int64_t size, int64_t stride, size_t itemsize) {
  int64_t st, bytes;
  if (mul_overflows(size, stride, &st) || mul_overflows(st, static_cast<int64_t>(itemsize), &bytes)) return stride;
  return st;
}

// Replaces a single -1 in `shape` so that it holds numel elements.
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector out(shape);
  DimVector known_dims;
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(!infer, op, ": only one dimension can be inferred, got shape ", shape);
      infer = i;
    } else {
      EMBER_CHECK(shape[i] >= 0, op, ": invalid shape dimension ", shape[i], " in ", shape);
      known_dims.push_back(shape[i]);
    }
  }
  // A product past int64 cannot equal any tensor's numel (Note [Checked sizes]).
  const std::optional<int64_t> known_numel = try_numel(known_dims);
  EMBER_CHECK(known_numel.has_value(), op, ": shape ", shape, " is invalid for input of size ", numel,
              " (its number of elements overflows int64)");
  const int64_t known = *known_numel;
  if (infer) {
    EMBER_CHECK(known != 0 && numel % known == 0, op, ": shape ", shape,
                " is invalid for input of size ", numel);
    out[*infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, op, ": shape ", shape, " is invalid for input of size ", numel);
  }
  return out;
}

// Strides for viewing (old_sizes, old_strides) as new_sizes without copying,
// or nullopt when a new dim would span two non-contiguous chunks (ATen's computeStride).
std::optional<DimVector> compute_view_strides(IntArrayRef old_sizes, IntArrayRef old_strides,
                                              IntArrayRef new_sizes) {
  DimVector new_strides(new_sizes.size());
  if (old_sizes.empty()) {
    std::fill(new_strides.begin(), new_strides.end(), 1);
    return new_strides;
  }
  const int64_t numel = numel_of(old_sizes);
  if (numel == 0) {
    if (old_sizes == new_sizes) return DimVector(old_strides);
    return strides_for(new_sizes, MemoryFormat::Contiguous);
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_sizes[tensor_d];
    if (tensor_d == 0 ||
        (old_sizes[tensor_d - 1] != 1 &&
         old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}
}  // namespace

// ---- making views (declared in ops/view_helpers.h) ----
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 std::optional<DType> dtype, bool differentiable_dtype) {
  auto impl = make_intrusive<TensorImpl>(base.storage(), dtype.value_or(base.dtype()), sizes, strides, offset);
  if (base.is_inference()) impl->set_inference(true);
  // Views of a conjugate/negative view keep its bits (Note [Conjugate bit]);
  // views that change the dtype set theirs (real, imag) or refuse them.
  if (!dtype || *dtype == base.dtype()) {
    impl->set_conj(base.is_conj());
    impl->set_neg(base.is_neg());
    // Note [Quantized views] (ops/quantized_views.cpp): the op adjusts a per-channel axis.
    impl->set_quantizer(base.impl()->quantizer());
  }
  // Under grad mode a view remembers its root base, so that in-place writes
  // through it (or to the base) rebase autograd history: Note [In-place
  // writes and views] in autograd/view_history.cpp. view(dtype) is not a
  // differentiable view.
  if (is_grad_enabled() && (!dtype || differentiable_dtype)) {
    const TensorImpl* b = base.impl();
    impl->set_view_base(b->view_base() ? b->view_base() : base.impl_ptr());
    impl->set_view_version(base._version());
    // Views of a multi-output view (split, unbind...) cannot be written in place either.
    if (const autograd::AutogradMeta* m = b->autograd_meta(); m && !m->multi_output_view_fn.empty()) {
      autograd::AutogradMeta& vm = impl->ensure_autograd_meta();
      vm.multi_output_view_fn = m->multi_output_view_fn;
      vm.multi_output_view_nr = m->multi_output_view_nr;
    }
  }
  return Tensor(std::move(impl));
}

// ---- views ----
Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides,
                          std::optional<int64_t> storage_offset) const {
  EMBER_CHECK(sizes.size() == strides.size(), "as_strided: got ", sizes.size(), " sizes but ",
              strides.size(), " strides");
  check_sizes_nonnegative(sizes, "as_strided");
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  EMBER_CHECK(offset >= 0, "as_strided: negative storage offset ", offset);
  for (size_t i = 0; i < sizes.size(); ++i)
    EMBER_CHECK(strides[i] >= 0, "as_strided: negative strides are not supported, got ", strides);
  checked_numel(sizes, "as_strided");
  qview_check_supported(*this, "as_strided");
  // Checked extent (Note [Checked sizes]): a huge stride-0 view of a small
  // storage is fine, an extent past int64 or past the storage is not.
  const int64_t need = storage_nbytes(sizes, strides, offset, element_size(), "as_strided");
  if (need > 0) {
    const int64_t capacity = static_cast<int64_t>(storage()->nbytes() / element_size());
    EMBER_CHECK(need <= static_cast<int64_t>(storage()->nbytes()), "as_strided: sizes ", sizes, ", strides ",
                strides, " and offset ", offset, " need ", need / static_cast<int64_t>(element_size()),
                " elements but the storage holds only ", capacity);
  }
  StridedGeometry in{DimVector(this->sizes()), DimVector(this->strides()), this->storage_offset()};
  StridedGeometry out{DimVector(sizes), DimVector(strides), offset};
  return recorded_view("as_strided", *this, make_view(*this, sizes, strides, offset),
                       [in, out](const Tensor& g) { return as_strided_backward(g, in, out); });
}

Tensor Tensor::view(IntArrayRef shape) const {
  DimVector sizes = infer_size(shape, numel(), "view");
  auto strides = compute_view_strides(this->sizes(), this->strides(), sizes);
  EMBER_CHECK(strides.has_value(), "view: size ", shape, " is not compatible with input tensor's size ",
              this->sizes(), " and stride ", this->strides(),
              " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  Tensor v = make_view(*this, sizes, *strides, storage_offset());
  qview_reshaped(v, *this, "view");
  return recorded_reshape_view("view", *this, std::move(v));
}

Tensor Tensor::view_dtype(DType t) const {
  if (t == dtype()) return *this;
  EMBER_CHECK(!is_quantized() && !ember::is_quantized(t), "view(dtype): viewing ", dtype(), " as ", t,
              " is not supported for quantized dtypes (use int_repr() or dequantize())");
  EMBER_CHECK(!impl()->has_lazy_bits(), "view(dtype): the tensor is a ", is_conj() ? "conjugate" : "negative",
              " view; call resolve_conj()/resolve_neg() first");
  const int64_t old_es = static_cast<int64_t>(element_size()), new_es = static_cast<int64_t>(ember::element_size(t));
  if (old_es == new_es) return make_view(*this, sizes(), strides(), storage_offset(), t);
  EMBER_CHECK(dim() > 0 && stride(-1) == 1, "view(dtype): changing element size from ", old_es,
              " to ", new_es, " needs a last dimension with stride 1, got strides ", strides());
  DimVector sizes(this->sizes()), strides(this->strides());
  if (new_es > old_es) {
    const int64_t ratio = new_es / old_es;
    EMBER_CHECK(sizes.back() % ratio == 0 && storage_offset() % ratio == 0,
                "view(dtype): last dim size ", sizes.back(), " and storage offset ", storage_offset(),
                " must be divisible by ", ratio, " to view ", dtype(), " as ", t);
    for (size_t i = 0; i + 1 < strides.size(); ++i) {
      EMBER_CHECK(strides[i] % ratio == 0, "view(dtype): stride ", strides[i], " of dim ", i,
                  " must be divisible by ", ratio);
      strides[i] /= ratio;
    }
    sizes.back() /= ratio;
    return make_view(*this, sizes, strides, storage_offset() / ratio, t);
  }
  const int64_t ratio = old_es / new_es;
  for (size_t i = 0; i + 1 < strides.size(); ++i) strides[i] *= ratio;  // byte strides fit: no overflow
  sizes.back() *= ratio;
  checked_numel(sizes, "view(dtype)");  // more elements: an expanded view may overflow
  return make_view(*this, sizes, strides, storage_offset() * ratio, t);
}

Tensor Tensor::view_as(const Tensor& other) const { return view(other.sizes()); }

Tensor Tensor::reshape(IntArrayRef shape) const {
  DimVector sizes = infer_size(shape, numel(), "reshape");
  if (auto strides = compute_view_strides(this->sizes(), this->strides(), sizes)) {
    Tensor v = make_view(*this, sizes, *strides, storage_offset());
    qview_reshaped(v, *this, "reshape");
    return recorded_reshape_view("view", *this, std::move(v));
  }
  return clone(MemoryFormat::Contiguous).view(sizes);
}
Tensor Tensor::reshape_as(const Tensor& other) const { return reshape(other.sizes()); }

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  start_dim = wrap_dim(start_dim, dim(), "flatten");
  end_dim = wrap_dim(end_dim, dim(), "flatten");
  EMBER_CHECK(start_dim <= end_dim, "flatten: start_dim ", start_dim,
              " cannot come after end_dim ", end_dim);
  if (start_dim == end_dim) return *this;
  DimVector shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(size(d));
  const std::optional<int64_t> merged = try_numel(sizes().slice(start_dim, end_dim - start_dim + 1));
  EMBER_CHECK(merged.has_value(), "flatten: merging dims ", start_dim, " to ", end_dim, " of sizes ", sizes(),
              " gives a size that overflows int64");
  shape.push_back(*merged);
  for (int64_t d = end_dim + 1; d < dim(); ++d) shape.push_back(size(d));
  return reshape(shape);
}

Tensor Tensor::unflatten(int64_t d, IntArrayRef sizes) const {
  d = wrap_dim(d, dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  DimVector inner = infer_size(sizes, size(d), "unflatten");
  DimVector shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(size(i));
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < dim(); ++i) shape.push_back(size(i));
  return view(shape);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == dim(), "permute: number of dims ", dims.size(),
              " does not match the tensor's ", dim(), " dims (sizes ", sizes(), ")");
  DimVector sizes(dim()), strides(dim());
  uint64_t seen = 0;
  for (int64_t i = 0; i < dim(); ++i) {
    const int64_t d = wrap_dim(dims[i], dim(), "permute");
    EMBER_CHECK(!(seen >> d & 1), "permute: repeated dim ", d, " in ", dims);
    seen |= uint64_t{1} << d;
    sizes[i] = this->sizes()[d];
    strides[i] = this->strides()[d];
  }
  DimVector inverse(dim());
  for (int64_t i = 0; i < dim(); ++i) inverse[wrap_dim(dims[i], dim(), "permute")] = i;
  Tensor v = make_view(*this, sizes, strides, storage_offset());
  qview_permuted(v, *this, dims);
  return recorded_view("permute", *this, std::move(v),
                       [inverse](const Tensor& g) { return g.permute(inverse); });
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  d0 = wrap_dim(d0, dim(), "transpose");  // a 0-d tensor takes 0 and -1 only, as PyTorch
  d1 = wrap_dim(d1, dim(), "transpose");
  if (dim() == 0) return *this;
  DimVector sizes(this->sizes()), strides(this->strides());
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  Tensor v = make_view(*this, sizes, strides, storage_offset());
  if (is_quantized()) {
    DimVector order(dim());
    for (int64_t i = 0; i < dim(); ++i) order[i] = i;
    std::swap(order[d0], order[d1]);
    qview_permuted(v, *this, order);
  }
  return recorded_view("transpose", *this, std::move(v),
                       [d0, d1](const Tensor& g) { return g.transpose(d0, d1); });
}

Tensor Tensor::t() const {
  EMBER_CHECK(dim() <= 2, "t: expects a tensor with <= 2 dimensions, but got ", dim(), "-d (sizes ",
              sizes(), ")");
  return dim() < 2 ? *this : transpose(0, 1);
}

Tensor Tensor::mT() const {
  EMBER_CHECK(dim() >= 2, "mT: expects a tensor with >= 2 dimensions, got sizes ", sizes());
  return transpose(-2, -1);
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  EMBER_CHECK(dim() > 0, "narrow: cannot be applied to a 0-dim tensor");
  d = wrap_dim(d, dim(), "narrow");
  const int64_t n = size(d);
  if (start < 0) start += n;
  EMBER_CHECK(start >= 0 && start <= n, "narrow: start ", start, " out of range for dim ", d,
              " of size ", n);
  EMBER_CHECK(length >= 0 && start + length <= n, "narrow: start (", start, ") + length (", length,
              ") exceeds dimension size (", n, ")");
  return slice(d, start, start + length, 1);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  EMBER_CHECK(dim() > 0, "select: cannot be applied to a 0-dim tensor");
  d = wrap_dim(d, dim(), "select");
  const int64_t n = size(d);
  EMBER_CHECK(index >= -n && index < n, "select: index ", index, " out of range for tensor of size ",
              sizes(), " at dimension ", d);
  if (index < 0) index += n;
  DimVector sizes(this->sizes()), strides(this->strides());
  const int64_t offset = storage_offset() + index * strides[d];
  sizes.erase(d);
  strides.erase(d);
  Tensor v = make_view(*this, sizes, strides, offset);
  qview_selected(v, *this, d, index);
  return recorded_view("select", *this, std::move(v),
                       [self_sizes = DimVector(this->sizes()), d, index](const Tensor& g) {
                         return autograd::select_backward(g, self_sizes, d, index);
                       });
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt,
                     int64_t step) const {
  EMBER_CHECK(dim() > 0, "slice: cannot be applied to a 0-dim tensor");
  d = wrap_dim(d, dim(), "slice");
  EMBER_CHECK(step > 0, "slice: step must be positive, got ", step);
  const int64_t n = size(d);
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(n);
  // Python slice clamping.
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  DimVector sizes(this->sizes()), strides(this->strides());
  sizes[d] = (end - start) / step + ((end - start) % step != 0);
  // Offset and stride inside the extent of a non-empty result; checked for
  // empty ones, whose strides were never checked (Note [Checked sizes]).
  const int64_t offset = checked_add(storage_offset(), checked_mul(start, strides[d], "slice"), "slice");
  strides[d] = sizes[d] <= 1 ? stride_outside(step, strides[d], element_size()) : checked_mul(strides[d], step, "slice");
  Tensor v = make_view(*this, sizes, strides, offset);
  qview_sliced(v, *this, d, start, step);
  return recorded_view("slice", *this, std::move(v),
                       [self_sizes = DimVector(this->sizes()), d, start, end, step](const Tensor& g) {
                         return autograd::slice_backward(g, self_sizes, d, start, end, step);
                       });
}

Tensor Tensor::expand(IntArrayRef target) const {
  EMBER_CHECK(static_cast<int64_t>(target.size()) >= dim(), "expand: the number of sizes provided (",
              target.size(), ") must be greater or equal to the number of dimensions in the tensor (",
              dim(), ")");
  const int64_t nd = static_cast<int64_t>(target.size());
  DimVector sizes(nd), strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    const int64_t offset = nd - 1 - i;
    const int64_t d = dim() - 1 - offset;
    const int64_t s = d >= 0 ? size(d) : 1;
    const int64_t st = d >= 0 ? stride(d) : (i + 1 < nd ? stride_outside(sizes[i + 1], strides[i + 1], element_size()) : 1);
    int64_t want = target[i];
    if (want == -1) {
      EMBER_CHECK(d >= 0, "expand: -1 is not allowed in a leading, non-existing dimension (sizes ",
                  target, ")");
      want = s;
    }
    if (s == want) {
      sizes[i] = s;
      strides[i] = st;
    } else {
      EMBER_CHECK(s == 1, "expand: the expanded size of the tensor (", want,
                  ") must match the existing size (", s, ") at non-singleton dimension ", i,
                  ". Target sizes: ", target, ". Tensor sizes: ", this->sizes());
      EMBER_CHECK(want >= 0, "expand: invalid size ", want, " in ", target);
      sizes[i] = want;
      strides[i] = 0;
    }
  }
  checked_numel(sizes, "expand");
  Tensor v = make_view(*this, sizes, strides, storage_offset());
  qview_expanded(v, *this);
  return recorded_view("expand", *this, std::move(v),
                       [self_sizes = DimVector(this->sizes())](const Tensor& g) {
                         return autograd::sum_to(g, self_sizes);
                       });
}

Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.sizes()); }

Tensor Tensor::squeeze() const {
  DimVector sizes, strides;
  for (int64_t d = 0; d < dim(); ++d)
    if (size(d) != 1) {
      sizes.push_back(size(d));
      strides.push_back(stride(d));
    }
  Tensor v = make_view(*this, sizes, strides, storage_offset());
  qview_reshaped(v, *this, "squeeze");
  return recorded_reshape_view("squeeze", *this, std::move(v));
}

Tensor Tensor::squeeze(int64_t d) const { return squeeze(IntArrayRef(d)); }

Tensor Tensor::squeeze(IntArrayRef dims) const {
  const uint64_t mask = dims_to_mask(dims, dim(), "squeeze");
  DimVector sizes, strides;
  for (int64_t d = 0; d < dim(); ++d)
    if (!((mask >> d & 1) && size(d) == 1)) {
      sizes.push_back(size(d));
      strides.push_back(stride(d));
    }
  Tensor v = make_view(*this, sizes, strides, storage_offset());
  qview_reshaped(v, *this, "squeeze");
  return recorded_reshape_view("squeeze", *this, std::move(v));
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrap_dim(d, dim() + 1, "unsqueeze");
  DimVector sizes(this->sizes()), strides(this->strides());
  const int64_t st = d >= dim() ? 1 : stride_outside(sizes[d], strides[d], element_size());
  sizes.insert(d, 1);
  strides.insert(d, st);
  Tensor v = make_view(*this, sizes, strides, storage_offset());
  qview_reshaped(v, *this, "unsqueeze");
  return recorded_reshape_view("unsqueeze", *this, std::move(v));
}

Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const {
  d = wrap_dim(d, dim(), "unfold");
  const int64_t n = dim() == 0 ? 1 : this->size(d);
  EMBER_CHECK(size >= 0 && size <= n, "unfold: maximum size for tensor at dimension ", d, " is ", n,
              " but size is ", size);
  EMBER_CHECK(step > 0, "unfold: step is ", step, " but must be > 0");
  DimVector sizes(this->sizes()), strides(this->strides());
  const int64_t st = dim() == 0 ? 1 : strides[d];
  if (dim() > 0) {
    sizes[d] = (n - size) / step + 1;
    // Windows lie inside the dim, so st * step only overflows when there is one window.
    strides[d] = sizes[d] == 1 ? stride_outside(step, st, element_size()) : checked_mul(st, step, "unfold");
  }
  sizes.push_back(size);
  strides.push_back(st);
  checked_numel(sizes, "unfold");  // overlapping windows: more elements than the input
  qview_check_supported(*this, "unfold");
  return recorded_view("unfold", *this, make_view(*this, sizes, strides, storage_offset()),
                       [self_sizes = DimVector(this->sizes()), d, size, step](const Tensor& g) {
                         return unfold_backward(g, self_sizes, d, size, step);
                       });
}

Tensor Tensor::diagonal(int64_t offset, int64_t d1, int64_t d2) const {
  EMBER_CHECK(dim() >= 2, "diagonal: expects a tensor with at least 2 dims, got sizes ", sizes());
  d1 = wrap_dim(d1, dim(), "diagonal");
  d2 = wrap_dim(d2, dim(), "diagonal");
  EMBER_CHECK(d1 != d2, "diagonal: dimensions cannot be identical ", d1, ", ", d2);
  int64_t len, start = storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(size(d1), size(d2) - offset), 0);
    if (len > 0) start += offset * stride(d2);
  } else {
    len = std::max<int64_t>(std::min(size(d1) + offset, size(d2)), 0);
    if (len > 0) start -= offset * stride(d1);
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < dim(); ++d)
    if (d != d1 && d != d2) {
      sizes.push_back(size(d));
      strides.push_back(stride(d));
    }
  sizes.push_back(len);
  // Inside the extent when the diagonal has two elements or more; one
  // element may take any stride (Note [Checked sizes]).
  int64_t diagonal_stride, bytes;
  if (add_overflows(stride(d1), stride(d2), &diagonal_stride) ||
      mul_overflows(diagonal_stride, static_cast<int64_t>(element_size()), &bytes)) {
    EMBER_CHECK(len <= 1, "diagonal: strides ", this->strides(), " overflow int64");
    diagonal_stride = stride(d1);
  }
  strides.push_back(diagonal_stride);
  qview_check_supported(*this, "diagonal");
  return recorded_view("diagonal", *this, make_view(*this, sizes, strides, start),
                       [self_sizes = DimVector(this->sizes()), offset, d1, d2](const Tensor& g) {
                         Tensor result = zeros(self_sizes, g.options());
                         result.diagonal(offset, d1, d2).copy_(g);
                         return result;
                       });
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t d) const {
  EMBER_CHECK(dim() > 0, "split: expects at least a 1-dimensional tensor");
  d = wrap_dim(d, dim(), "split");
  EMBER_CHECK(split_size >= 0, "split: split_size must be non-negative, got ", split_size);
  const int64_t n = size(d);
  EMBER_CHECK(split_size > 0 || n == 0, "split: split_size can only be 0 if dimension size is 0, but got dimension size of ", n);
  if (n > 0) check_piece_count("split", n / split_size + (n % split_size != 0));
  std::vector<int64_t> lengths;
  for (int64_t s = 0; s < n; s += lengths.back()) lengths.push_back(std::min(split_size, n - s));
  if (n == 0) lengths.push_back(0);
  return recorded_multi_view(
      "split", *this,
      [&] {
        std::vector<Tensor> out;
        int64_t start = 0;
        for (int64_t len : lengths) {
          out.push_back(narrow(d, start, len));
          start += len;
        }
        return out;
      },
      [sizes = DimVector(this->sizes()), d, lengths](const autograd::variable_list& grads) {
        Tensor result = zeros(sizes, grads[0].options());
        int64_t start = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
          result.narrow(d, start, lengths[i]).copy_(grads[i]);
          start += lengths[i];
        }
        return result;
      });
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t d) const {
  EMBER_CHECK(dim() > 0, "split_with_sizes: expects at least a 1-dimensional tensor");
  d = wrap_dim(d, dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes: split sizes must be non-negative, got ", split_sizes);
    EMBER_CHECK(!add_overflows(total, s, &total), "split_with_sizes: split_sizes=", split_sizes,
                " sum past int64");
  }
  EMBER_CHECK(total == size(d), "split_with_sizes: expects split_sizes to sum exactly to ", size(d),
              " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
  std::vector<int64_t> lengths(split_sizes.begin(), split_sizes.end());
  return recorded_multi_view(
      "split_with_sizes", *this,
      [&] {
        std::vector<Tensor> out;
        int64_t start = 0;
        for (int64_t len : lengths) {
          out.push_back(narrow(d, start, len));
          start += len;
        }
        return out;
      },
      [sizes = DimVector(this->sizes()), d, lengths](const autograd::variable_list& grads) {
        Tensor result = zeros(sizes, grads[0].options());
        int64_t start = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
          result.narrow(d, start, lengths[i]).copy_(grads[i]);
          start += lengths[i];
        }
        return result;
      });
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const {
  EMBER_CHECK(dim() > 0, "chunk: expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk: number of chunks must be greater than 0, got ", chunks);
  d = wrap_dim(d, dim(), "chunk");
  const int64_t n = size(d);
  const int64_t split_size = n / chunks + (n % chunks != 0);
  if (split_size == 0 && n == 0) {
    check_piece_count("chunk", chunks);
    std::vector<int64_t> sizes(chunks, 0);
    return split_with_sizes(sizes, d);
  }
  return split(split_size, d);
}

std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t d) const {
  EMBER_CHECK(dim() > 0, "tensor_split: expects at least a 1-dimensional tensor");
  EMBER_CHECK(sections > 0, "tensor_split: number of sections must be greater than 0, got ", sections);
  d = wrap_dim(d, dim(), "tensor_split");
  check_piece_count("tensor_split", sections);
  const int64_t n = size(d);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = n / sections + (i < n % sections ? 1 : 0);
    out.push_back(narrow(d, start, len));
    start += len;
  }
  return out;
}

std::vector<Tensor> Tensor::unbind(int64_t d) const {
  EMBER_CHECK(dim() > 0, "unbind: dimension specified as ", d, " but tensor has no dimensions");
  d = wrap_dim(d, dim(), "unbind");
  check_piece_count("unbind", size(d));
  return recorded_multi_view(
      "unbind", *this,
      [&] {
        std::vector<Tensor> out;
        for (int64_t i = 0; i < size(d); ++i) out.push_back(select(d, i));
        return out;
      },
      [sizes = DimVector(this->sizes()), d](const autograd::variable_list& grads) {
        Tensor result = zeros(sizes, grads[0].options());
        for (size_t i = 0; i < grads.size(); ++i) result.select(d, static_cast<int64_t>(i)).copy_(grads[i]);
        return result;
      });
}

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  EMBER_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (",
              source, " dims) should contain the same number of dims as destination (", destination, " dims)");
  const int64_t n = dim();
  const uint64_t src_mask = dims_to_mask(source, n, "movedim");
  const uint64_t dst_mask = dims_to_mask(destination, n, "movedim");
  (void)src_mask;
  DimVector order(n, -1);
  for (size_t i = 0; i < source.size(); ++i)
    order[wrap_dim(destination[i], n, "movedim")] = wrap_dim(source[i], n, "movedim");
  // Remaining dims keep their relative order in the remaining slots.
  int64_t next_src = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (dst_mask >> d & 1) continue;
    while (src_mask >> next_src & 1) ++next_src;
    order[d] = next_src++;
  }
  return permute(order);
}

Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef(source), IntArrayRef(destination));
}

}  // namespace ember
