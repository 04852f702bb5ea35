#pragma once
// Tensor: a cheap, ref-counted handle to a TensorImpl (storage + sizes, strides,
// offset and dtype). Copying a Tensor shares the data, as in PyTorch; views
// share the storage of their base.
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/host_access.h"
#include "ember/core/memory_format.h"
#include "ember/core/scalar.h"
#include "ember/core/storage.h"
#include "ember/core/tensor_options.h"

namespace ember {

class Tensor;
class TensorIndex;
class Quantizer;  // ember/core/quantizer.h
class Generator;
namespace autograd {
struct AutogradMeta;
class Node;
}  // namespace autograd

class TensorImpl : public RefCounted {
 public:
  TensorImpl(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t storage_offset);
  ~TensorImpl() override;

  const Storage& storage() const { return storage_; }
  DType dtype() const { return dtype_; }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t storage_offset() const { return storage_offset_; }
  int64_t numel() const { return numel_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  Device device() const { return storage_->device(); }
  void* data() const {
    return static_cast<char*>(storage_->data()) + storage_offset_ * element_size(dtype_);
  }

  // Re-points this impl at new geometry (used by in-place resizes and as_strided_).
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  // Takes src's storage, dtype and geometry, keeping this impl's identity and
  // autograd state (Tensor::set_data).
  void set_data_from(const TensorImpl& src) {
    storage_ = src.storage_;
    dtype_ = src.dtype_;
    is_conj_ = src.is_conj_;
    is_neg_ = src.is_neg_;
    quantizer_ = src.quantizer_;
    set_geometry(src.sizes(), src.strides(), src.storage_offset());
  }
  void set_storage(Storage storage) { storage_ = std::move(storage); }

  // A tensor made implicitly from a C++ number (e.g. `t + 2`) takes part in type
  // promotion like a Python scalar: see Note [Type promotion] in core/src/iter/tensor_iterator.cpp.
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }
  bool is_contiguous() const { return is_contiguous_; }
  void refresh_contiguity();

  // Lazy-value flags (Note [Conjugate bit] in core/src/ops/conj_views.cpp):
  // the tensor's values are conj() (is_conj, complex only) and/or the
  // negation (is_neg) of what its storage holds.
  bool is_conj() const { return is_conj_; }
  void set_conj(bool v) { is_conj_ = v; }
  bool is_neg() const { return is_neg_; }
  void set_neg(bool v) { is_neg_ = v; }
  bool has_lazy_bits() const { return is_conj_ || is_neg_; }

  // Quantized dtypes only: how the stored integers map to real values
  // (Note [Quantized tensors] in core/src/quantized/quantizer.cpp).
  const std::shared_ptr<const Quantizer>& quantizer() const { return quantizer_; }
  void set_quantizer(std::shared_ptr<const Quantizer> q) { quantizer_ = std::move(q); }

  // ---- autograd (core/src/autograd/) ----
  // Allocated the first time the tensor takes part in autograd.
  autograd::AutogradMeta* autograd_meta() const { return autograd_meta_.get(); }
  autograd::AutogradMeta& ensure_autograd_meta();
  // The tensor this one is a differentiable view of (the root base: views of
  // views point at the first non-view); null for non-views.
  const intrusive_ptr<TensorImpl>& view_base() const { return view_base_; }
  void set_view_base(intrusive_ptr<TensorImpl> base) { view_base_ = std::move(base); }
  // Views: the version counter's value when this view's history was last set
  // (or when it was made). A later value means the base or another view was
  // modified in place, and autograd rebuilds this view's grad_fn from the base.
  uint64_t view_version() const { return view_version_; }
  void set_view_version(uint64_t v) { view_version_ = v; }
  // Made under InferenceMode (or a view of such a tensor): may never enter autograd.
  bool is_inference() const { return is_inference_; }
  void set_inference(bool v) { is_inference_ = v; }

 private:
  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  DType dtype_;
  bool is_wrapped_number_ = false;
  bool is_contiguous_ = true;
  bool is_inference_ = false;
  bool is_conj_ = false;
  bool is_neg_ = false;
  std::unique_ptr<autograd::AutogradMeta> autograd_meta_;
  std::shared_ptr<const Quantizer> quantizer_;
  intrusive_ptr<TensorImpl> view_base_;
  uint64_t view_version_ = 0;
};

// Accessor for fast element access in loops: t.accessor<float, 2>()[i][j].
template <class T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <class T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[strides_[0] * i]; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- metadata (core/src/ops/metadata_ops.cpp) ----
  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  int64_t dim() const { return impl()->dim(); }
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const { return impl()->sizes(); }
  IntArrayRef strides() const { return impl()->strides(); }
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const { return impl()->numel(); }
  DType dtype() const { return impl()->dtype(); }
  DType scalar_type() const { return dtype(); }
  Device device() const { return impl()->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  TensorOptions options() const { return TensorOptions(dtype()).device(device()); }
  int64_t storage_offset() const { return impl()->storage_offset(); }
  const Storage& storage() const { return impl()->storage(); }
  size_t element_size() const { return ember::element_size(dtype()); }
  // numel() * element_size(); raises when that overflows int64 (a huge expanded view).
  size_t nbytes() const;
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  bool is_complex() const { return ember::is_complex(dtype()); }
  bool is_quantized() const { return ember::is_quantized(dtype()); }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  // The layout a dense op should give its output for this input (PyTorch's rule).
  MemoryFormat suggest_memory_format() const;
  bool is_non_overlapping_and_dense() const;
  // Version counter shared with every view (see StorageImpl::version).
  uint64_t _version() const { return storage()->version(); }
  // Every in-place write ends here; inference tensors may only be written
  // under InferenceMode.
  void bump_version() const {
    if (impl()->is_inference()) [[unlikely]]
      check_inference_write();
    storage()->bump_version();
  }
  void check_inference_write() const;
  std::string toString() const;  // "CPUFloatType{2,3}"-style short description

  // The raw address, also of a conj/neg view (whose storage holds the
  // unconjugated/unnegated values): data_ptr<T>() refuses such views so that
  // no kernel reads them as plain values by accident. Both refuse memory of a
  // device the host cannot touch outside a kernel slot (Note [Host access]).
  void* data_ptr() const {
    if (!impl()->device().is_host_accessible()) [[unlikely]]
      detail::check_host_access(impl()->device());
    return impl()->data();
  }
  template <class T>
  T* data_ptr() const;
  // libtorch's older spelling of data_ptr<T>() (ported programs use it).
  template <class T>
  T* data() const {
    return data_ptr<T>();
  }
  template <class T>
  T item() const;
  Scalar item() const;
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const;

  // ---- conversion and copies ----
  Tensor contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  Tensor clone(MemoryFormat format = MemoryFormat::Preserve) const;
  // non_blocking (PyTorch's): a copy between a device and pinned host memory
  // (pin_memory()) is only queued on the device's current stream, not waited
  // for; with pageable host memory, or on the CPU, it changes nothing.
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor to(DType dtype, bool copy = false) const;
  Tensor to(Device device, bool copy = false) const;
  Tensor to(Device device, DType dtype, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool copy = false) const;
  // PyTorch's argument order: non_blocking, then copy.
  Tensor to(Device device, bool non_blocking, bool copy) const;
  Tensor to(Device device, DType dtype, bool non_blocking, bool copy) const;
  Tensor to(const TensorOptions& options, bool non_blocking, bool copy) const;
  Tensor cpu() const { return to(kCPU); }
  // A copy of this CPU tensor in page-locked host memory from the PinnedHost
  // allocator the backend of `device` registered (raises when none is); the
  // tensor itself when it already is. is_pinned: whether its memory comes from
  // a registered pinned allocator. (pinned_memory.cpp)
  Tensor pin_memory(DeviceType device = DeviceType::CUDA) const;
  bool is_pinned() const;
  // Tells the tensor's allocator that work queued on `stream` (of the
  // tensor's device) uses its memory: not reused before that work is done
  // (Tensor.record_stream; a no-op for host allocators).
  void record_stream(Stream stream) const;

  // ---- quantized tensors (core/src/quantized/; docs/quantization.md) ----
  // The real values (float32) of a quantized tensor; other tensors unchanged.
  Tensor dequantize() const;
  // The stored integers as a plain tensor (qint8 -> int8, quint8 -> uint8, qint32 -> int32).
  Tensor int_repr() const;
  QScheme qscheme() const;
  double q_scale() const;        // per-tensor schemes
  int64_t q_zero_point() const;  // per-tensor schemes
  Tensor q_per_channel_scales() const;       // float64, per-channel schemes
  Tensor q_per_channel_zero_points() const;  // int64, per-channel schemes
  int64_t q_per_channel_axis() const;

  // ---- autograd (core/src/autograd/tensor_autograd.cpp) ----
  // Only floating point and complex tensors can require grad; only leaves can
  // change the flag.
  Tensor& requires_grad_(bool requires_grad = true);
  Tensor& set_requires_grad(bool requires_grad) { return requires_grad_(requires_grad); }
  bool requires_grad() const;
  // Accumulated gradient of a leaf (or of a non-leaf after retain_grad()).
  const Tensor& grad() const;
  Tensor& mutable_grad();
  void set_grad(const Tensor& grad);
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  // Which output of grad_fn this tensor is.
  uint32_t output_nr() const;
  void retain_grad() const;
  bool retains_grad() const;
  // A tensor sharing the data (and version counter) without history.
  Tensor detach() const;
  Tensor& detach_();
  // Replaces this tensor's data (storage, dtype, geometry) with `data`'s, in
  // place: every handle to this tensor sees it (nn::Module::to uses it).
  void set_data(const Tensor& data) const;
  bool is_view() const { return static_cast<bool>(impl()->view_base()); }
  // Gradient of this tensor w.r.t. the leaves of its graph, accumulated into
  // their .grad (or only into `inputs` when given).
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, const std::vector<Tensor>& inputs = {}) const;
  // Hooks on this tensor's gradient: fn returns a replacement or an undefined
  // tensor to keep the gradient. Returns a handle for remove_hook.
  template <class F>
  uint64_t register_hook(F&& fn) const {
    if constexpr (std::is_void_v<std::invoke_result_t<F, const Tensor&>>)
      return register_hook_impl([f = std::forward<F>(fn)](const Tensor& g) {
        f(g);
        return Tensor();
      });
    else
      return register_hook_impl(std::function<Tensor(const Tensor&)>(std::forward<F>(fn)));
  }
  uint64_t register_hook_impl(std::function<Tensor(const Tensor&)> fn) const;
  void remove_hook(uint64_t handle) const;
  // Leaves only: runs after the leaf's .grad has been updated by backward.
  uint64_t register_post_accumulate_grad_hook(std::function<void(Tensor&)> fn) const;
  bool is_inference() const { return impl()->is_inference(); }
  Tensor fill_(const Scalar& value);
  Tensor fill_(const Tensor& value);
  Tensor zero_();

  // ---- views (core/src/ops/view_ops.cpp; real, imag: complex_view_ops.cpp) ----
  Tensor view(IntArrayRef sizes) const;
  // Reinterprets the bytes as another dtype. A template so that `view({})`
  // (0-d shape) cannot bind here through DType's value-initialization.
  template <class D>
    requires std::same_as<D, DType>
  Tensor view(D dtype) const {
    return view_dtype(dtype);
  }
  Tensor view_dtype(DType dtype) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor mT() const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const {
    return split_with_sizes(split_sizes, dim);
  }
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor swapaxes(int64_t a, int64_t b) const { return transpose(a, b); }
  Tensor real() const;
  Tensor imag() const;

  // ---- conjugate and negative views (core/src/ops/conj_views.cpp) ----
  // conj(): an O(1) view with the conjugate bit flipped (self for non-complex
  // dtypes). resolve_conj()/resolve_neg(): self when the bit is clear, else a
  // new tensor holding the values. conj_physical(): always computes.
  bool is_conj() const { return impl()->is_conj(); }
  bool is_neg() const { return impl()->is_neg(); }
  Tensor resolve_conj() const;
  Tensor resolve_neg() const;
  Tensor conj_physical() const;
  Tensor& conj_physical_();

  // ---- indexing (core/src/ops/indexing_ops.cpp) ----
  Tensor index(ArrayRef<TensorIndex> indices) const;
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor& index_put_(ArrayRef<TensorIndex> indices, const Tensor& value);
  Tensor& index_put_(ArrayRef<TensorIndex> indices, const Scalar& value);
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value);
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value);
  Tensor operator[](int64_t i) const { return select(0, i); }
  // [indexing methods: gather, scatter, index_select, masked_select, nonzero, take, ...]
  Tensor gather(int64_t dim, const Tensor& index, bool sparse_grad = false) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce);
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                        bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                          bool include_self = true);
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value);
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source);
  Tensor nonzero() const;
  std::vector<Tensor> nonzero_numpy() const;
  Tensor argwhere() const;
  Tensor take(const Tensor& index) const;
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;


  // ---- elementwise (core/src/ops/unary_ops.cpp, binary_ops.cpp, ternary_ops.cpp) ----
#define EMBER_UNARY_METHOD(name) \
  Tensor name() const;           \
  Tensor& name##_();
  EMBER_UNARY_METHOD(abs)
  EMBER_UNARY_METHOD(neg)
  EMBER_UNARY_METHOD(sign)
  EMBER_UNARY_METHOD(sgn)
  EMBER_UNARY_METHOD(exp)
  EMBER_UNARY_METHOD(exp2)
  EMBER_UNARY_METHOD(expm1)
  EMBER_UNARY_METHOD(log)
  EMBER_UNARY_METHOD(log2)
  EMBER_UNARY_METHOD(log10)
  EMBER_UNARY_METHOD(log1p)
  EMBER_UNARY_METHOD(sqrt)
  EMBER_UNARY_METHOD(rsqrt)
  EMBER_UNARY_METHOD(square)
  EMBER_UNARY_METHOD(reciprocal)
  EMBER_UNARY_METHOD(sin)
  EMBER_UNARY_METHOD(cos)
  EMBER_UNARY_METHOD(tan)
  EMBER_UNARY_METHOD(asin)
  EMBER_UNARY_METHOD(acos)
  EMBER_UNARY_METHOD(atan)
  EMBER_UNARY_METHOD(sinh)
  EMBER_UNARY_METHOD(cosh)
  EMBER_UNARY_METHOD(tanh)
  EMBER_UNARY_METHOD(asinh)
  EMBER_UNARY_METHOD(acosh)
  EMBER_UNARY_METHOD(atanh)
  EMBER_UNARY_METHOD(sigmoid)
  EMBER_UNARY_METHOD(relu)
  EMBER_UNARY_METHOD(silu)
  EMBER_UNARY_METHOD(erf)
  EMBER_UNARY_METHOD(erfc)
  EMBER_UNARY_METHOD(floor)
  EMBER_UNARY_METHOD(ceil)
  EMBER_UNARY_METHOD(round)
  EMBER_UNARY_METHOD(trunc)
  EMBER_UNARY_METHOD(frac)
  EMBER_UNARY_METHOD(logical_not)
  EMBER_UNARY_METHOD(bitwise_not)
#undef EMBER_UNARY_METHOD
  Tensor gelu(const std::string& approximate = "none") const;
  Tensor softplus(const Scalar& beta = 1, const Scalar& threshold = 20) const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  Tensor isposinf() const;
  Tensor isneginf() const;
  Tensor signbit() const;
  Tensor conj() const;
  Tensor angle() const;
  Tensor nan_to_num(std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor clamp(const Tensor& min, const Tensor& max) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;

#define EMBER_BINARY_METHOD(name)           \
  Tensor name(const Tensor& other) const;   \
  Tensor name(const Scalar& other) const;   \
  Tensor& name##_(const Tensor& other);     \
  Tensor& name##_(const Scalar& other);
  EMBER_BINARY_METHOD(mul)
  EMBER_BINARY_METHOD(div)
  EMBER_BINARY_METHOD(floor_divide)
  EMBER_BINARY_METHOD(fmod)
  EMBER_BINARY_METHOD(remainder)
  EMBER_BINARY_METHOD(pow)
  EMBER_BINARY_METHOD(atan2)
  EMBER_BINARY_METHOD(maximum)
  EMBER_BINARY_METHOD(minimum)
  EMBER_BINARY_METHOD(fmax)
  EMBER_BINARY_METHOD(fmin)
  EMBER_BINARY_METHOD(hypot)
  EMBER_BINARY_METHOD(copysign)
  EMBER_BINARY_METHOD(xlogy)
  EMBER_BINARY_METHOD(eq)
  EMBER_BINARY_METHOD(ne)
  EMBER_BINARY_METHOD(lt)
  EMBER_BINARY_METHOD(le)
  EMBER_BINARY_METHOD(gt)
  EMBER_BINARY_METHOD(ge)
  EMBER_BINARY_METHOD(logical_and)
  EMBER_BINARY_METHOD(logical_or)
  EMBER_BINARY_METHOD(logical_xor)
  EMBER_BINARY_METHOD(bitwise_and)
  EMBER_BINARY_METHOD(bitwise_or)
  EMBER_BINARY_METHOD(bitwise_xor)
  EMBER_BINARY_METHOD(bitwise_left_shift)
  EMBER_BINARY_METHOD(bitwise_right_shift)
#undef EMBER_BINARY_METHOD
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1);
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1);
  Tensor div(const Tensor& other, const std::string& rounding_mode) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor& addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
  Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
  Tensor where(const Tensor& condition, const Tensor& other) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value);
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value);
  bool equal(const Tensor& other) const;
  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false) const;
  Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                 bool equal_nan = false) const;

  // ---- reductions (core/src/ops/reduce_ops.cpp; median, mode: sort_ops.cpp) ----
  Tensor sum(std::optional<DType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  Tensor mean(std::optional<DType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  Tensor prod(std::optional<DType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  Tensor max() const;
  Tensor min() const;
  std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  std::pair<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor var(IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false) const;
  Tensor std(IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false) const;
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const Scalar& p, IntArrayRef dims, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor count_nonzero(IntArrayRef dims = {}) const;

  // ---- shape, scan and sort (core/src/ops/shape_ops.cpp, sort_ops.cpp, scan_ops.cpp) ----
  // [shape/sort/scan methods: flip, roll, repeat, tril, cumsum, sort, topk, unique, ...]
  Tensor flip(IntArrayRef dims) const;
  Tensor fliplr() const;
  Tensor flipud() const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor tile(IntArrayRef dims) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0);
  Tensor& triu_(int64_t diagonal = 0);
  Tensor cumsum(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  Tensor& cumsum_(int64_t dim, std::optional<DType> dtype = std::nullopt);
  Tensor& cumprod_(int64_t dim, std::optional<DType> dtype = std::nullopt);
  std::pair<Tensor, Tensor> cummax(int64_t dim) const;
  std::pair<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;
  std::pair<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false, bool stable = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false, bool stable = false) const;
  Tensor msort() const;
  std::pair<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;
  std::pair<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  Tensor median() const;
  std::pair<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor nanmedian() const;
  std::pair<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  std::pair<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;


  // ---- linear algebra (core/src/ops/linalg_ops.cpp) ----
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  // [linalg methods]
  Tensor vdot(const Tensor& other) const;
  Tensor outer(const Tensor& vec2) const;
  Tensor ger(const Tensor& vec2) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                 const Scalar& alpha = 1);
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  Tensor& baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                   const Scalar& alpha = 1);
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor& addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
                 const Scalar& alpha = 1);

  // ---- random (core/src/ops/random_ops.cpp) ----
  // [random methods: uniform_, normal_, bernoulli_, exponential_, random_, ...]
  // Samplers filling self in place (see ember/ops/random.h); generator
  // nullptr means default_generator(). random_(to): [0, to); random_(from,
  // to): [from, to); random_(): [0, max] for integers, [0, 2^digits] for floats.
  Tensor& uniform_(double from = 0, double to = 1, Generator* generator = nullptr);
  Tensor& normal_(double mean = 0, double std = 1, Generator* generator = nullptr);
  Tensor& bernoulli_(double p = 0.5, Generator* generator = nullptr);
  Tensor& bernoulli_(const Tensor& p, Generator* generator = nullptr);
  Tensor& exponential_(double lambd = 1, Generator* generator = nullptr);
  Tensor& geometric_(double p, Generator* generator = nullptr);
  Tensor& random_(int64_t from, int64_t to, Generator* generator = nullptr);
  Tensor& random_(int64_t to, Generator* generator = nullptr);
  Tensor& random_(Generator* generator = nullptr);
  // Samples with self as the probabilities.
  Tensor bernoulli(Generator* generator = nullptr) const;
  Tensor bernoulli(double p, Generator* generator = nullptr) const;
  Tensor multinomial(int64_t num_samples, bool replacement = false,
                     Generator* generator = nullptr) const;

 private:
  intrusive_ptr<TensorImpl> impl_;
};

// ---- operators (arithmetic on tensors and C++ numbers) ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator%(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator~(const Tensor& a);
Tensor operator!(const Tensor& a);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Scalar& b);

// Printing like PyTorch: values, then dtype (when not the default) and device.
std::ostream& operator<<(std::ostream& os, const Tensor& t);
struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000;  // summarize above this many elements
  int64_t edgeitems = 3;
  int linewidth = 80;
};
void set_printoptions(const PrintOptions& options);
const PrintOptions& printoptions();

// ---- template definitions ----
namespace detail {
[[noreturn]] void throw_data_ptr_mismatch(DType tensor, DType requested);
[[noreturn]] void throw_data_ptr_lazy_bits(bool conj);
}

template <class T>
T* Tensor::data_ptr() const {
  if (dtype_of_v<std::remove_const_t<T>> != dtype())
    detail::throw_data_ptr_mismatch(dtype(), dtype_of_v<std::remove_const_t<T>>);
  if (impl()->has_lazy_bits()) [[unlikely]]
    detail::throw_data_ptr_lazy_bits(is_conj());
  if (!impl()->device().is_host_accessible()) [[unlikely]]
    detail::check_host_access(impl()->device());
  return static_cast<T*>(impl()->data());
}

template <class T>
T Tensor::item() const {
  return item().to<T>();
}

template <class T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const {
  EMBER_CHECK(static_cast<int64_t>(N) == dim(), "accessor: expected a ", N,
              "-d tensor but got ", dim(), " dims");
  return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
}

}  // namespace ember
