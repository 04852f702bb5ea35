#pragma once
// Forward DFT butterflies of small radices on lane vectors: y[u] = sum_j x[j]
// W_r^(j u), W_r = exp(-2 pi i / r). Radix 2, 4 and 8 are written out; odd
// radices share one kernel that pairs x[j] with x[r - j] (half the products),
// instantiated with a compile-time radix for 3, 5, 7, 11, 13 (fully unrolled)
// and a runtime one for the other primes up to kMaxRadix.
#include "kernels/cpu/fft/lane_layout.h"

namespace ember::fft::detail {

template <class T>
inline void butterfly2(const CV<T>* x, CV<T>* y) {
  y[0] = x[0] + x[1];
  y[1] = x[0] - x[1];
}

template <class T>
inline void butterfly4(const CV<T>* x, CV<T>* y) {
  const CV<T> t0 = x[0] + x[2], t1 = x[0] - x[2];
  const CV<T> t2 = x[1] + x[3], t3 = (x[1] - x[3]).times_minus_i();
  y[0] = t0 + t2;
  y[2] = t0 - t2;
  y[1] = t1 + t3;
  y[3] = t1 - t3;
}

// Radix 8 as two radix-4 halves (even and odd inputs) joined by W_8^u.
template <class T>
inline void butterfly8(const CV<T>* x, CV<T>* y) {
  using V = typename CV<T>::V;
  const CV<T> ev[4] = {x[0], x[2], x[4], x[6]}, od[4] = {x[1], x[3], x[5], x[7]};
  CV<T> e[4], o[4];
  butterfly4(ev, e);
  butterfly4(od, o);
  const V r(static_cast<T>(0.70710678118654752440084436210484903928));
  // o1 * W_8 = (a + b, b - a) / sqrt 2; o2 * W_8^2 = -i o2; o3 * W_8^3 = (b - a, -(a + b)) / sqrt 2.
  const CV<T> w1{(o[1].re + o[1].im) * r, (o[1].im - o[1].re) * r};
  const CV<T> w2 = o[2].times_minus_i();
  const CV<T> w3{(o[3].im - o[3].re) * r, -(o[3].re + o[3].im) * r};
  y[0] = e[0] + o[0];
  y[4] = e[0] - o[0];
  y[1] = e[1] + w1;
  y[5] = e[1] - w1;
  y[2] = e[2] + w2;
  y[6] = e[2] - w2;
  y[3] = e[3] + w3;
  y[7] = e[3] - w3;
}

// Odd radix p (P = p at compile time, or P = 0 and p at run time, p <= kMaxOdd).
// With tp[j] = x[j] + x[p-j], tm[j] = x[j] - x[p-j] (j = 1 .. (p-1)/2):
//   y[u]     = x[0] + sum_j cos(2 pi j u / p) tp[j] - i sum_j sin(2 pi j u / p) tm[j]
//   y[p - u] = the same with + i.
inline constexpr int kMaxOdd = 63;

template <class T, int P>
inline void butterfly_odd(int p_runtime, const CV<T>* x, CV<T>* y, const T* cos_tab, const T* sin_tab) {
  using V = typename CV<T>::V;
  const int p = P ? P : p_runtime;
  const int h = (p - 1) / 2;
  CV<T> tp[kMaxOdd / 2 + 1], tm[kMaxOdd / 2 + 1];
  CV<T> y0 = x[0];
  for (int j = 1; j <= h; ++j) {
    tp[j] = x[j] + x[p - j];
    tm[j] = x[j] - x[p - j];
    y0 = y0 + tp[j];
  }
  y[0] = y0;
  for (int u = 1; u <= h; ++u) {
    CV<T> a = x[0];
    V br(T(0)), bi(T(0));
    int ju = 0;
    for (int j = 1; j <= h; ++j) {
      ju += u;
      if (ju >= p) ju -= p;
      const V c(cos_tab[ju]), s(sin_tab[ju]);
      a.re = a.re + c * tp[j].re;
      a.im = a.im + c * tp[j].im;
      br = br + s * tm[j].re;
      bi = bi + s * tm[j].im;
    }
    // y[u] = a - i b, y[p - u] = a + i b.
    y[u] = CV<T>{a.re + bi, a.im - br};
    y[p - u] = CV<T>{a.re - bi, a.im + br};
  }
}

}  // namespace ember::fft::detail
