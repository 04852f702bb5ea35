#pragma once
// Work split for the engine: f(i) for every block i in [0, count), blocks
// handed out one at a time from a shared counter rather than in fixed halves.
// A thread that starts late (the cores are shared, or busy with another
// process) then just takes fewer blocks instead of leaving the others waiting
// for its half. Each block's result does not depend on which thread ran it,
// so the output is the same for any thread count.
#include <atomic>
#include <cstdint>

#include "ember/core/parallel.h"

namespace ember::fft::detail {

// Transforms touching fewer elements than this (all signals together) run on
// one thread: they take ~0.1 ms, less than what waking a second thread can
// cost when the cores are shared (a descheduled worker holds up the join).
inline constexpr int64_t kParallelMinElements = 1 << 18;

// Runs serially when count < min_parallel_blocks (not worth waking threads).
template <class F>
void parallel_blocks(int64_t count, int64_t min_parallel_blocks, const F& f) {
  const int threads = get_num_threads();
  if (count < std::max<int64_t>(2, min_parallel_blocks) || threads == 1 || in_parallel_region()) {
    for (int64_t i = 0; i < count; ++i) f(i);
    return;
  }
  std::atomic<int64_t> next{0};
  parallel_for(0, std::min<int64_t>(threads, count), 1, [&](int64_t, int64_t) {
    for (int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < count;
         i = next.fetch_add(1, std::memory_order_relaxed)) {
      f(i);
    }
  });
}

}  // namespace ember::fft::detail
