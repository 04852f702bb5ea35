#pragma once
// Real transforms of even length n = 2h through a complex FFT of length h.
// Forward (r2c): z[j] = x[2j] + i x[2j+1], Z = FFT_h(z); with the even- and
// odd-sample spectra E = (Z[k] + conj Z[h-k]) / 2 and O = (Z[k] - conj Z[h-k]) / 2i,
//   X[k] = E + W_n^k O  and  X[h-k] = conj(E - W_n^k O),   k in [0, h/2].
// Backward (c2r) runs it in reverse: Z[k] = F + iG, Z[h-k] = conj(F - iG) with
// F = X[k] + conj X[h-k], G = (X[k] - conj X[h-k]) conj(W_n^k); then
// z = IFFT_h(Z) and x[2m] = Re z[m], x[2m+1] = Im z[m]. The imaginary parts of
// X[0] and X[h] are ignored (a Hermitian spectrum has none).
// The pair formulas are written once over a value type with .re/.im members:
// a lane vector CV<T> (kLanes signals) or a scalar Cx<T> (one long signal).
#include <complex>

#include "ember/core/parallel.h"
#include "kernels/cpu/fft/parallel_blocks.h"
#include "kernels/cpu/fft/lane_layout.h"

namespace ember::fft::detail {

template <class T>
struct Cx {
  T re, im;
  Cx mul(T wr, T wi) const { return {re * wr - im * wi, re * wi + im * wr}; }
};

// Z[k], Z[h-k] -> X[k], X[h-k] (W = W_n^k).
template <class C, class S>
inline void untangle_pair(const C& zk, const C& zh, C& xk, C& xh, S half, S wr, S wi) {
  const C e{(zk.re + zh.re) * half, (zk.im - zh.im) * half};
  const C o{(zk.im + zh.im) * half, (zh.re - zk.re) * half};  // -i (zk - conj zh) / 2
  const C p = o.mul(wr, wi);
  xk = C{e.re + p.re, e.im + p.im};
  xh = C{e.re - p.re, p.im - e.im};
}

// X[k], X[h-k] -> conj Z[k], conj Z[h-k]: the backward half FFT runs as a
// conjugated forward one, so its inputs are stored conjugated.
template <class C, class S>
inline void tangle_pair(const C& xk, const C& xh, C& zk, C& zh, S wr, S wi) {
  const C f{xk.re + xh.re, xk.im - xh.im};
  const C g = C{xk.re - xh.re, xk.im + xh.im}.mul(wr, -wi);
  zk = C{f.re - g.im, -(f.im + g.re)};
  zh = C{f.re + g.im, f.im - g.re};
}

// In a lane buffer with room for h + 1 elements: the h half-FFT outputs -> the bins X[0..h].
template <class T>
void untangle_lanes(T* z, int64_t h, const std::complex<T>* tw);

// In a lane buffer: the bins X[0..h] -> the h (conjugated) inputs of the half FFT.
template <class T>
void tangle_lanes(T* x, int64_t h, const std::complex<T>* tw);

// One long signal: Z[0..h) -> store(k, X[k]) for k in [0, h], split across threads.
template <class T, class Store>
void untangle_single(const std::complex<T>* z, int64_t h, const std::complex<T>* tw, const Store& store) {
  const Cx<T> z0{z[0].real(), z[0].imag()};
  store(0, std::complex<T>(z0.re + z0.im, 0));
  store(h, std::complex<T>(z0.re - z0.im, 0));
  parallel_for(1, h / 2 + 1, kParallelMinElements / 4, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      Cx<T> xk, xh;
      untangle_pair(Cx<T>{z[k].real(), z[k].imag()}, Cx<T>{z[h - k].real(), z[h - k].imag()}, xk, xh, T(0.5),
                    tw[k].real(), tw[k].imag());
      store(k, std::complex<T>(xk.re, xk.im));
      if (h - k != k) store(h - k, std::complex<T>(xh.re, xh.im));
    }
  });
}

// One long signal: load(k) = X[k], k in [0, h] -> z[0..h) conjugated half-FFT inputs.
template <class T, class Load>
void tangle_single(const Load& load, int64_t h, const std::complex<T>* tw, std::complex<T>* z) {
  const T x0 = load(0).real(), xh = load(h).real();
  z[0] = std::complex<T>(x0 + xh, xh - x0);
  parallel_for(1, h / 2 + 1, kParallelMinElements / 4, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      const std::complex<T> a = load(k), b = load(h - k);
      Cx<T> zk, zh;
      tangle_pair(Cx<T>{a.real(), a.imag()}, Cx<T>{b.real(), b.imag()}, zk, zh, tw[k].real(), tw[k].imag());
      z[k] = std::complex<T>(zk.re, zk.im);
      if (h - k != k) z[h - k] = std::complex<T>(zh.re, zh.im);
    }
  });
}

}  // namespace ember::fft::detail
