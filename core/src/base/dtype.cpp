#include "ember/core/dtype.h"

#include <atomic>

#include "ember/core/error.h"

namespace ember {

std::string_view dtype_name(DType t) {
  static constexpr std::string_view names[kNumDTypes] = {
      "bool",    "uint8",    "int8",    "int16",   "int32",     "int64",
      "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
      "qint8",   "quint8",   "qint32",  "quint4x2"};
  return names[static_cast<int>(t)];
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

std::string_view qscheme_name(QScheme q) {
  static constexpr std::string_view names[] = {"per_tensor_affine", "per_tensor_symmetric",
                                               "per_channel_affine", "per_channel_symmetric",
                                               "per_channel_affine_float_qparams"};
  return names[static_cast<int>(q)];
}
std::ostream& operator<<(std::ostream& os, QScheme q) { return os << qscheme_name(q); }

namespace {
int integral_rank(DType t) { return static_cast<int>(t); }
}  // namespace

// torch.promote_types, written as rules rather than PyTorch's 13x13 table.
DType promote_types(DType a, DType b) {
  if (a == b) return a;
  // As torch: quantized values carry a quantizer each; no rule combines two.
  EMBER_CHECK(!is_quantized(a) && !is_quantized(b), "promote_types: type promotion with quantized dtypes (",
              a, ", ", b, ") is not supported; dequantize() first");
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_complex(a) || is_complex(b)) {
    // The complex type whose value type is the promotion of the real parts.
    DType real = promote_types(to_real_dtype(a), to_real_dtype(b));
    return real == DType::Float64 ? DType::Complex128 : DType::Complex64;
  }
  if (is_floating_point(a) && is_floating_point(b)) {
    if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
      return DType::Float32;
    return static_cast<int>(a) > static_cast<int>(b) ? a : b;
  }
  if (is_floating_point(a)) return a;
  if (is_floating_point(b)) return b;
  // Both integral. uint8 with a signed type needs a signed type that holds 0..255.
  if (a == DType::UInt8 || b == DType::UInt8) {
    DType other = a == DType::UInt8 ? b : a;
    return other == DType::Int8 ? DType::Int16 : other;
  }
  return integral_rank(a) > integral_rank(b) ? a : b;
}

namespace {
std::atomic<DType> g_default_dtype{DType::Float32};
}
DType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(DType t) {
  EMBER_CHECK(t == DType::Float32 || t == DType::Float64 || t == DType::Float16 ||
                  t == DType::BFloat16,
              "set_default_dtype: only floating point dtypes are supported, got ", t);
  g_default_dtype.store(t, std::memory_order_relaxed);
}

namespace detail {
void throw_unsupported_dtype(const char* op, DType t) {
  throw Error(concat(op, ": dtype ", t, " is not supported"));
}
}  // namespace detail

}  // namespace ember
