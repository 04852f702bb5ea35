#pragma once
// Timing of one workload (interleaved Ember/peer runs) and the machine's copy bandwidth.
#include <string>

#include "bench.h"

namespace ember_bench {

struct TimingOptions {
  int warmup = 2;          // untimed runs per side (the first one is also checked)
  double target_s = 0.4;   // time each side for at least this long ...
  int min_reps = 5;        // ... and at least this many runs,
  double max_s = 2.0;      // but stop a slow workload after this long per side
  int max_reps = 5000;
};

struct Measurement {
  double ember_s = 0;  // median seconds per run
  double peer_s = 0;
  double ember_min_s = 0;  // fastest run per side: less sensitive to other load
  double peer_min_s = 0;
  double ceiling_s = 0;  // when the case has a ceiling
  double ceiling_min_s = 0;
  int reps = 0;
  std::string mismatch;  // "" when the results agree
  std::string ceiling_mismatch;  // the ceiling's result vs the peer's, when it gives one
  std::string error;     // an exception from either side; nothing was timed
};

Measurement measure(const Case& c, const TimingOptions& options);

struct CopyBandwidth {
  double copy_gbs = 0;    // plain load/store loop
  double memcpy_gbs = 0;  // libc memcpy
};
// Best of many passes over `bytes` with `threads` OpenMP threads, counting
// bytes read + bytes written (STREAM's convention).
CopyBandwidth measure_copy_bandwidth(size_t bytes, int threads);

// The CPU the numbers came from: /proc/cpuinfo's model name (what `lscpu`
// prints as "Model name"), its core count and the widest x86 vector
// extension it has, e.g. "Intel(R) Xeon(R) Processor, 2 cores, AVX-512".
// Kernels differ across microarchitectures (gathers, unaligned loads), so
// every published ratio names its CPU.
std::string cpu_description();

}  // namespace ember_bench
