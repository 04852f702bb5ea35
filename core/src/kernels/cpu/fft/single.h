#pragma once
// One signal through a plan, with the input read and the output written by
// callables: load(j) -> std::complex<T> for j < n, store(k, value) for k < n,
// called in any order (and from several threads). The callables fold in the
// caller's strides, conjugations, real/Hermitian packing and scaling, so no
// copy of the signal is made around the transform.
#include <cstring>

#include "kernels/cpu/fft/bluestein.h"
#include "kernels/cpu/fft/four_step.h"
#include "kernels/cpu/fft/scratch.h"
#include "kernels/cpu/fft/stockham.h"

namespace ember::fft::detail {

// A plan without Bluestein at the top (the inner plan of Bluestein itself).
template <class T, class Load, class Store>
void run_smooth(const Plan<T>& p, const Load& load, const Store& store) {
  if (p.kind == Plan<T>::Kind::FourStep) {
    run_four_step(p, load, store);
    return;
  }
  // A lane plan on one signal: lane 0 carries it, the others stay zero.
  constexpr int L = kLanes<T>;
  constexpr int64_t E = kElemStride<T>;
  T* a = scratch<T>(Slot::LaneA, p.n * E);
  T* b = scratch<T>(Slot::LaneB, p.n * E);
  std::memset(a, 0, sizeof(T) * p.n * E);
  for (int64_t j = 0; j < p.n; ++j) {
    const std::complex<T> v = load(j);
    a[j * E] = v.real();
    a[j * E + L] = v.imag();
  }
  const T* r = run_lane_passes(p.lanes, a, b);
  for (int64_t k = 0; k < p.n; ++k) store(k, std::complex<T>(r[k * E], r[k * E + L]));
}

template <class T, class Load, class Store>
void run_single(const Plan<T>& p, const Load& load, const Store& store) {
  if (p.kind == Plan<T>::Kind::Bluestein) {
    run_bluestein_single(p, load, store);
  } else {
    run_smooth(p, load, store);
  }
}

}  // namespace ember::fft::detail
