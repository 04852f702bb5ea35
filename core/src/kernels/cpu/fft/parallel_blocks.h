#pragma once
// Work split for the engine: f(i) for every block i in [0, count), in chunks
// of blocks claimed by whichever thread of the pool is free (Note [Ember's
// thread pool]), so a thread that starts late just takes fewer blocks. Each block's result does not depend on which thread ran it, so the
// output is the same for any thread count.
#include <cstdint>

#include "ember/core/parallel.h"

namespace ember::fft::detail {

// Transforms touching fewer elements than this (all signals together) run on
// one thread: at ~0.1 ms, a second thread's wake-up eats most of the gain.
inline constexpr int64_t kParallelMinElements = 1 << 18;

// Runs serially when count < min_parallel_blocks (not worth waking threads).
template <class F>
void parallel_blocks(int64_t count, int64_t min_parallel_blocks, const F& f) {
  const int threads = get_num_threads();
  if (count < std::max<int64_t>(2, min_parallel_blocks) || threads == 1 || in_parallel_region()) {
    for (int64_t i = 0; i < count; ++i) f(i);
    return;
  }
  parallel_for(0, count, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

}  // namespace ember::fft::detail
