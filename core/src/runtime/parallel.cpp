// Note [One thread pool]
// Debian's default OpenBLAS (pthreads) keeps its own threads spinning after a
// GEMM; together with another pool they fight for the cores and a GEMM followed
// by elementwise work ran 2-7x slower. Ember links the OpenMP flavour of
// OpenBLAS and uses OpenMP for its own loops, so there is one pool, one thread
// count (set_num_threads sets both) and no oversubscription.
#include "ember/core/parallel.h"

#include <omp.h>

#include <algorithm>
#include <exception>

#include "ember/core/error.h"

extern "C" void openblas_set_num_threads(int);

namespace ember {

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_threads: expected a positive number of threads, got ", n);
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
}

int get_num_threads() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

bool in_parallel_region() { return omp_in_parallel() != 0; }

namespace detail {
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain,
                       const std::function<void(int64_t, int64_t)>& f) {
  const int64_t range = end - begin;
  const int64_t max_chunks = std::max<int64_t>(1, range / std::max<int64_t>(grain, 1));
  const int nthreads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), max_chunks));
  std::exception_ptr error;
#pragma omp parallel num_threads(nthreads)
  {
    const int tid = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const int64_t chunk = (range + nt - 1) / nt;
    const int64_t b = begin + tid * chunk;
    const int64_t e = std::min(end, b + chunk);
    if (b < e) {
      try {
        f(b, e);
      } catch (...) {
#pragma omp critical(ember_parallel_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}
}  // namespace detail

}  // namespace ember
