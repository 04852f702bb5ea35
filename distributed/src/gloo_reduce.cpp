#include "gloo_reduce.h"

#include <algorithm>
#include <cstdint>
#include <complex>
#include <type_traits>

#include <ember/core/dtype.h>
#include <ember/core/half.h>

#include <ember/core/error.h>

namespace ember::distributed::gloo_detail {

namespace {

template <class T>
constexpr bool is_complex_v = std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

template <class T, class Op>
ReduceFunction elementwise(Op op) {
  return [op](void* out, const void* a, const void* b, size_t n) {
    T* o = static_cast<T*>(out);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) o[i] = static_cast<T>(op(x[i], y[i]));
  };
}

template <class T>
ReduceFunction reduce_for(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      return elementwise<T>([](T x, T y) { return x + y; });
    case ReduceOp::PRODUCT:
      return elementwise<T>([](T x, T y) { return x * y; });
    case ReduceOp::MIN:
    case ReduceOp::MAX:
      if constexpr (!is_complex_v<T>) {
        // NaN propagates, as torch's gloo MIN/MAX (std::min would drop it).
        if (op == ReduceOp::MIN) return elementwise<T>([](T x, T y) { return (x < y || x != x) ? x : y; });
        return elementwise<T>([](T x, T y) { return (x > y || x != x) ? x : y; });
      }
      break;
    case ReduceOp::BAND:
    case ReduceOp::BOR:
    case ReduceOp::BXOR:
      if constexpr (std::is_integral_v<T>) {
        if (op == ReduceOp::BAND) return elementwise<T>([](T x, T y) { return x & y; });
        if (op == ReduceOp::BOR) return elementwise<T>([](T x, T y) { return x | y; });
        return elementwise<T>([](T x, T y) { return x ^ y; });
      }
      break;
  }
  EMBER_FAIL("all_reduce: ReduceOp ", reduce_op_name(op), " does not apply to this dtype");
}

template <class F>
auto dispatch_reduce_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::UInt8: return f(uint8_t{});
    case DType::Int8: return f(int8_t{});
    case DType::Int16: return f(int16_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Bool: return f(bool{});
    case DType::Float16: return f(Half{});
    case DType::BFloat16: return f(BFloat16{});
    case DType::Complex64: return f(complex64{});
    case DType::Complex128: return f(complex128{});
    default: break;
  }
  EMBER_FAIL("all_reduce: dtype ", dtype, " is not supported by the gloo backend (", kReduceDtypeNames, ")");
}

}  // namespace

bool reduce_dtype_supported(DType dtype) {
  switch (dtype) {
    case DType::UInt8:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::Float32:
    case DType::Float64:
    case DType::Bool:
    case DType::Float16:
    case DType::BFloat16:
    case DType::Complex64:
    case DType::Complex128:
      return true;
    default:
      return false;
  }
}

bool op_supported(DType dtype, ReduceOp op) {
  if (!reduce_dtype_supported(dtype)) return false;
  const bool bitwise = op == ReduceOp::BAND || op == ReduceOp::BOR || op == ReduceOp::BXOR;
  const bool complex = dtype == DType::Complex64 || dtype == DType::Complex128;
  // Complex numbers have no order (MIN/MAX) and no bits; the mean of bools is
  // no bool.
  if (complex) return op == ReduceOp::SUM || op == ReduceOp::PRODUCT || op == ReduceOp::AVG;
  if (dtype == DType::Bool) return op != ReduceOp::AVG;
  return !bitwise || !is_floating_point(dtype);
}

ReduceFunction reduce_function(DType dtype, ReduceOp op) {
  return dispatch_reduce_dtype(dtype, [&](auto zero) { return reduce_for<decltype(zero)>(op); });
}

void divide_in_place(DType dtype, void* data, size_t n, int64_t divisor) {
  dispatch_reduce_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* p = static_cast<T*>(data);
    if constexpr (!std::is_same_v<T, bool>)
      for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(p[i] / static_cast<T>(static_cast<float>(divisor)));
    return 0;
  });
}

}  // namespace ember::distributed::gloo_detail
