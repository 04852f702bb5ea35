#include "kernels/cpu/fft/real.h"

namespace ember::fft::detail {

template <class T>
void untangle_lanes(T* z, int64_t h, const std::complex<T>* tw) {
  using V = typename CV<T>::V;
  constexpr int64_t E = kElemStride<T>;
  const CV<T> z0 = CV<T>::load(z);
  const V zero(T(0));
  CV<T>{z0.re + z0.im, zero}.store(z);
  CV<T>{z0.re - z0.im, zero}.store(z + h * E);
  for (int64_t k = 1; 2 * k <= h; ++k) {
    CV<T> xk, xh;
    untangle_pair(CV<T>::load(z + k * E), CV<T>::load(z + (h - k) * E), xk, xh, V(T(0.5)), V(tw[k].real()),
                  V(tw[k].imag()));
    xk.store(z + k * E);
    if (h - k != k) xh.store(z + (h - k) * E);
  }
}

template <class T>
void tangle_lanes(T* x, int64_t h, const std::complex<T>* tw) {
  using V = typename CV<T>::V;
  constexpr int64_t E = kElemStride<T>;
  const V x0 = CV<T>::load(x).re, xh = CV<T>::load(x + h * E).re;
  CV<T>{x0 + xh, xh - x0}.store(x);
  for (int64_t k = 1; 2 * k <= h; ++k) {
    CV<T> zk, zh;
    tangle_pair(CV<T>::load(x + k * E), CV<T>::load(x + (h - k) * E), zk, zh, V(tw[k].real()), V(tw[k].imag()));
    zk.store(x + k * E);
    if (h - k != k) zh.store(x + (h - k) * E);
  }
}

template void untangle_lanes<float>(float*, int64_t, const std::complex<float>*);
template void untangle_lanes<double>(double*, int64_t, const std::complex<double>*);
template void tangle_lanes<float>(float*, int64_t, const std::complex<float>*);
template void tangle_lanes<double>(double*, int64_t, const std::complex<double>*);

}  // namespace ember::fft::detail
