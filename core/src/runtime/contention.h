#pragma once
// Whether the cores are shared with other busy threads right now (Note [Shared
// cores] in contention.cpp).
#include <cstdint>

namespace ember::runtime {

// Monotonic clock in nanoseconds (steady_clock; a vDSO call, ~20 ns).
int64_t monotonic_ns();

// Called now and then by Ember's threads (pool helpers, callers of parallel
// loops and of OpenMP libraries): reads the calling thread's scheduler
// statistics at most every few milliseconds and feeds them to the verdict.
void sample_scheduler_wait();

// True while Ember's threads have recently spent a large share of their
// runnable time waiting for a core: other threads (another process, or this
// one's DataLoader workers) hold the cores.
bool cores_contended();

// What the verdict has seen so far (parallel_info()).
struct ContentionStats {
  int64_t windows = 0;         // windows judged
  int64_t shared_windows = 0;  // ... that ended with the cores counted as shared
  double average_wait = 0;     // the moving average of the waiting share now
  bool measured = true;        // false where schedstat cannot be read
};
ContentionStats contention_stats();

// Adds one thread's scheduler statistics since its previous sample (what
// sample_scheduler_wait feeds; public for tests): ran_ns on a core, waited_ns
// runnable without one, at time now_ns.
void add_scheduler_sample(int64_t ran_ns, int64_t waited_ns, int64_t now_ns);

// For tests: force the answer (-1: measure, 0: no, 1: yes); forget what was
// measured.
void force_contention_for_testing(int state);
void reset_contention_state_for_testing();

}  // namespace ember::runtime
