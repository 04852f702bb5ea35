#pragma once
// Intra-op parallelism. Everything in Ember, BLAS included, runs on one
// OpenMP runtime: see Note [One thread pool] in parallel.cpp.
#include <cstdint>
#include <functional>

namespace ember {

void set_num_threads(int n);
int get_num_threads();
bool in_parallel_region();

// Default grain: below this many elements an elementwise loop runs serially.
inline constexpr int64_t kGrainSize = 32768;

namespace detail {
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain,
                       const std::function<void(int64_t, int64_t)>& f);
}

// Calls f(chunk_begin, chunk_end) over [begin, end) split into at most one
// contiguous chunk per thread, each at least `grain` long. Runs inline when the
// range is small or when already inside a parallel region.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (end <= begin) return;
  if (end - begin <= grain || get_num_threads() == 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  detail::parallel_for_impl(begin, end, grain, f);
}

}  // namespace ember
