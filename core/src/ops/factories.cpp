#include "ember/ops/factories.h"

#include <cmath>
#include <new>
#include <utility>

#include "ember/ops/elementwise.h"
#include "ops/op_utils.h"
#include "ops/scalar_overflow.h"

namespace ember {

Tensor empty_strided_for(const char* op, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  EMBER_CHECK(sizes.size() == strides.size(), op, ": got ", sizes.size(), " sizes but ", strides.size(),
              " strides");
  const DType dtype = options.dtype();
  // Note [Quantized tensors]: an op that meets a quantized tensor and would
  // make its output in that dtype stops here, naming itself.
  EMBER_CHECK(!is_quantized(dtype), op, ": ", dtype,
              " tensors are not supported (a quantized tensor needs quantization parameters: make one with "
              "quantize_per_tensor or quantize_per_channel, or dequantize() first)");
  // Note [Checked sizes]: the byte count is checked before anything is
  // allocated, and an allocation the system refuses names the op.
  checked_numel(sizes, op);
  const int64_t nbytes = storage_nbytes(sizes, strides, 0, element_size(dtype), op);
  Allocator* allocator = get_allocator(options.device());
  Storage storage;
  try {
    storage = make_intrusive<StorageImpl>(static_cast<size_t>(nbytes), allocator);
  } catch (const Error& e) {
    EMBER_FAIL(op, ": sizes=", sizes, " of ", dtype, ": ", e.what());
  } catch (const std::bad_alloc&) {
    EMBER_FAIL(op, ": sizes=", sizes, " of ", dtype, ": not enough memory: you tried to allocate ", nbytes,
               " bytes");
  }
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

Tensor empty_for(const char* op, IntArrayRef sizes, const TensorOptions& options) {
  checked_numel(sizes, op);
  return empty_strided_for(op, sizes, strides_for(sizes, options.memory_format(), op), options);
}

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  return empty_strided_for("empty_strided", sizes, strides, options);
}

Tensor empty(IntArrayRef sizes, const TensorOptions& options) { return empty_for("empty", sizes, options); }

Tensor zeros(IntArrayRef sizes, const TensorOptions& options) { return empty_for("zeros", sizes, options).zero_(); }
Tensor ones(IntArrayRef sizes, const TensorOptions& options) { return empty_for("ones", sizes, options).fill_(1); }

Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options) {
  const TensorOptions o = options.merged_with(value.dtype());
  check_scalar_fits(value, o.dtype(), "full");  // Note [Scalar overflow]
  return empty_for("full", sizes, o).fill_(value);
}

Tensor scalar_tensor(const Scalar& value, const TensorOptions& options) {
  return full({}, value, options);
}

namespace {
// Dense strides in the stride order of (sizes, strides), as PyTorch's
// infer_dense_strides (the order TensorIterator gives its outputs): dims sorted
// from fastest to slowest by stride, ties to the smaller size, stride-0 dims
// left where they are; a transposed slice gets a transposed dense layout.
DimVector dense_strides_in_order(IntArrayRef sizes, IntArrayRef strides) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  DimVector perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] != strides[d1]) return strides[d0] < strides[d1] ? -1 : 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (int64_t i = 1; i < n; ++i) {  // insertion sort, stable
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int cmp = should_swap(perm[d0], perm[d1]);
      if (cmp > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  DimVector out(static_cast<size_t>(n));
  int64_t stride = 1;
  for (int64_t i = 0; i < n; ++i) {
    out[perm[i]] = stride;
    if (sizes[perm[i]] > 1) stride *= sizes[perm[i]];
  }
  return out;
}
}  // namespace

// The default format preserves the layout, as PyTorch's MemoryFormat::Preserve:
// a dense input's strides, else dense strides in its stride order.
Tensor empty_like(const Tensor& t, const TensorOptions& options) {
  TensorOptions o = options.merged_with(t.dtype(), t.device());
  if (options.memory_format() == MemoryFormat::Contiguous && t.is_non_overlapping_and_dense())
    return empty_strided_for("empty_like", t.sizes(), t.strides(), o);  // preserve the layout exactly
  if (options.memory_format() == MemoryFormat::Contiguous)
    return empty_strided_for("empty_like", t.sizes(), dense_strides_in_order(t.sizes(), t.strides()), o);
  return empty_for("empty_like", t.sizes(), o);
}
Tensor zeros_like(const Tensor& t, const TensorOptions& options) { return empty_like(t, options).zero_(); }
Tensor ones_like(const Tensor& t, const TensorOptions& options) { return empty_like(t, options).fill_(1); }
Tensor full_like(const Tensor& t, const Scalar& value, const TensorOptions& options) {
  check_scalar_fits(value, options.merged_with(t.dtype()).dtype(), "full_like");  // Note [Scalar overflow]
  return empty_like(t, options).fill_(value);
}

namespace {
template <class T>
void fill_sequence(Tensor& out, double start, double step) {
  T* p = out.data_ptr<T>();
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(start + step * static_cast<double>(i));
}
}  // namespace

Tensor arange(const Scalar& end, const TensorOptions& options) { return arange(0, end, 1, options); }
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, 1, options);
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options) {
  const bool all_int = start.is_integral(true) && end.is_integral(true) && step.is_integral(true);
  const DType dtype = options.has_dtype() ? options.dtype() : (all_int ? kInt64 : default_dtype());
  EMBER_CHECK(!is_complex(dtype) && dtype != kBool, "arange: dtype ", dtype, " is not supported");
  const double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: ", start, " -> ", end);
  EMBER_CHECK(st != 0, "arange: step must be nonzero");
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "arange: upper bound and larger bound inconsistent with step sign (start ",
              start, ", end ", end, ", step ", step, ")");
  // The length in 128-bit (integers) or checked against 2^63 (floats), so
  // that extreme bounds raise instead of wrapping (Note [Checked sizes]).
  int64_t n;
  if (all_int) {
    const __int128 a = start.toLong(), b = end.toLong(), c = step.toLong();
    const __int128 len = c > 0 ? (b - a + c - 1) / c : (a - b - c - 1) / (-c);
    EMBER_CHECK(len <= INT64_MAX, "arange: invalid size, possible overflow: the range ", start, " -> ", end,
                " with step ", step, " has more than 2^63 - 1 elements");
    n = static_cast<int64_t>(len);
  } else {
    const double len = std::ceil((e - s) / st);
    EMBER_CHECK(len >= 0 && len < 0x1p63, "arange: invalid size, possible overflow: the range ", start, " -> ", end,
                " with step ", step, " has ", len, " elements");
    n = static_cast<int64_t>(len);
  }
  Tensor out = empty_for("arange", {n}, TensorOptions(dtype).device(kCPU));
  if (all_int && is_integral(dtype)) {
    dispatch<kMaskIntegral>(dtype, "arange", [&](auto tag) {
      using T = decltype(tag);
      T* p = out.data_ptr<T>();
      // a + c * i lies in [start, end), but c * i alone may not fit int64
      // (arange(INT64_MIN, 2^62, 2^62)): computed modulo 2^64, which gives
      // the exact value.
      const auto a = static_cast<uint64_t>(start.toLong()), c = static_cast<uint64_t>(step.toLong());
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<int64_t>(a + c * static_cast<uint64_t>(i)));
    });
  } else {
    dispatch<kMaskReal>(dtype, "arange", [&](auto tag) { fill_sequence<decltype(tag)>(out, s, st); });
  }
  return out.to(options.device());
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  const DType dtype = options.has_dtype() ? options.dtype() : default_dtype();
  Tensor out = empty_for("linspace", {steps}, TensorOptions(dtype));
  const double a = start.toDouble(), b = end.toDouble();
  const double step = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
  // Symmetric evaluation as PyTorch: the second half counts back from `end`,
  // so both endpoints are exact.
  const int64_t half = steps / 2;
  dispatch<kMaskNumber>(dtype, "linspace", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data_ptr<T>();
    for (int64_t i = 0; i < steps; ++i) {
      double v = i < half ? a + step * static_cast<double>(i)
                          : b - step * static_cast<double>(steps - i - 1);
      if constexpr (is_complex_v<T>) p[i] = T(static_cast<typename T::value_type>(v));
      else p[i] = static_cast<T>(v);
    }
  });
  return out.to(options.device());
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "logspace: number of steps must be non-negative, got ", steps);
  const DType dtype = options.has_dtype() ? options.dtype() : default_dtype();
  Tensor out = empty_for("logspace", {steps}, TensorOptions(kFloat64));
  Tensor exponents = linspace(start, end, steps, TensorOptions(kFloat64));
  const double* e = exponents.data_ptr<double>();
  double* p = out.data_ptr<double>();
  for (int64_t i = 0; i < steps; ++i) p[i] = std::pow(base, e[i]);
  return out.to(TensorOptions(dtype).device(options.device()));
}

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }
Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  EMBER_CHECK(n >= 0 && m >= 0, "eye: n and m must be non-negative, got n=", n, " m=", m);
  Tensor out = empty_for("eye", {n, m}, options).zero_();
  if (n && m) out.diagonal().fill_(1);
  return out;
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  checked_numel(sizes, "from_blob");
  const int64_t nbytes = storage_nbytes(sizes, strides, 0, element_size(options.dtype()), "from_blob");
  Storage storage = make_intrusive<StorageImpl>(data, static_cast<size_t>(nbytes), options.device(), nullptr);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), options.dtype(), sizes, strides, 0));
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return from_blob(data, sizes, strides_for(sizes, MemoryFormat::Contiguous, "from_blob"), options);
}

Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options) {
  const int64_t nbytes = checked_nbytes(sizes, element_size(options.dtype()), "from_blob");
  Storage storage = make_intrusive<StorageImpl>(data, static_cast<size_t>(nbytes), options.device(), std::move(deleter));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), options.dtype(), sizes,
                                           strides_for(sizes, MemoryFormat::Contiguous, "from_blob"), 0));
}

namespace detail {
Tensor tensor_from_data(const void* data, DType data_dtype, IntArrayRef sizes,
                        const TensorOptions& options) {
  // Wrap the caller's buffer, then copy-convert into a fresh tensor.
  Tensor view = from_blob(const_cast<void*>(data), sizes, TensorOptions(data_dtype));
  Tensor out = empty(sizes, TensorOptions(options.dtype()));
  out.copy_(view);
  return out.to(options.device());
}
}  // namespace detail

}  // namespace ember
