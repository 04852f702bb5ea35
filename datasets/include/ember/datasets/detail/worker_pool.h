#pragma once
// The DataLoader's machinery that does not depend on the sample type: worker
// threads, seed derivation and error wrapping (datasets/src/worker_pool.cpp,
// loader_support.cpp). Not a public API.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ember/datasets/worker_info.h"

namespace ember::datasets::detail {

// What a job learns about the worker thread running it.
struct WorkerContext {
  int64_t id = 0;
  // Set when this worker's worker_init_fn threw: the worker still takes jobs,
  // and each reports this error (so it reaches the caller at the batch that
  // needed the worker).
  std::exception_ptr init_error;
};

// A fixed set of worker threads taking jobs from one shared queue (map-style
// datasets: any worker fetches any batch) or from a queue of their own
// (iterable datasets: worker w runs its own stream). Each thread sets its own
// intra-op thread count to threads_per_worker (Note [Threads in workers]),
// then runs worker_init_fn(id) with get_worker_info() set for `epoch` (the
// epoch the pool is started for).
class WorkerPool {
 public:
  using Job = std::function<void(const WorkerContext&)>;

  WorkerPool(int64_t num_workers, int threads_per_worker, std::function<void(int64_t)> worker_init_fn,
             uint64_t seed, int64_t epoch);
  // Drops the jobs not yet started and joins the threads (after their
  // current job returns).
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int64_t size() const { return num_workers_; }
  void submit(Job job);
  void submit_to(int64_t worker, Job job);

 private:
  void run(int64_t id);

  // Fixed before the threads start (they read it while threads_ still grows).
  const int64_t num_workers_;
  int threads_per_worker_;
  std::function<void(int64_t)> worker_init_fn_;
  uint64_t seed_;
  int64_t epoch_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Job> shared_queue_;
  std::vector<std::deque<Job>> own_queues_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// The intra-op threads each of num_workers workers gets: the caller's count
// shared out, at least 1 (Note [Threads in workers]).
int threads_per_worker(int64_t num_workers);

// Seeds derived from the loader's seed: a hash of the words (splitmix64
// rounds), so nearby inputs give unrelated seeds.
uint64_t mix_seed(std::initializer_list<uint64_t> words);
// Which stream a derived seed is for, the second word of mix_seed.
enum SeedStream : uint64_t {
  kOrderStream = 1,    // (seed, epoch): the sampler's draw of the epoch's order
  kSampleStream = 2,   // (seed, epoch, position): dataset.get() of one sample
  kCollateStream = 3,  // (seed, epoch, batch): the collate function
  kWorkerStream = 4,   // (seed, epoch, worker): WorkerInfo::seed
  kStreamStream = 5,   // (seed, epoch, worker, n): an iterable dataset's n-th sample in a worker
};

// Worker `id`'s WorkerInfo in `epoch` (its seed from kWorkerStream).
WorkerInfo worker_info_for(uint64_t seed, int64_t epoch, int64_t id, int64_t num_workers);

// A fresh seed from default_generator() (for a loader built without one).
uint64_t draw_seed();

// Inside a catch block: throws an ember::Error "<context>: <what() of the
// current exception>" that nests the current exception
// (std::rethrow_if_nested recovers it).
[[noreturn]] void rethrow_with_context(const std::string& context);

// "[3, 17, 5]" (at most `limit` values, then ", ...").
std::string format_indices(const std::vector<int64_t>& indices, size_t limit = 8);

// Thrown inside a worker's job to unwind when its epoch was stopped.
struct EpochStopped {};

}  // namespace ember::datasets::detail
