// Note [Shared cores]
// Whether other busy threads (another process, or this one's DataLoader
// workers) hold the cores decides how Ember runs its loops (Note [Two ways to
// run a loop]) and how many threads OpenBLAS and oneDNN get (Note [OpenMP
// libraries]).
//
// The measure is the kernel's own account of waiting: every thread's
// /proc/thread-self/schedstat holds the time it ran and the time it waited in
// a run queue, runnable but without a core. Ember's threads (callers of
// parallel loops and of OpenMP libraries, OpenMP team members in Ember's
// regions, pool helpers) sample theirs now and then, at most every kSampleNs
// each (a clock read otherwise; ~2 us per read), and the samples are pooled
// over windows of kWindowNs. The share of the time Ember's threads wanted to
// run that they spent waiting, waited / (ran + waited), is averaged over
// windows; the cores count as shared once the average passes kEnterShared,
// and quiet again when it falls below kLeaveShared. Measured on 2 cores
// (windows of 20 ms, ResNet-18 and small-CNN training steps): alone, 85-90%
// of the windows under 10% and 1-2% over 30% (brief overlaps of Ember's own
// threads); with a third thread busy on the machine, 25-35% over 30% and
// the average well above kEnterShared. A window in which Ember's threads wanted less than
// kMinRunnableNs of CPU keeps the verdict as it is, so an idle program does
// not flip it. Without /proc (or schedstats) the cores always count as quiet.
#include "runtime/contention.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>

namespace ember::runtime {

namespace {

constexpr int64_t kSampleNs = 2'000'000;       // per thread
constexpr int64_t kWindowNs = 20'000'000;
constexpr int64_t kMinRunnableNs = 4'000'000;  // per window, all threads together
// The verdict follows a moving average of the windows' waiting shares, with
// hysteresis: shared above kEnterShared, quiet again below kLeaveShared.
constexpr double kAverageWeight = 0.3;  // of the newest window
constexpr double kEnterShared = 0.18;
constexpr double kLeaveShared = 0.10;

std::atomic<int64_t> g_window_start_ns{0};
std::atomic<int64_t> g_window_ran_ns{0};
std::atomic<int64_t> g_window_waited_ns{0};
std::atomic<bool> g_shared{false};
std::atomic<double> g_average_wait{0.0};  // updated by the thread closing a window
std::atomic<int64_t> g_windows{0}, g_shared_windows{0};  // judged windows, for parallel_info()
std::atomic<int> g_forced{-1};

// A thread's reader of its own schedstat: "<ran ns> <waited ns> <slices>".
struct SchedstatReader {
  int fd = -1;
  bool unavailable = false;
  int64_t last_sample_ns = 0;
  int64_t last_ran_ns = -1;
  int64_t last_waited_ns = 0;

  ~SchedstatReader() {
    if (fd >= 0) close(fd);
  }
  bool read(int64_t& ran, int64_t& waited) {
    if (fd < 0) {
      if (unavailable) return false;
      fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        unavailable = true;  // no procfs, or a kernel without schedstats
        return false;
      }
    }
    char buf[96];
    const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return false;
    buf[n] = '\0';
    long long r = 0, w = 0;
    if (std::sscanf(buf, "%lld %lld", &r, &w) != 2) return false;
    ran = r;
    waited = w;
    return true;
  }
};

thread_local SchedstatReader t_reader;

void close_window_if_due(int64_t now) {
  int64_t start = g_window_start_ns.load(std::memory_order_relaxed);
  if (now - start < kWindowNs) return;
  // One thread closes the window; the others' samples go to the next one.
  if (!g_window_start_ns.compare_exchange_strong(start, now, std::memory_order_relaxed)) return;
  const int64_t ran = g_window_ran_ns.exchange(0, std::memory_order_relaxed);
  const int64_t waited = g_window_waited_ns.exchange(0, std::memory_order_relaxed);
  if (ran + waited < kMinRunnableNs) return;
  const double share = static_cast<double>(waited) / static_cast<double>(ran + waited);
  const double average = (1 - kAverageWeight) * g_average_wait.load(std::memory_order_relaxed) + kAverageWeight * share;
  g_average_wait.store(average, std::memory_order_relaxed);
  const bool shared = g_shared.load(std::memory_order_relaxed);
  if (!shared && average > kEnterShared) g_shared.store(true, std::memory_order_relaxed);
  if (shared && average < kLeaveShared) g_shared.store(false, std::memory_order_relaxed);
  g_windows.fetch_add(1, std::memory_order_relaxed);
  if (g_shared.load(std::memory_order_relaxed)) g_shared_windows.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void sample_scheduler_wait() {
  SchedstatReader& r = t_reader;
  const int64_t now = monotonic_ns();
  if (now - r.last_sample_ns < kSampleNs) return;
  r.last_sample_ns = now;
  int64_t ran = 0, waited = 0;
  if (!r.read(ran, waited)) return;
  if (r.last_ran_ns >= 0) add_scheduler_sample(ran - r.last_ran_ns, waited - r.last_waited_ns, now);
  r.last_ran_ns = ran;
  r.last_waited_ns = waited;
}

void add_scheduler_sample(int64_t ran_ns, int64_t waited_ns, int64_t now_ns) {
  g_window_ran_ns.fetch_add(ran_ns, std::memory_order_relaxed);
  g_window_waited_ns.fetch_add(waited_ns, std::memory_order_relaxed);
  close_window_if_due(now_ns);
}

void reset_contention_state_for_testing() {
  g_window_start_ns.store(0);
  g_window_ran_ns.store(0);
  g_window_waited_ns.store(0);
  g_average_wait.store(0.0);
  g_shared.store(false);
}

bool cores_contended() {
  const int forced = g_forced.load(std::memory_order_relaxed);
  if (forced >= 0) return forced == 1;
  return g_shared.load(std::memory_order_relaxed);
}

ContentionStats contention_stats() {
  ContentionStats s;
  s.windows = g_windows.load(std::memory_order_relaxed);
  s.shared_windows = g_shared_windows.load(std::memory_order_relaxed);
  s.average_wait = g_average_wait.load(std::memory_order_relaxed);
  s.measured = !t_reader.unavailable;
  return s;
}

void force_contention_for_testing(int state) { g_forced.store(state, std::memory_order_relaxed); }

}  // namespace ember::runtime
