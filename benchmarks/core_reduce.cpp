// Suite core: reductions over each dim of [4096, 4096] fp32.
#include "bench.h"

namespace {

using ember_bench::Case;
using ember_bench::twin;

constexpr int64_t kN = 4096;
constexpr double kBytes = kN * kN * sizeof(float);  // one read of the input dominates

// Sums of 4096 values in a different order: float rounding differs a little.
constexpr double kRtol = 1e-4, kAtol = 1e-4;

template <class EmberOp, class PeerOp>
ember_bench::Workload reduction(const std::string& name, EmberOp eop, PeerOp pop) {
  return {"core", name, [=] {
            auto x = twin(at::randn({kN, kN}));
            return Case{[=] { return eop(x.e); }, [=] { return pop(x.t); }, kBytes, kRtol, kAtol};
          }};
}

std::vector<ember_bench::Workload> all() {
  std::vector<ember_bench::Workload> w;
  for (int64_t d : {0, 1}) {
    const std::string suffix = "_dim" + std::to_string(d) + "_4096x4096";
    w.push_back(reduction("sum" + suffix, [d](const ember::Tensor& x) { return ember::sum(x, {d}); },
                          [d](const at::Tensor& x) { return at::sum(x, {d}); }));
    w.push_back(reduction("mean" + suffix, [d](const ember::Tensor& x) { return ember::mean(x, {d}); },
                          [d](const at::Tensor& x) { return at::mean(x, {d}); }));
    w.push_back(reduction("amax" + suffix, [d](const ember::Tensor& x) { return ember::amax(x, {d}); },
                          [d](const at::Tensor& x) { return at::amax(x, {d}); }));
  }
  w.push_back(reduction("logsumexp_dim1_4096x4096",
                        [](const ember::Tensor& x) { return ember::logsumexp(x, {1}); },
                        [](const at::Tensor& x) { return at::logsumexp(x, {1}); }));
  return w;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(all());

}  // namespace
