// get_worker_info() and the scope that sets it in worker threads.
#include "ember/datasets/worker_info.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember::datasets {

namespace {
thread_local std::optional<WorkerInfo> current_worker;
}  // namespace

std::optional<WorkerInfo> get_worker_info() { return current_worker; }

WorkerRange worker_range(int64_t begin, int64_t end, const WorkerInfo& worker) {
  EMBER_CHECK(begin <= end, "worker_range: expected begin <= end, got [", begin, ", ", end, ")");
  EMBER_CHECK(worker.num_workers > 0 && worker.id >= 0 && worker.id < worker.num_workers,
              "worker_range: invalid worker ", worker.id, " of ", worker.num_workers);
  const int64_t n = end - begin;
  const int64_t base = n / worker.num_workers;
  const int64_t extra = n % worker.num_workers;  // the first `extra` workers take one more
  const int64_t first = begin + worker.id * base + std::min(worker.id, extra);
  return {first, first + base + (worker.id < extra ? 1 : 0)};
}

namespace detail {
WorkerInfoScope::WorkerInfoScope(const WorkerInfo& info) : previous_(current_worker) { current_worker = info; }
WorkerInfoScope::~WorkerInfoScope() { current_worker = previous_; }
}  // namespace detail

}  // namespace ember::datasets
