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
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember_bench {

struct Case {
  std::function<ember::Tensor()> ember;  // one run; returns its result for the check
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

inline constexpr int64_t kMi = int64_t(1) << 20;

}  // namespace ember_bench
