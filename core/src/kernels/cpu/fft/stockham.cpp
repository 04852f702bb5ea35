// The Stockham auto-sort passes (FFTPACK's decimation-in-frequency form):
// pass (radix r, l1, ido) reads CC(i, j, k) = in[i + ido (j + r k)] and writes
// CH(i, k, j) = out[i + ido (k + l1 j)] = butterfly_j * W^(j l1 i). No bit
// reversal is ever needed; the buffers ping-pong between passes.
#include "kernels/cpu/fft/stockham.h"

#include <utility>

#include "kernels/cpu/fft/butterflies.h"

namespace ember::fft::detail {
namespace {

template <class T, int R>
inline void butterfly(int p, const CV<T>* x, CV<T>* y, const LanePass<T>& pass) {
  if constexpr (R == 2) butterfly2(x, y);
  else if constexpr (R == 4) butterfly4(x, y);
  else if constexpr (R == 8) butterfly8(x, y);
  else butterfly_odd<T, R>(p, x, y, pass.cos_tab.data(), pass.sin_tab.data());
}

// R is the radix at compile time, or 0 for a runtime odd radix.
template <class T, int R>
void run_pass(const LanePass<T>& pass, const T* in, T* out) {
  constexpr int64_t E = kElemStride<T>;
  const int p = R ? R : pass.radix;
  const int64_t ido = pass.ido, l1 = pass.l1;
  const std::complex<T>* tw = pass.tw.data();
  CV<T> x[R ? R : kMaxOdd], y[R ? R : kMaxOdd];
  for (int64_t k = 0; k < l1; ++k) {
    const T* cc = in + ido * p * k * E;  // CC(0, 0, k)
    T* ch = out + ido * k * E;           // CH(0, k, 0)
    const int64_t out_j = ido * l1 * E;  // CH(i, k, j + 1) - CH(i, k, j)
    // i = 0: every twiddle is 1.
    for (int j = 0; j < p; ++j) x[j] = CV<T>::load(cc + j * ido * E);
    butterfly<T, R>(p, x, y, pass);
    for (int j = 0; j < p; ++j) y[j].store(ch + j * out_j);
    for (int64_t i = 1; i < ido; ++i) {
      const std::complex<T>* w = tw + (i - 1) * (p - 1);
      for (int j = 0; j < p; ++j) x[j] = CV<T>::load(cc + (i + j * ido) * E);
      butterfly<T, R>(p, x, y, pass);
      y[0].store(ch + i * E);
      for (int j = 1; j < p; ++j) y[j].mul(w[j - 1]).store(ch + i * E + j * out_j);
    }
  }
}

}  // namespace

template <class T>
T* run_lane_passes(const LanePlan<T>& plan, T* a, T* b) {
  for (const LanePass<T>& pass : plan.passes) {
    switch (pass.radix) {
      case 2: run_pass<T, 2>(pass, a, b); break;
      case 3: run_pass<T, 3>(pass, a, b); break;
      case 4: run_pass<T, 4>(pass, a, b); break;
      case 5: run_pass<T, 5>(pass, a, b); break;
      case 7: run_pass<T, 7>(pass, a, b); break;
      case 8: run_pass<T, 8>(pass, a, b); break;
      case 11: run_pass<T, 11>(pass, a, b); break;
      case 13: run_pass<T, 13>(pass, a, b); break;
      default: run_pass<T, 0>(pass, a, b); break;
    }
    std::swap(a, b);
  }
  return a;
}

template float* run_lane_passes<float>(const LanePlan<float>&, float*, float*);
template double* run_lane_passes<double>(const LanePlan<double>&, double*, double*);

}  // namespace ember::fft::detail
