// Suite core: sgemm, bmm and a GEMM + elementwise chain (compiled only when
// ember/ops/linalg.h exists).
#include <cmath>

#include "bench.h"
#include "ember/ops/linalg.h"

namespace {

using ember_bench::Case;
using ember_bench::twin;

ember_bench::Workload sgemm(int64_t n) {
  return {"core", "sgemm_" + std::to_string(n), [n] {
            auto a = twin(at::randn({n, n})), b = twin(at::randn({n, n}));
            // Entries ~ N(0, n): allow for a different summation order.
            const double atol = 1e-5 * static_cast<double>(n);
            return Case{[=] { return ember::mm(a.e, b.e); }, [=] { return at::mm(a.t, b.t); }, 0,
                        1e-4, atol};
          }};
}

// Note [Mixed GEMM + elementwise]: x <- 0.9 * tanh(x @ w + bias), 20 times.
// Catches a BLAS thread pool that keeps spinning after each GEMM and fights
// the elementwise threads (see DESIGN.md, "One thread pool"). w is scaled so
// the map contracts and both libraries stay comparable after 20 steps.
ember_bench::Workload mixed_gemm_elementwise() {
  constexpr int64_t n = 512;
  constexpr int kSteps = 20;
  return {"core", "mixed_sgemm512+eltwise_x20", [] {
            auto x0 = twin(at::randn({n, n}));
            auto w = twin(at::randn({n, n}) * (0.5 / std::sqrt(double(n))));
            auto bias = twin(at::randn({n}));
            auto ours = [=] {
              ember::Tensor x = x0.e;
              for (int i = 0; i < kSteps; ++i)
                x = ember::mul(ember::tanh(ember::add(ember::mm(x, w.e), bias.e)), 0.9);
              return x;
            };
            auto peer = [=] {
              at::Tensor x = x0.t;
              for (int i = 0; i < kSteps; ++i) x = at::mul(at::tanh(at::add(at::mm(x, w.t), bias.t)), 0.9);
              return x;
            };
            return Case{ours, peer, 0, 1e-4, 1e-4};
          }};
}

ember_bench::Workload bmm() {
  constexpr int64_t b = 64, n = 128;
  return {"core", "bmm_64x128x128", [] {
            auto x = twin(at::randn({b, n, n})), y = twin(at::randn({b, n, n}));
            return Case{[=] { return ember::bmm(x.e, y.e); }, [=] { return at::bmm(x.t, y.t); }, 0,
                        1e-4, 1e-3};
          }};
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(
    {sgemm(256), sgemm(1024), sgemm(2048), bmm(), mixed_gemm_elementwise()});

}  // namespace
