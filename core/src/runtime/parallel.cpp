// Thread counts, and parallel_for.
//
// Note [Two ways to run a loop]
// While the cores are quiet, a parallel loop is one OpenMP region, one
// contiguous share per thread: the team is the same set of threads that
// OpenBLAS and oneDNN use (libgomp keeps one team per calling thread), so a
// training step that alternates convolutions and Ember's elementwise,
// normalization and pooling loops keeps one set of hot threads. While the
// cores are shared with other busy threads (Note [Shared cores]), every
// region would wait at its barrier for members without a core, so loops run
// on Ember's pool (Note [Ember's thread pool]), whose callers never wait for a
// helper that has not started, and OpenBLAS and oneDNN get one thread (Note
// [OpenMP libraries]). Running on the pool always was measured too: its
// helpers and libgomp's team threads then took turns on the same cores, and a
// ResNet-18 training step on 2 quiet cores ran 3-5% slower (15-25% with
// libgomp's default spin time) than with OpenMP; with one of the two cores
// busy elsewhere, the pool path ran it 2.0x slower than quiet, OpenMP 4.1x.
#include "ember/core/parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <sstream>

#include "ember/core/error.h"
#include "runtime/contention.h"
#include "runtime/thread_pool.h"

extern "C" void openblas_set_num_threads(int);

namespace ember {

namespace {

// Chunks per thread: enough that a helper arriving late still finds work, few
// enough that per-chunk overhead stays negligible.
constexpr int64_t kChunksPerThread = 4;

std::atomic<int> g_num_threads{0};  // 0 until first read
std::atomic<int64_t> g_openmp_loops{0};  // loops run as OpenMP regions (parallel_info)
thread_local int t_num_threads = 0;  // 0: the process's count

int process_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  // libgomp's default: OMP_NUM_THREADS, else the CPUs in the affinity mask.
  int expected = 0;
  g_num_threads.compare_exchange_strong(expected, std::max(1, omp_get_max_threads()));
  return g_num_threads.load(std::memory_order_relaxed);
}

}  // namespace

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_threads: expected a positive number of threads, got ", n);
  g_num_threads.store(n, std::memory_order_relaxed);
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
}

void set_thread_local_num_threads(int n) {
  EMBER_CHECK(n >= 0, "set_thread_local_num_threads: expected a non-negative count, got ", n);
  t_num_threads = n;
}

int get_num_threads() {
  if (in_parallel_region()) return 1;
  return t_num_threads > 0 ? t_num_threads : process_num_threads();
}

bool in_parallel_region() { return runtime::inside_parallel_loop() || omp_in_parallel() != 0; }

std::string parallel_info() {
  const runtime::PoolStats pool = runtime::pool_stats();
  const runtime::ContentionStats cores = runtime::contention_stats();
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::ostringstream s;
  s << "threads: " << get_num_threads() << " (process " << process_num_threads() << ")\n"
    << "cores shared now: " << (runtime::cores_contended() ? "yes" : "no");
  if (cores.measured) {
    s << " (average waiting share " << cores.average_wait << "; " << cores.shared_windows << " of " << cores.windows
      << " windows shared)\n";
  } else {
    s << " (not measured: no /proc/thread-self/schedstat)\n";
  }
  s << "loops: " << g_openmp_loops.load() << " as OpenMP regions, " << pool.loops << " on Ember's pool ("
    << pool.helpers << " helpers, " << pool.helper_joins << " helper joins, " << pool.caller_alone
    << " run by the caller alone)\n"
    << "OpenMP: GOMP_SPINCOUNT=" << (spin ? spin : "(default)") << ", OMP_WAIT_POLICY=" << (policy ? policy : "(default)")
    << "\n";
  return s.str();
}

namespace detail {

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, ChunkFn fn, const void* ctx) {
  const int threads = get_num_threads();
  const int64_t range = end - begin;
  grain = std::max<int64_t>(grain, 1);
  runtime::reserve_pool_helpers(threads);
  if (!runtime::cores_contended()) {
    // Quiet cores: one OpenMP region, one contiguous share per thread (Note
    // [Two ways to run a loop]).
    g_openmp_loops.fetch_add(1, std::memory_order_relaxed);
    const int team = static_cast<int>(std::min<int64_t>(threads, std::max<int64_t>(1, range / grain)));
    std::exception_ptr error;
#pragma omp parallel num_threads(team)
    {
      runtime::sample_scheduler_wait();
      const int tid = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      const int64_t share = (range + nt - 1) / nt;
      const int64_t b = begin + tid * share;
      const int64_t e = std::min(end, b + share);
      if (b < e) {
        try {
          fn(ctx, b, e);
        } catch (...) {
#pragma omp critical(ember_parallel_error)
          if (!error) error = std::current_exception();
        }
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
  const int64_t wanted_chunks = threads * kChunksPerThread;
  const int64_t chunk = std::max(grain, (range + wanted_chunks - 1) / wanted_chunks);
  runtime::run_parallel_loop({.begin = begin, .end = end, .chunk = chunk, .max_threads = threads, .fn = fn, .ctx = ctx});
}

}  // namespace detail

}  // namespace ember
