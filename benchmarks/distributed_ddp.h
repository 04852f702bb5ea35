#pragma once
// The DDP workloads of the distributed suite (distributed_ddp.cpp).
#include <functional>
#include <string>

namespace ember_bench_ddp {

// Times one call on every rank with the suite's protocol; returns rank 0's
// median and fastest seconds and the run count.
struct Timing {
  double median_s = 0, min_s = 0;
  int reps = 0;
};
using TimeFn = std::function<Timing(const std::function<void()>& call)>;
using RecordFn = std::function<void(const std::string& name, const Timing& timing)>;

// For the small CNN and ResNet-18 (batch 32 per rank): ddp_step_<model> (zero_grad,
// DDP forward, backward with the bucketed all_reduces, SGD step),
// compute_<model> (the same step on the local model, no communication) and
// allreduce_<model> (one all_reduce of a float32 buffer as large as all the
// gradients). Workloads whose name lacks filter are skipped.
void run_ddp_workloads(const TimeFn& time, const RecordFn& record, const std::string& filter);

}  // namespace ember_bench_ddp
