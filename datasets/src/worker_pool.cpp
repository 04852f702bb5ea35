// The DataLoader's worker threads.
//
// Note [Threads in workers]
// A worker's ops parallelize like the caller's (Note [Two ways to run a loop]
// in core): in an OpenMP team of the worker's own on quiet cores, on Ember's
// one thread pool, shared by every thread of the process, on shared cores.
// What a worker may use is capped: torch sets 1 intra-op thread in its worker
// processes; here the caller's thread count T is shared out instead, each of
// N workers getting max(1, T / N) (ember::set_thread_local_num_threads, which
// also decides the worker's OpenMP count for BLAS and oneDNN calls), so the
// workers together use at most max(T, N) threads. With N >= T that is
// torch's 1; with one worker on 2 cores it is 2, which measured 20% faster
// when loading is the bottleneck and the same while the caller trains
// (docs/datasets.md). The caller's count is untouched.
#include "ember/datasets/detail/worker_pool.h"

#include <algorithm>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/parallel.h"

namespace ember::datasets::detail {

int threads_per_worker(int64_t num_workers) {
  const int caller = get_num_threads();
  return static_cast<int>(std::max<int64_t>(1, caller / std::max<int64_t>(1, num_workers)));
}

WorkerPool::WorkerPool(int64_t num_workers, int threads_per_worker, std::function<void(int64_t)> worker_init_fn,
                       uint64_t seed, int64_t epoch)
    : num_workers_(num_workers),
      threads_per_worker_(std::max(1, threads_per_worker)),
      worker_init_fn_(std::move(worker_init_fn)),
      seed_(seed),
      epoch_(epoch),
      own_queues_(static_cast<size_t>(num_workers)) {
  EMBER_CHECK(num_workers > 0, "WorkerPool: expected a positive number of workers, got ", num_workers);
  threads_.reserve(static_cast<size_t>(num_workers));
  try {
    for (int64_t id = 0; id < num_workers; ++id) threads_.emplace_back([this, id] { run(id); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    throw;
  }
}

WorkerPool::~WorkerPool() {
  // Jobs hold references to their epoch; destroy the dropped ones outside the lock.
  std::deque<Job> dropped;
  std::vector<std::deque<Job>> dropped_own;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    dropped.swap(shared_queue_);
    for (auto& queue : own_queues_) dropped_own.emplace_back().swap(queue);
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::submit(Job job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shared_queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void WorkerPool::submit_to(int64_t worker, Job job) {
  EMBER_CHECK(worker >= 0 && worker < size(), "WorkerPool::submit_to: no worker ", worker, " in a pool of ", size());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    own_queues_[static_cast<size_t>(worker)].push_back(std::move(job));
  }
  // The one worker that may take it must wake up.
  cv_.notify_all();
}

void WorkerPool::run(int64_t id) {
  ember::set_thread_local_num_threads(threads_per_worker_);
  WorkerContext context{id, nullptr};
  if (worker_init_fn_) {
    WorkerInfoScope info(worker_info_for(seed_, epoch_, id, size()));
    try {
      worker_init_fn_(id);
    } catch (...) {
      context.init_error = std::current_exception();
    }
  }
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto& own = own_queues_[static_cast<size_t>(id)];
      cv_.wait(lock, [&] { return stopping_ || !own.empty() || !shared_queue_.empty(); });
      if (stopping_) return;
      auto& queue = own.empty() ? shared_queue_ : own;
      job = std::move(queue.front());
      queue.pop_front();
    }
    try {
      job(context);
    } catch (...) {
      // Jobs report their errors through their epoch; nothing may escape a thread.
    }
  }
}

}  // namespace ember::datasets::detail
