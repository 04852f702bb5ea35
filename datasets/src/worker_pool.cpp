// The DataLoader's worker threads.
//
// Note [Threads in workers]
// Ember's intra-op parallelism is OpenMP (Note [One thread pool] in core). A
// std::thread starts with the process-wide default thread count (the number
// of cores), so N loader workers, each running ops with 2 OpenMP threads on
// a 2-core machine, would oversubscribe the cores and each worker would start
// an OpenMP team of its own. torch sets 1 intra-op thread in its worker
// processes; the workers here do the same for their own thread only:
// omp_set_num_threads() called from a non-OpenMP thread changes that
// thread's ICV (libgomp gives the thread its own copy), so the caller's
// thread count is untouched. ember::set_num_threads() would be wrong here: it
// also sets OpenBLAS's thread count, which is process-wide.
#include "ember/datasets/detail/worker_pool.h"

#include <omp.h>

#include <utility>

#include "ember/core/error.h"

namespace ember::datasets::detail {

void set_thread_local_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_thread_local_num_threads: expected a positive count, got ", n);
  omp_set_num_threads(n);
}

WorkerPool::WorkerPool(int64_t num_workers, std::function<void(int64_t)> worker_init_fn, uint64_t seed,
                       int64_t epoch)
    : worker_init_fn_(std::move(worker_init_fn)),
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
  set_thread_local_num_threads(1);
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
