#pragma once
// Which DataLoader worker runs the current code (torch.utils.data.get_worker_info).
#include <cstdint>
#include <optional>

namespace ember::datasets {

struct WorkerInfo {
  // This worker's number, 0 <= id < num_workers.
  int64_t id = 0;
  // How many workers the DataLoader runs (1 when it loads in the calling thread).
  int64_t num_workers = 1;
  // This worker's seed for the current epoch, derived from the loader's seed,
  // the epoch and the worker id: a worker that keeps its own random state
  // (a file shuffler, a sampler inside an iterable dataset) seeds it from here.
  uint64_t seed = 0;
};

// The WorkerInfo of the DataLoader worker thread that calls it, or nullopt
// outside worker threads (in the caller's thread, and with num_workers = 0),
// as torch's get_worker_info() returns None in the main process.
std::optional<WorkerInfo> get_worker_info();

// The share of [begin, end) that `worker` should read when an iterable dataset
// splits a range of items evenly between workers (the pattern of torch's
// IterableDataset documentation): contiguous, sizes differing by at most one.
struct WorkerRange {
  int64_t begin = 0;
  int64_t end = 0;
};
WorkerRange worker_range(int64_t begin, int64_t end, const WorkerInfo& worker);

namespace detail {
// Sets get_worker_info() on this thread while it lives (the DataLoader's
// workers run each job under one).
class WorkerInfoScope {
 public:
  explicit WorkerInfoScope(const WorkerInfo& info);
  ~WorkerInfoScope();
  WorkerInfoScope(const WorkerInfoScope&) = delete;
  WorkerInfoScope& operator=(const WorkerInfoScope&) = delete;

 private:
  std::optional<WorkerInfo> previous_;
};
}  // namespace detail

}  // namespace ember::datasets
