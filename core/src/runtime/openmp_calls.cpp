// Note [OpenMP libraries]
// OpenBLAS (Debian's OpenMP build) and oneDNN (Debian's libdnnl, OpenMP
// runtime) parallelize with libgomp. Ember does not run its own loops on
// OpenMP (Note [Ember's thread pool]), but it decides these libraries' thread
// count, call by call, through the calling thread's OpenMP setting
// (omp_set_num_threads applies to the calling thread only; OpenBLAS's OpenMP
// build reads omp_get_max_threads() at every call, oneDNN at primitive
// creation, so Ember's oneDNN primitive cache keys on the count):
// - inside a chunk of Ember's pool: 1, so a library call never starts a team
//   inside a parallel loop;
// - while the cores are shared (Note [Shared cores]): 1. An OpenMP region
//   ends with a barrier that waits for every team member, and a member with
//   no core holds it for a scheduler time slice; one thread never waits.
//   (Measured with one of two cores busy elsewhere: a ResNet-18 training step
//   took 0.23 s with one thread here, 1.5-1.8 s with two.) These libraries'
//   last bits depend on their thread count (a convolution's weight gradient
//   sums per-thread parts), so results then depend on the machine's load, as
//   they would on a different set_num_threads; with deterministic algorithms
//   on (use_deterministic_algorithms) the count stays get_num_threads(), and
//   results are bitwise the same under any load, at the price of that
//   slowdown;
// - otherwise get_num_threads().
#include "runtime/openmp_calls.h"

#include <omp.h>

#include "ember/core/determinism.h"
#include "ember/core/parallel.h"
#include "runtime/contention.h"
#include "runtime/thread_pool.h"

namespace ember::runtime {

int prepare_openmp_library_call() {
  sample_scheduler_wait();
  int threads = inside_parallel_loop() ? 1 : get_num_threads();
  if (threads > 1 && cores_contended() && !are_deterministic_algorithms_enabled()) threads = 1;
  // Cheap (libgomp writes the thread's ICV), and re-applied every call in
  // case code outside Ember changed the thread's setting.
  omp_set_num_threads(threads);
  return threads;
}

}  // namespace ember::runtime
