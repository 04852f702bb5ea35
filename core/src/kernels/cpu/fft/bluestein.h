#pragma once
// Bluestein's chirp-z algorithm: a DFT of any length n as a cyclic convolution
// of length m >= 2n - 1 (m with factors 2, 3, 5 only), so lengths with a large
// prime factor stay O(n log n). With w[j] = exp(-i pi j^2 / n), jk = (j^2 +
// k^2 - (k - j)^2) / 2 gives X[k] = w[k] sum_j (x[j] w[j]) conj(w[k - j]).
// The plan holds w and FFT_m of conj(w) (scaled by 1/m); a transform is two
// length-m FFTs: the inverse one is conj(FFT(conj(.))), folded into the products.
#include <complex>

#include "kernels/cpu/fft/lane_io.h"
#include "kernels/cpu/fft/plan.h"
#include "kernels/cpu/fft/scratch.h"

namespace ember::fft::detail {

template <class T, class Load, class Store>
void run_smooth(const Plan<T>& p, const Load& load, const Store& store);

// kLanes signals at once: `a` holds the n input elements in lane layout; a
// and b have room for m elements. Returns the buffer holding the n outputs.
template <class T>
T* run_bluestein_lanes(const Plan<T>& p, T* a, T* b);

// The loads and stores around Bluestein's two inner FFTs. Each is a callable
// (element by element) with load_run/store_run overloads, so the four-step
// reads and writes them kLanes elements at a time.
template <class T, class Load>
struct ChirpedInput {  // x[j] w[j], zero-padded to m
  const Load& load;
  const T* chirp;  // interleaved complex
  int64_t n;
  std::complex<T> operator()(int64_t j) const {
    return j < n ? cmul(load(j), std::complex<T>(chirp[2 * j], chirp[2 * j + 1])) : std::complex<T>();
  }
};
template <class T, class Load>
inline CV<T> load_run(const ChirpedInput<T, Load>& in, int64_t first) {
  if (first + kLanes<T> <= in.n) return load_run<T>(in.load, first).mul(load_adjacent(in.chirp + 2 * first));
  if (first >= in.n) return CV<T>{typename CV<T>::V(T(0)), typename CV<T>::V(T(0))};
  return load_run<T, ChirpedInput<T, Load>>(in, first);
}

template <class T>
struct KernelProduct {  // buf[k] = conj(v K[k]): the conjugated input of the inverse FFT
  T* buf;
  const T* kernel;
  void operator()(int64_t k, std::complex<T> v) const {
    const std::complex<T> r = std::conj(cmul(v, std::complex<T>(kernel[2 * k], kernel[2 * k + 1])));
    buf[2 * k] = r.real();
    buf[2 * k + 1] = r.imag();
  }
};
template <class T>
inline void store_run(const KernelProduct<T>& out, int64_t first, const CV<T>& c) {
  store_adjacent(out.buf + 2 * first, c.mul(load_adjacent(out.kernel + 2 * first)).conj());
}

template <class T, class Store>
struct ChirpedOutput {  // X[k] = w[k] conj(v) for k < n
  const Store& store;
  const T* chirp;
  int64_t n;
  void operator()(int64_t k, std::complex<T> v) const {
    if (k < n) store(k, cmul(std::conj(v), std::complex<T>(chirp[2 * k], chirp[2 * k + 1])));
  }
};
template <class T, class Store>
inline void store_run(const ChirpedOutput<T, Store>& out, int64_t first, const CV<T>& c) {
  if (first + kLanes<T> <= out.n) {
    store_run<T>(out.store, first, c.conj().mul(load_adjacent(out.chirp + 2 * first)));
  } else if (first < out.n) {
    store_run<T, ChirpedOutput<T, Store>>(out, first, c);
  }
}

// One long signal (inner plan: four-step), through load/store as in single.h.
template <class T, class Load, class Store>
void run_bluestein_single(const Plan<T>& p, const Load& load, const Store& store) {
  T* buf = scratch<T>(Slot::Bluestein, 2 * p.m);
  const T* chirp = reinterpret_cast<const T*>(p.chirp.data());
  const T* kernel = reinterpret_cast<const T*>(p.kernel.data());
  run_smooth(*p.inner, ChirpedInput<T, Load>{load, chirp, p.n}, KernelProduct<T>{buf, kernel});
  run_smooth(*p.inner, SignalIn<T>{StridedIn<T>{buf, 2, 1, T(1)}, 0}, ChirpedOutput<T, Store>{store, chirp, p.n});
}

}  // namespace ember::fft::detail
