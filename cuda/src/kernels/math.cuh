#pragma once
// Scalar math of the CUDA elementwise kernels, with the CPU kernels'
// semantics at the edges (kernels/cpu/math.h): NaN-propagating max/min,
// wrapping integer arithmetic, Python's floor division and modulo.
#include <cmath>
#include <type_traits>

namespace ember::cuda::kernels {

template <class T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

template <class T>
__device__ __forceinline__ T max_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a > b || a != a) ? a : b;
  else return a > b ? a : b;
}
template <class T>
__device__ __forceinline__ T min_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a < b || a != a) ? a : b;
  else return a < b ? a : b;
}

template <class T>
__device__ __forceinline__ T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return static_cast<T>(a + b);
  }
}
template <class T>
__device__ __forceinline__ T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return static_cast<T>(a * b);
  }
}
template <class T>
__device__ __forceinline__ T wrapping_neg(T a) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U(0) - static_cast<U>(a));
  } else {
    return static_cast<T>(-a);
  }
}

// Floating floor division and remainder as PyTorch's div_floor / remainder.
template <class T>
__device__ __forceinline__ T float_floor_div(T a, T b) {
  if (b == 0) return a / b;
  T mod = fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return copysign(T(0), a / b);
  T floordiv = floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}
template <class T>
__device__ __forceinline__ T float_remainder(T a, T b) {
  T mod = fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

// Integer power by squaring; negative exponents as PyTorch (0 ** negative is
// refused before the kernel runs: pow's op file checks on the host... on the
// GPU it gives 0, as PyTorch's CUDA kernel).
template <class T>
__device__ __forceinline__ T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
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

}  // namespace ember::cuda::kernels
