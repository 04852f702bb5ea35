#pragma once
// What the CPU effect kernels share: the dtype switch over float32/float64
// and a parallel walk over independent rows (channels) of a signal.
#include <algorithm>
#include <cstdint>

#include <ember/core/dtype.h>
#include <ember/core/parallel.h>

namespace ember::audio::effects::cpu {

// Calls f(T{}) with T float or double; other dtypes raise naming op.
template <class F>
decltype(auto) dispatch_float(DType dtype, const char* op, F&& f) {
  return dispatch<kMaskFloat>(dtype, op, std::forward<F>(f));
}

// Calls f(row) for rows [0, rows), in parallel chunks sized so that each
// chunk has about kGrainSize units of work (work_per_row units a row).
template <class F>
void for_each_row(int64_t rows, int64_t work_per_row, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_row));
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) f(r);
  });
}

}  // namespace ember::audio::effects::cpu
