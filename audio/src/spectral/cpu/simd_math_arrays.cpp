// simd_math_arrays.h: whole registers, the tail padded with zeros.
#include "spectral/cpu/simd_math_arrays.h"

#include <algorithm>
#include <cstring>

#include "spectral/cpu/simd_math.h"

namespace ember::audio::simd_math {
namespace {

template <class V, class T>
V load_padded(const T* p, int64_t n) {
  V v{};
  if (n == static_cast<int64_t>(sizeof(V) / sizeof(T))) std::memcpy(&v, p, sizeof(V));
  else std::memcpy(&v, p, static_cast<size_t>(n) * sizeof(T));
  return v;
}
template <class V, class T>
void store_part(T* p, V v, int64_t n) {
  if (n == static_cast<int64_t>(sizeof(V) / sizeof(T))) std::memcpy(p, &v, sizeof(V));
  else std::memcpy(p, &v, static_cast<size_t>(n) * sizeof(T));
}

template <class V, class T, class Fn>
void binary(const T* a, const T* b, T* out, int64_t n, Fn fn) {
  constexpr int64_t L = sizeof(V) / sizeof(T);
  for (int64_t i = 0; i < n; i += L) {
    const int64_t m = std::min(L, n - i);
    store_part(out + i, fn(load_padded<V>(a + i, m), load_padded<V>(b + i, m)), m);
  }
}

template <class V, class T>
void sincos_any(const T* x, T* s, T* c, int64_t n) {
  constexpr int64_t L = sizeof(V) / sizeof(T);
  for (int64_t i = 0; i < n; i += L) {
    const int64_t m = std::min(L, n - i);
    V sv, cv;
    sincos(load_padded<V>(x + i, m), sv, cv);
    store_part(s + i, sv, m);
    store_part(c + i, cv, m);
  }
}

}  // namespace

void atan2_array(const float* y, const float* x, float* out, int64_t n) {
  binary<VecF>(y, x, out, n, [](VecF a, VecF b) { return atan2(a, b); });
}
void atan2_array(const double* y, const double* x, double* out, int64_t n) {
  binary<VecD>(y, x, out, n, [](VecD a, VecD b) { return atan2(a, b); });
}
void sincos_array(const float* x, float* sin_out, float* cos_out, int64_t n) {
  sincos_any<VecF>(x, sin_out, cos_out, n);
}
void sincos_array(const double* x, double* sin_out, double* cos_out, int64_t n) {
  sincos_any<VecD>(x, sin_out, cos_out, n);
}
void hypot_array(const float* re, const float* im, float* out, int64_t n) {
  binary<VecF>(re, im, out, n, [](VecF a, VecF b) { return hypot(a, b); });
}
void hypot_array(const double* re, const double* im, double* out, int64_t n) {
  binary<VecD>(re, im, out, n, [](VecD a, VecD b) { return hypot(a, b); });
}

}  // namespace ember::audio::simd_math
