// Note [Ember's thread pool]
// While the cores are shared with other busy threads (Note [Shared cores]),
// Ember's loops run on this pool instead of OpenMP (Note [Two ways to run a
// loop] in parallel.cpp). An OpenMP region gives each team member one fixed
// share and ends with a barrier, so a member without a core holds up the
// region for a scheduler time slice; a training step opens hundreds of
// regions, and ran 4x slower with one of two cores taken. Here:
// - A loop is cut into more chunks than threads (kChunksPerThread in
//   parallel.cpp), and every participant claims chunks from a shared
//   counter. The calling thread always participates; helpers that are late
//   find fewer chunks or none.
// - The caller waits only for helpers that have claimed a chunk and are
//   running it, never for one that has not started: when no helper gets a
//   core, the loop runs on the caller alone at serial speed.
// - Idle helpers spin for kSpinNs so that back-to-back loops do not pay a
//   wake-up each, then sleep on a futex; while the cores are shared they
//   sleep at once (a spinning thread takes a core a working one could use,
//   and a sleeper that is woken gets the scheduler's wake-up preference).
// - One pool serves every thread of the process: loops started concurrently
//   (the training loop and DataLoader workers) share the helpers instead of
//   each starting a team.
// - Helpers run with OpenMP's thread count set to 1, so a BLAS or oneDNN call
//   inside a chunk stays on its thread (Note [OpenMP libraries]).
// Chunks are contiguous ranges of at least the loop's grain; kernels give the
// same result for any chunking (the split already depended on the thread
// count).
#include "runtime/thread_pool.h"

#include <linux/futex.h>
#include <omp.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/contention.h"

namespace ember::runtime {

namespace {

constexpr int64_t kSpinNs = 50'000;  // idle helpers spin 50 us before sleeping

thread_local bool t_inside_loop = false;

struct InsideLoopScope {
  bool saved = t_inside_loop;
  InsideLoopScope() { t_inside_loop = true; }
  ~InsideLoopScope() { t_inside_loop = saved; }
};

void futex_wait(std::atomic<uint32_t>* word, uint32_t expected) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void futex_wake(std::atomic<uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// One parallel loop in flight. Lives on the caller's stack; a helper touches
// it only between joining and leaving, both under the pool's mutex, and the
// caller returns only after every helper that joined has left.
struct Job {
  const ParallelLoop* loop = nullptr;
  int64_t num_chunks = 0;
  int max_helpers = 0;
  std::atomic<int64_t> next_chunk{0};
  std::atomic<bool> failed{false};
  // Guarded by the pool's mutex:
  int helpers_joined = 0;
  std::exception_ptr error;
  std::condition_variable helpers_left;
  // Helpers inside the job now; written under the mutex, read by the caller's
  // spin without it.
  std::atomic<int> helpers_inside{0};
};

class Pool {
 public:
  void run(const ParallelLoop& loop);
  void reserve(int helpers);
  PoolStats stats();
  // After fork(): the child has none of the helper threads.
  void forget_helpers_after_fork();

 private:
  void start_helpers_locked(int wanted);
  Job* find_job_locked();
  void run_chunks(Job& job);
  void helper_main();
  bool spin_until_published(uint32_t seen);

  std::mutex mutex_;
  std::vector<Job*> open_jobs_;
  int helpers_ = 0;
  std::atomic<int> helpers_started_{0};  // helpers_, readable without the mutex
  // Bumped whenever a job is published: the futex word idle helpers sleep on.
  std::atomic<uint32_t> epoch_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<int> spinners_{0};
  std::atomic<int64_t> loops_{0}, helper_joins_{0}, caller_alone_{0};
};

Pool& pool() {
  // Never destroyed: helpers may still be asleep in it while the process exits.
  static Pool* p = [] {
    auto* created = new Pool;
    pthread_atfork(nullptr, nullptr, [] { pool().forget_helpers_after_fork(); });
    return created;
  }();
  return *p;
}

void Pool::start_helpers_locked(int wanted) {
  while (helpers_ < wanted) {
    std::thread([this] { helper_main(); }).detach();
    ++helpers_;
  }
  helpers_started_.store(helpers_, std::memory_order_release);
}

void Pool::reserve(int helpers) {
  if (helpers_started_.load(std::memory_order_acquire) >= helpers) return;
  std::lock_guard<std::mutex> lock(mutex_);
  start_helpers_locked(helpers);
}

void Pool::forget_helpers_after_fork() {
  // The parent's helpers do not exist here; jobs open in the parent belong to
  // threads that do not exist either.
  new (&mutex_) std::mutex;
  open_jobs_.clear();
  helpers_ = 0;
  helpers_started_.store(0);
  sleepers_.store(0);
  spinners_.store(0);
}

Job* Pool::find_job_locked() {
  for (Job* job : open_jobs_) {
    if (job->helpers_joined < job->max_helpers &&
        job->next_chunk.load(std::memory_order_relaxed) < job->num_chunks) {
      return job;
    }
  }
  return nullptr;
}

void Pool::run_chunks(Job& job) {
  const ParallelLoop& loop = *job.loop;
  while (!job.failed.load(std::memory_order_relaxed)) {
    const int64_t c = job.next_chunk.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.num_chunks) break;
    const int64_t b = loop.begin + c * loop.chunk;
    const int64_t e = std::min(loop.end, b + loop.chunk);
    try {
      loop.fn(loop.ctx, b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!job.error) job.error = std::current_exception();
      job.failed.store(true, std::memory_order_relaxed);
    }
  }
}

void Pool::run(const ParallelLoop& loop) {
  Job job;
  job.loop = &loop;
  job.num_chunks = (loop.end - loop.begin + loop.chunk - 1) / loop.chunk;
  job.max_helpers = static_cast<int>(std::min<int64_t>(loop.max_threads - 1, job.num_chunks - 1));
  loops_.fetch_add(1, std::memory_order_relaxed);
  sample_scheduler_wait();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    start_helpers_locked(job.max_helpers);
    open_jobs_.push_back(&job);
  }
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  const int to_wake = job.max_helpers - spinners_.load(std::memory_order_seq_cst);
  if (to_wake > 0 && sleepers_.load(std::memory_order_seq_cst) > 0) futex_wake(&epoch_, to_wake);

  {
    InsideLoopScope inside;
    run_chunks(job);
  }

  std::unique_lock<std::mutex> lock(mutex_);
  open_jobs_.erase(std::find(open_jobs_.begin(), open_jobs_.end(), &job));
  if (job.helpers_joined == 0) caller_alone_.fetch_add(1, std::memory_order_relaxed);
  if (job.helpers_inside.load(std::memory_order_relaxed) > 0) {
    // Helpers still finish their last chunk: usually microseconds, so spin a
    // little before sleeping on the condition variable.
    lock.unlock();
    const int64_t until = monotonic_ns() + kSpinNs;
    while (job.helpers_inside.load(std::memory_order_acquire) > 0 && monotonic_ns() < until) {
      for (int i = 0; i < 32; ++i) cpu_relax();
    }
    // Taken again even when the count reached 0: the helper that made it 0
    // may still hold the mutex, and `job` must outlive its last access.
    lock.lock();
    job.helpers_left.wait(lock, [&] { return job.helpers_inside.load(std::memory_order_relaxed) == 0; });
  }
  if (job.error) {
    std::exception_ptr error = job.error;
    lock.unlock();
    std::rethrow_exception(error);
  }
}

bool Pool::spin_until_published(uint32_t seen) {
  if (cores_contended()) return false;
  spinners_.fetch_add(1, std::memory_order_seq_cst);
  const int64_t until = monotonic_ns() + kSpinNs;
  bool published = false;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (epoch_.load(std::memory_order_acquire) != seen) {
        published = true;
        break;
      }
      cpu_relax();
    }
    if (published || monotonic_ns() >= until) break;
  }
  spinners_.fetch_sub(1, std::memory_order_seq_cst);
  return published;
}

void Pool::helper_main() {
  t_inside_loop = true;
  omp_set_num_threads(1);
  for (;;) {
    // Read before looking for work: a job published after this read changes
    // the epoch, so the wait below cannot miss it.
    const uint32_t seen = epoch_.load(std::memory_order_acquire);
    Job* job = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job = find_job_locked();
      if (job != nullptr) {
        ++job->helpers_joined;
        job->helpers_inside.fetch_add(1, std::memory_order_relaxed);
      }
    }
    sample_scheduler_wait();
    if (job != nullptr) {
      helper_joins_.fetch_add(1, std::memory_order_relaxed);
      run_chunks(*job);
      std::lock_guard<std::mutex> lock(mutex_);
      if (job->helpers_inside.fetch_sub(1, std::memory_order_release) == 1) job->helpers_left.notify_one();
      continue;
    }
    if (!spin_until_published(seen)) {
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      futex_wait(&epoch_, seen);
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    }
  }
}

PoolStats Pool::stats() {
  PoolStats s;
  s.loops = loops_.load();
  s.helper_joins = helper_joins_.load();
  s.caller_alone = caller_alone_.load();
  std::lock_guard<std::mutex> lock(mutex_);
  s.helpers = helpers_;
  return s;
}

}  // namespace

void run_parallel_loop(const ParallelLoop& loop) { pool().run(loop); }

void reserve_pool_helpers(int threads) { pool().reserve(threads - 1); }

bool inside_parallel_loop() { return t_inside_loop; }

PoolStats pool_stats() { return pool().stats(); }

}  // namespace ember::runtime
