#pragma once
// Scalar math helpers shared by CPU kernels, with PyTorch's semantics at the edges.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <complex>
#include <limits>
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/core/error.h"

namespace ember::math {

template <class T>
inline bool isnan(T v) {
  if constexpr (is_complex_v<T>) return std::isnan(v.real()) || std::isnan(v.imag());
  else if constexpr (std::is_integral_v<T>) return false;
  else return std::isnan(static_cast<compute_type_t<T>>(v));
}

// Sign bit of a float, by bits: GCC 12 hits an internal compiler error when it
// vectorizes std::signbit with AVX2.
inline bool signbit(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return (u >> 31) != 0;
}
inline bool signbit(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return (u >> 63) != 0;
}

// max/min that propagate NaN (torch.maximum/minimum, max reductions), written
// branch-free so loops over them vectorize: a wins if it is larger or NaN.
template <class T>
inline T max_nan(T a, T b) {
  if constexpr (std::is_integral_v<T>) return a > b ? a : b;
  else return (a > b || a != a) ? a : b;
}
template <class T>
inline T min_nan(T a, T b) {
  if constexpr (std::is_integral_v<T>) return a < b ? a : b;
  else return (a < b || a != a) ? a : b;
}

// Two's-complement wrapping add/mul for integers (what PyTorch's int64 sums
// and products do on overflow), without signed-overflow UB; plain for floats.
template <class T>
inline T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class T>
inline T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    // At least unsigned int: two uint16_t operands would promote to (signed)
    // int, and 65535 * 65535 overflows it (UBSan caught it on int16 tensors).
    using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <class T>
inline T wrapping_neg(T a) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U(0) - static_cast<U>(a));
  } else {
    return -a;
  }
}

// Python-style floor division and modulo for integers; throws on zero divisor
// instead of raising SIGFPE.
template <class T>
inline T int_floor_div(T a, T b) {
  if (b == 0) [[unlikely]] EMBER_FAIL("floor_divide: ZeroDivisionError (integer division by zero)");
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return static_cast<T>(-a);  // avoids INT_MIN / -1 overflow trap
    T q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
  } else {
    return a / b;
  }
}
template <class T>
inline T int_trunc_div(T a, T b) {
  if (b == 0) [[unlikely]] EMBER_FAIL("div: ZeroDivisionError (integer division by zero)");
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return static_cast<T>(-a);
  return static_cast<T>(a / b);
}
template <class T>
inline T int_remainder(T a, T b) {
  if (b == 0) [[unlikely]] EMBER_FAIL("remainder: ZeroDivisionError (integer modulo by zero)");
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
    T r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
  } else {
    return a % b;
  }
}
template <class T>
inline T int_fmod(T a, T b) {
  if (b == 0) [[unlikely]] EMBER_FAIL("fmod: ZeroDivisionError (integer modulo by zero)");
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return 0;
  return static_cast<T>(a % b);
}

// Floating floor division as PyTorch's div_floor: floor(a / b) computed via
// fmod so that the result is exact near integer boundaries.
template <class T>
inline T float_floor_div(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  T floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
  return floordiv;
}
template <class T>
inline T float_remainder(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

// Integer power by squaring; negative exponents follow PyTorch (1/x truncated).
template <class T>
inline T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      if (base == 0) EMBER_FAIL("pow: integers to negative integer powers are not allowed (0 ** ", int64_t(exp), ")");
      return 0;
    }
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = wrapping_mul(result, base);
    exp = static_cast<T>(exp >> 1);
    base = wrapping_mul(base, base);
  }
  return result;
}

}  // namespace ember::math
