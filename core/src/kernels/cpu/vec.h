#pragma once
// Vec<T>: a 32-byte SIMD vector (AVX2 on x86-64, two NEON registers on aarch64)
// written with GCC/Clang vector extensions, so one source serves every ISA.
// Only what the compiler cannot vectorize by itself lives here: transcendental
// functions, and the loop driver that feeds them.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ember::vec {

inline constexpr int kVecBytes = 32;

// GCC ignores vector_size on a dependent type, so the vector types are spelled out.
template <class T>
struct VecTypes;
template <>
struct VecTypes<float> {
  typedef float V __attribute__((vector_size(kVecBytes)));
  typedef int32_t Mask __attribute__((vector_size(kVecBytes)));
};
template <>
struct VecTypes<double> {
  typedef double V __attribute__((vector_size(kVecBytes)));
  typedef int64_t Mask __attribute__((vector_size(kVecBytes)));
};

template <class T>
struct Vec {
  using V = typename VecTypes<T>::V;
  using Mask = typename VecTypes<T>::Mask;
  static constexpr int size = kVecBytes / sizeof(T);
  V v;

  Vec() = default;
  Vec(V x) : v(x) {}
  Vec(T s) : v(V{} + s) {}
  static Vec load(const T* p) {
    Vec r;
    std::memcpy(&r.v, p, sizeof(V));
    return r;
  }
  void store(T* p) const { std::memcpy(p, &v, sizeof(V)); }
  // Non-temporal store (Note [Streaming stores] in loops.h); p 32-byte aligned.
  void store_stream(T* p) const {
#if defined(__clang__)
    __builtin_nontemporal_store(v, reinterpret_cast<V*>(p));
#elif defined(__AVX__)
    if constexpr (sizeof(T) == 4) __builtin_ia32_movntps256(reinterpret_cast<float*>(p), (__attribute__((vector_size(32))) float)v);
    else __builtin_ia32_movntpd256(reinterpret_cast<double*>(p), (__attribute__((vector_size(32))) double)v);
#else
    store(p);
#endif
  }
  T operator[](int i) const { return v[i]; }

  friend Vec operator+(Vec a, Vec b) { return a.v + b.v; }
  friend Vec operator-(Vec a, Vec b) { return a.v - b.v; }
  friend Vec operator*(Vec a, Vec b) { return a.v * b.v; }
  friend Vec operator/(Vec a, Vec b) { return a.v / b.v; }
  friend Vec operator-(Vec a) { return -a.v; }
  friend Mask operator<(Vec a, Vec b) { return (Mask)(a.v < b.v); }
  friend Mask operator>(Vec a, Vec b) { return (Mask)(a.v > b.v); }
  friend Mask operator<=(Vec a, Vec b) { return (Mask)(a.v <= b.v); }
  friend Mask operator>=(Vec a, Vec b) { return (Mask)(a.v >= b.v); }
  friend Mask operator==(Vec a, Vec b) { return (Mask)(a.v == b.v); }
  friend Mask operator!=(Vec a, Vec b) { return (Mask)(a.v != b.v); }
};

template <class T>
inline Vec<T> select(typename Vec<T>::Mask m, Vec<T> a, Vec<T> b) {
  return m ? a.v : b.v;
}
// max/min propagating NaN (as torch.maximum / relu of NaN).
template <class T>
inline Vec<T> maximum(Vec<T> a, Vec<T> b) {
  auto r = select(a > b, a, b);
  return select(a != a, a, r);
}
template <class T>
inline Vec<T> minimum(Vec<T> a, Vec<T> b) {
  auto r = select(a < b, a, b);
  return select(a != a, a, r);
}
template <class T>
inline Vec<T> abs(Vec<T> a) {
  return select(a < Vec<T>(T(0)), -a, a);
}

// Truncation toward zero (exact for |x| < 2^31, which is all callers need).
inline Vec<float> trunc(Vec<float> x) {
  return Vec<float>(__builtin_convertvector(__builtin_convertvector(x.v, Vec<float>::Mask), Vec<float>::V));
}

// 2^n for integral-valued n in [-150, 128], as two exact power-of-two factors so
// that results in the subnormal range stay accurate.
inline Vec<float> exp2_int(Vec<float> n) {
  using I = Vec<float>::Mask;
  I ni = __builtin_convertvector(n.v, I);
  I n1 = ni >> 1;
  I n2 = ni - n1;
  I b1 = (n1 + 127) << 23;
  I b2 = (n2 + 127) << 23;
  Vec<float> f1, f2;
  std::memcpy(&f1.v, &b1, sizeof(b1));
  std::memcpy(&f2.v, &b2, sizeof(b2));
  return f1 * f2;
}

// min/max without NaN handling (one instruction on x86; callers restore NaN).
inline Vec<float> fast_min(Vec<float> a, Vec<float> b) {
#if defined(__AVX__)
  return Vec<float>(__builtin_ia32_minps256(a.v, b.v));
#else
  return a.v < b.v ? a.v : b.v;
#endif
}
inline Vec<float> fast_max(Vec<float> a, Vec<float> b) {
#if defined(__AVX__)
  return Vec<float>(__builtin_ia32_maxps256(a.v, b.v));
#else
  return a.v > b.v ? a.v : b.v;
#endif
}

// Round to nearest (even), for |x| < 2^22: adding and subtracting 1.5 * 2^23
// leaves the rounded value (two instructions instead of a floor sequence).
inline Vec<float> round_small(Vec<float> x) {
  const Vec<float> magic(12582912.f);
  return (x + magic) - magic;
}

// exp(x) for float: Cephes-style range reduction and a degree-6 polynomial,
// within 2 ulp; overflow to inf and underflow to 0 fall out of the clamped
// range and the two-factor scaling, so only NaN needs a select.
inline Vec<float> exp(Vec<float> x) {
  // Plain min/max (NaN is restored at the end).
  const Vec<float> xc = fast_max(fast_min(x, Vec<float>(88.8f)), Vec<float>(-104.f));
  const Vec<float> n = round_small(xc * Vec<float>(1.44269504088896341f));
  const Vec<float> r = xc - n * Vec<float>(0.693359375f) - n * Vec<float>(-2.12194440e-4f);
  Vec<float> p(1.9875691500E-4f);
  p = p * r + Vec<float>(1.3981999507E-3f);
  p = p * r + Vec<float>(8.3334519073E-3f);
  p = p * r + Vec<float>(4.1665795894E-2f);
  p = p * r + Vec<float>(1.6666665459E-1f);
  p = p * r + Vec<float>(5.0000001201E-1f);
  const Vec<float> y = p * r * r + r + Vec<float>(1.f);
  return select(x != x, x, y * exp2_int(n));
}

// tanh(x) for float: Cephes's odd polynomial for |x| < 0.625 (where the exp
// form cancels), 1 - 2 / (exp(2|x|) + 1) with the sign restored elsewhere.
inline Vec<float> tanh(Vec<float> x) {
  const Vec<float> ax = abs(x);
  const Vec<float> z = x * x;
  Vec<float> p(-5.70498872745E-3f);
  p = p * z + Vec<float>(2.06390887954E-2f);
  p = p * z + Vec<float>(-5.37397155531E-2f);
  p = p * z + Vec<float>(1.33314422036E-1f);
  p = p * z + Vec<float>(-3.33332819422E-1f);
  // x * (1 + z p) rather than x + x z p keeps tanh(-0) = -0.
  const Vec<float> small = x * (Vec<float>(1.f) + p * z);
  const Vec<float> e = exp(ax + ax);
  Vec<float> big = Vec<float>(1.f) - Vec<float>(2.f) / (e + Vec<float>(1.f));
  big = select(x < Vec<float>(0.f), -big, big);
  return select(ax < Vec<float>(0.625f), small, big);
}

}  // namespace ember::vec
