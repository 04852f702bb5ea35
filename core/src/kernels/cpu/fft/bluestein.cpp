#include "kernels/cpu/fft/bluestein.h"

#include <cstring>

#include "kernels/cpu/fft/stockham.h"

namespace ember::fft::detail {

template <class T>
T* run_bluestein_lanes(const Plan<T>& p, T* a, T* b) {
  constexpr int64_t E = kElemStride<T>;
  const int64_t n = p.n, m = p.m;
  const LanePlan<T>& inner = p.inner->lanes;
  for (int64_t j = 0; j < n; ++j) CV<T>::load(a + j * E).mul(p.chirp[j]).store(a + j * E);
  std::memset(a + n * E, 0, sizeof(T) * (m - n) * E);
  T* r = run_lane_passes(inner, a, b);
  T* other = r == a ? b : a;
  for (int64_t k = 0; k < m; ++k) CV<T>::load(r + k * E).mul(p.kernel[k]).conj().store(r + k * E);
  T* s = run_lane_passes(inner, r, other);
  for (int64_t k = 0; k < n; ++k) CV<T>::load(s + k * E).conj().mul(p.chirp[k]).store(s + k * E);
  return s;
}

template float* run_bluestein_lanes<float>(const Plan<float>&, float*, float*);
template double* run_bluestein_lanes<double>(const Plan<double>&, double*, double*);

}  // namespace ember::fft::detail
