#pragma once
// Side-by-side benchmark harness: each workload runs with Ember and with
// libtorch (the peer) in one process, on the same inputs and thread count.
//
// The harness is built twice (Note [Two harness builds]): into ember_bench
// with libtorch (EMBER_BENCH_LIBTORCH=1), and into ember_bench_text without it
// (EMBER_BENCH_LIBTORCH=0), whose peers all run in other processes.
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
#ifndef EMBER_BENCH_LIBTORCH
#error "EMBER_BENCH_LIBTORCH must be 0 or 1 (benchmarks/CMakeLists.txt defines it)"
#endif
#if EMBER_BENCH_LIBTORCH
#include <ATen/ATen.h>
#endif

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember_bench {

// Note [Two harness builds]
// Debian's libsentencepiece bundles its own protobuf-lite and crashes any
// process that also loads libtorch (docs/text.md, "SentencePiece"), so the
// text suite cannot live in ember_bench. The harness's sources (main,
// measure, report, registry, external peers, scratch, busy core) know the
// in-process peer's result only as PeerTensor: a libtorch tensor in
// ember_bench, an Ember tensor in ember_bench_text, where no workload has an
// in-process peer and only external peers' results (bytes read back from a
// file) are compared. tensor_bridge.cpp (libtorch) and result_check.cpp
// (Ember alone) implement the conversions and the check for each build.
#if EMBER_BENCH_LIBTORCH
using PeerTensor = at::Tensor;
#else
using PeerTensor = ember::Tensor;
#endif

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
  std::function<PeerTensor()> result = {};
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
  std::function<PeerTensor()> peer;
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

#if EMBER_BENCH_LIBTORCH
// The same values as an Ember tensor and a libtorch tensor (separate copies).
struct Twin {
  ember::Tensor e;
  at::Tensor t;
};
Twin twin(const at::Tensor& t);

ember::Tensor to_ember(const at::Tensor& t);
at::Tensor to_torch(const ember::Tensor& t);
#endif

// "" when the results agree (same shape and dtype, allclose for floating
// results, equal otherwise), else a short description of the difference.
std::string compare(const ember::Tensor& ours, const PeerTensor& peer, double rtol, double atol);
#if EMBER_BENCH_LIBTORCH
// The same for two libtorch tensors (e.g. a ceiling's result).
std::string compare(const at::Tensor& ours, const at::Tensor& peer, double rtol, double atol);
#endif

// A peer-side tensor holding a copy of `bytes` (C order) with `like`'s shape
// and dtype: an external peer's result, read back from its file. `bytes`
// must hold like.nbytes() bytes.
PeerTensor peer_tensor_from_bytes(const void* bytes, const ember::Tensor& like);

// A folder for the files workloads hand to external peers: made on first use,
// removed with its contents when ember_bench exits.
const std::string& scratch_dir();

// benchmarks/ in the source tree, where the peer scripts live (peers/).
std::string source_dir();

// The bytes of `t` (C order) as the file `path`, for an external peer to read
// (numpy.fromfile), and its shape as a JSON list ("[3, 224, 224]").
void write_raw_tensor(const std::string& path, const ember::Tensor& t);
std::string shape_json(const ember::Tensor& t);

// The Python that runs the peer scripts: EMBER_BENCH_PYTHON, else Debian's
// /usr/bin/python3 (the one with python3-torch and python3-torchvision).
std::string peer_python();

inline constexpr int64_t kMi = int64_t(1) << 20;

}  // namespace ember_bench
