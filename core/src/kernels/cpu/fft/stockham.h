#pragma once
// Runs a LanePlan: the Stockham passes over kLanes signals in lane layout.
#include "kernels/cpu/fft/plan.h"

namespace ember::fft::detail {

// Forward transform of the plan.n elements in `a`; `b` is a second buffer of
// the same size. Returns whichever of a and b holds the result (in natural order).
template <class T>
T* run_lane_passes(const LanePlan<T>& plan, T* a, T* b);

}  // namespace ember::fft::detail
