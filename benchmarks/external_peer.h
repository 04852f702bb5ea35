#pragma once
// Runs a workload's external peer (ExternalPeer in bench.h) and checks its result.
#include <string>

#include "bench.h"

namespace ember_bench {

struct ExternalMeasurement {
  double median_s = 0;
  double min_s = 0;
  int reps = 0;
  std::string mismatch;  // its result vs Ember's; "" when they agree
  std::string unchecked; // the peer's reason for not writing a comparable result (another algorithm)
  std::string skipped;   // the peer's reason for not running here
  std::string error;     // it failed: exit status, unreadable output, ...
};

// Runs the peer's command with the harness's options appended and compares the
// result it wrote with `ember_result` (exactly for integer results, else with
// the tolerances).
ExternalMeasurement run_external_peer(const ExternalPeer& peer, const ember::Tensor& ember_result,
                                      double target_s, int threads, double rtol, double atol);

}  // namespace ember_bench
