#pragma once
// FFT plans: everything about a transform length that can be computed once
// (factorization, twiddle factors, sub-plans, Bluestein's chirp) and reused.
// Plans are immutable after construction and shared through an LRU cache
// (plan_cache.cpp), so any number of threads can run one plan at once.
//
// One plan serves both directions: the engine only implements the forward
// transform and gets the backward one as conj(forward(conj(x))), with the two
// conjugations folded into the loads and stores around it.
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/cpu/fft/lane_layout.h"

namespace ember::fft::detail {

// Radix-r passes of a Stockham auto-sort FFT over lane-layout buffers
// (lane_layout.h). Pass p has l1 = product of the earlier radices and
// ido = n / (l1 * radix), as in FFTPACK/pocketfft.
template <class T>
struct LanePass {
  int radix;
  int64_t l1, ido;
  // W_n^(j * l1 * i) for i in [1, ido), j in [1, radix): tw[(i - 1) * (radix - 1) + j - 1].
  std::vector<std::complex<T>> tw;
  // Odd radices (3, 5, 7, ...): cos and sin of 2 pi m / radix, m in [0, radix).
  std::vector<T> cos_tab, sin_tab;
};

template <class T>
struct LanePlan {
  int64_t n = 1;
  std::vector<LanePass<T>> passes;
};

// Radices up to this are done by butterflies; a larger prime factor sends the
// whole length to Bluestein (its O(p) cost per element would dominate).
inline constexpr int64_t kMaxRadix = 61;
// Lengths above this (with only small prime factors) use the four-step
// decomposition: the lane buffers of a longer transform leave the L2 cache.
inline constexpr int64_t kFourStepMin = 4096;

template <class T>
struct Plan {
  enum class Kind { Lanes, FourStep, Bluestein };
  int64_t n = 1;
  Kind kind = Kind::Lanes;

  // Lanes: a Stockham transform run on kLanes signals at once.
  LanePlan<T> lanes;

  // FourStep: n = n1 * n2, column FFTs of length n1, twiddles, row FFTs of length n2.
  int64_t n1 = 0, n2 = 0;
  LanePlan<T> col, row;
  // The step-2 twiddle W_n^(j2 k1) for column j2 = cb L + l, as a product of
  // two small tables (a full n-entry table would add a sixth of the memory
  // traffic of a long transform): W_n^(l k1) in lane layout [n1][re, im][L],
  // times the scalar W_n^(cb L k1) at [cb][k1].
  std::vector<T, LaneAllocator<T>> tw_lane;
  std::vector<std::complex<T>> tw_block;

  // Bluestein: a length-m (2n - 1 <= m, m smooth) cyclic convolution.
  int64_t m = 0;
  std::shared_ptr<const Plan<T>> inner;
  std::vector<std::complex<T>> chirp;   // exp(-i pi j^2 / n), j < n
  std::vector<std::complex<T>> kernel;  // FFT_m of conj(chirp) wrapped cyclically, times 1/m

  // Whether a batch can run kLanes signals at a time (the plan fits in lane buffers).
  bool lane_batched() const {
    return kind == Kind::Lanes || (kind == Kind::Bluestein && inner->kind == Kind::Lanes);
  }
  // Elements a lane buffer needs for this plan (Bluestein works at length m).
  int64_t lane_elems() const { return kind == Kind::Bluestein ? m : n; }
};

// The real-input plan of an even length n: a complex plan of n / 2 plus the
// twiddles W_n^k (k in [0, n/2]) that untangle the packed even/odd samples.
template <class T>
struct RealPlan {
  int64_t n = 0;
  std::shared_ptr<const Plan<T>> half;
  std::vector<std::complex<T>> tw;
};

// Cached plans (thread-safe; LRU of bounded size).
template <class T>
std::shared_ptr<const Plan<T>> get_plan(int64_t n);
template <class T>
std::shared_ptr<const RealPlan<T>> get_real_plan(int64_t n);  // n even

// Uncached construction (plan_cache.cpp calls these on a miss).
template <class T>
std::shared_ptr<const Plan<T>> make_plan(int64_t n);
template <class T>
std::shared_ptr<const RealPlan<T>> make_real_plan(int64_t n);

// exp(-2 pi i num / den) computed in double, for twiddles of any precision.
std::complex<double> unit_root(int64_t num, int64_t den);

}  // namespace ember::fft::detail
