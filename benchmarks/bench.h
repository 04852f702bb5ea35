#pragma once
// Side-by-side benchmark harness: each workload runs with Ember and with
// libtorch (the peer) in one process, on the same inputs and thread count.
//
// A suite area (core_elementwise.cpp, core_reduce.cpp, ...) registers its
// workloads with a table:
//
//   const bool kRegistered = ember_bench::add_workloads({
//       {"core", "add_16M", [] {
//          auto a = ember_bench::twin(at::rand({kN}));
//          auto b = ember_bench::twin(at::rand({kN}));
//          return ember_bench::Case{[=] { return ember::add(a.e, b.e); },
//                                   [=] { return at::add(a.t, b.t); }};
//        }},
//   });
//
// make() builds the inputs once, right before the workload is timed, so only
// one workload's tensors are alive at a time.
#include <ATen/ATen.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember_bench {

// A reference ceiling: the same work done by a specialised library that is
// not a peer Ember is compared with as a product (e.g. FFTW for transforms,
// the fastest known implementation). It runs in the same interleaved timing
// loop as Ember and the peer and is reported as `ceiling: <name>`, `<name>_s`,
// `<name>_min_s` and `ratio_to_<name>` (= <name>_s / ember_s, 1 means Ember
// reaches the ceiling).
struct Ceiling {
  std::string name;          // short, JSON-key friendly: "fftw"
  std::function<void()> run;  // one run; writes into buffers the workload owns
  // Optional: the result of the last run as a libtorch tensor (may alias those
  // buffers), checked against the peer's result like Ember's.
  std::function<at::Tensor()> result = {};
};

// A peer in another process, e.g. torchvision through Python: after the
// in-process sides are timed, the harness runs `command` with
//   --target-s S --threads N --result FILE
// appended. The command times its own runs (warm-up, then at least 5 runs and
// S seconds) and prints, as the last line of its standard output, one JSON
// object: {"median_s": ..., "min_s": ..., "reps": ...}, or {"skip": "why"}
// when it cannot run here (e.g. a missing Python module). It writes its last
// result's bytes (C order) to FILE; the harness checks them against Ember's
// result read with the same shape and dtype. The inputs it needs are files the
// workload writes to scratch_dir() and names in `command`.
struct ExternalPeer {
  std::string name;                  // "torchvision"
  std::vector<std::string> command;  // program and arguments
};

struct Case {
  std::function<ember::Tensor()> ember;  // one run; returns its result for the check
  // The in-process peer. May be empty when a workload has only external peers
  // (e.g. video decoding vs torchvision and PyAV): Ember is then timed alone
  // and each external peer's row is the only one.
  std::function<at::Tensor()> peer;
  // Memory traffic of one run (bytes read + written, STREAM convention) for
  // the achieved-bandwidth column; 0 when the workload is not a stream.
  double bytes = 0;
  double rtol = 1e-5;
  double atol = 1e-6;
  // Workloads made of `units` repetitions of something (e.g. graph nodes):
  // the table shows, and the JSON line records, the time per unit in us.
  int64_t units = 0;
  std::string unit_name = {};
  // Optional: a reference ceiling timed alongside (see Ceiling).
  std::optional<Ceiling> ceiling = std::nullopt;
  // What `peer` runs, for the report: libtorch unless the in-process peer is
  // something else (e.g. the raw libjpeg call the io suite measures against).
  std::string peer_name = "libtorch";
  // Optional: peers in other processes, each reported on a line of its own.
  std::vector<ExternalPeer> external_peers = {};
  // Also timed while another process keeps one core busy (BusyCore): each
  // peer's row is repeated as "<workload>@busy_core", with every side's
  // slowdown against its own quiet time (README, "Speed under load").
  bool under_load = false;
};

// Thrown by Workload::make when the workload cannot run on this machine (e.g.
// the ffmpeg CLI that makes its input is missing): reported as skipped, which
// is not a failure.
struct SkipWorkload : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Workload {
  std::string suite;
  std::string name;
  std::function<Case()> make;
};

// Appends to the registry (in registration order); returns true so that a
// namespace-scope `const bool` can call it during static initialization.
bool add_workloads(std::vector<Workload> workloads);
const std::vector<Workload>& workloads();

// The same values as an Ember tensor and a libtorch tensor (separate copies).
struct Twin {
  ember::Tensor e;
  at::Tensor t;
};
Twin twin(const at::Tensor& t);

ember::Tensor to_ember(const at::Tensor& t);
at::Tensor to_torch(const ember::Tensor& t);

// "" when the results agree (same shape and dtype, allclose for floating
// results, equal otherwise), else a short description of the difference.
std::string compare(const ember::Tensor& ours, const at::Tensor& peer, double rtol, double atol);
// The same for two libtorch tensors (e.g. a ceiling's result).
std::string compare(const at::Tensor& ours, const at::Tensor& peer, double rtol, double atol);

// A folder for the files workloads hand to external peers: made on first use,
// removed with its contents when ember_bench exits.
const std::string& scratch_dir();

// benchmarks/ in the source tree, where the peer scripts live (peers/).
std::string source_dir();

inline constexpr int64_t kMi = int64_t(1) << 20;

}  // namespace ember_bench
