#pragma once
// Bluestein's chirp-z algorithm: a DFT of any length n as a cyclic convolution
// of length m >= 2n - 1 (m with factors 2, 3, 5 only), so lengths with a large
// prime factor stay O(n log n). With w[j] = exp(-i pi j^2 / n), jk = (j^2 +
// k^2 - (k - j)^2) / 2 gives X[k] = w[k] sum_j (x[j] w[j]) conj(w[k - j]).
// The plan holds w and FFT_m of conj(w) (scaled by 1/m); a transform is two
// length-m FFTs: the inverse one is conj(FFT(conj(.))), folded into the products.
#include <complex>

#include "fft/plan.h"
#include "fft/scratch.h"

namespace ember::fft::detail {

template <class T, class Load, class Store>
void run_smooth(const Plan<T>& p, const Load& load, const Store& store);

// kLanes signals at once: `a` holds the n input elements in lane layout; a
// and b have room for m elements. Returns the buffer holding the n outputs.
template <class T>
T* run_bluestein_lanes(const Plan<T>& p, T* a, T* b);

// One long signal (inner plan: four-step), through load/store as in single.h.
template <class T, class Load, class Store>
void run_bluestein_single(const Plan<T>& p, const Load& load, const Store& store) {
  const int64_t n = p.n;
  std::complex<T>* buf = scratch<std::complex<T>>(Slot::Bluestein, p.m);
  const std::complex<T>* w = p.chirp.data();
  const std::complex<T>* kern = p.kernel.data();
  run_smooth(
      *p.inner, [&](int64_t j) { return j < n ? cmul(load(j), w[j]) : std::complex<T>(); },
      [&](int64_t k, std::complex<T> v) { buf[k] = std::conj(cmul(v, kern[k])); });
  run_smooth(
      *p.inner, [&](int64_t j) { return buf[j]; },
      [&](int64_t k, std::complex<T> v) {
        if (k < n) store(k, cmul(std::conj(v), w[k]));
      });
}

}  // namespace ember::fft::detail
