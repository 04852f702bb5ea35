#pragma once
// Intra-op parallelism. A loop runs as an OpenMP region while the cores are
// quiet and on Ember's own thread pool while other busy threads share them
// (Note [Two ways to run a loop] in core/src/runtime/parallel.cpp); OpenBLAS
// and oneDNN run on OpenMP with the thread count Ember gives each call (Note
// [OpenMP libraries] in core/src/runtime/openmp_calls.cpp).
#include <cstdint>
#include <string>

namespace ember {

// The number of threads Ember's ops use (the calling thread included), for
// the whole process. The default is the number of cores this process may run
// on, or OMP_NUM_THREADS when it is set.
void set_num_threads(int n);
// The calling thread's count: 1 inside a parallel loop, else the count set
// for this thread (set_thread_local_num_threads), else the process's.
int get_num_threads();
// Gives the calling thread its own count (e.g. DataLoader workers, which
// share the cores with the training loop); 0 returns it to the process's.
void set_thread_local_num_threads(int n);
// True inside a chunk of a parallel loop (or an OpenMP region): ops then run
// on the calling thread alone.
bool in_parallel_region();

// A description of the threading setup and of what it has done so far:
// thread counts, whether the cores count as shared now, how many loops ran on
// each path (Note [Two ways to run a loop]), the OpenMP settings seen. For
// diagnosing speed, like PyTorch's at::get_parallel_info().
std::string parallel_info();

// Default grain: below this many elements an elementwise loop runs serially.
inline constexpr int64_t kGrainSize = 32768;

namespace detail {
using ChunkFn = void (*)(const void* ctx, int64_t begin, int64_t end);
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, ChunkFn fn, const void* ctx);
}  // namespace detail

// Calls f(chunk_begin, chunk_end) over [begin, end) split into contiguous
// chunks of at least `grain` elements: one per thread on quiet cores, a few
// per thread claimed as each thread gets a core on shared ones. f must give
// the same result for any split. Runs inline when the range is at most one
// grain, with one thread, or inside another parallel loop.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (end <= begin) return;
  if (end - begin <= grain || get_num_threads() == 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  detail::parallel_for_impl(
      begin, end, grain, [](const void* ctx, int64_t b, int64_t e) { (*static_cast<const F*>(ctx))(b, e); }, &f);
}

}  // namespace ember
