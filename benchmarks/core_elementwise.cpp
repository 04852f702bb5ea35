// Suite core: elementwise ops on 16M fp32 (allocating and out=), broadcasting
// and transposed inputs; sin, cos and pow by a number on 1M fp32.
#include "bench.h"

namespace {

using ember_bench::Case;
using ember_bench::kMi;
using ember_bench::twin;

constexpr int64_t kN = 16 * kMi;
constexpr double kF = sizeof(float);

// Binary op: allocating and out= workloads, read 2 + write 1 stream.
template <class EmberOp, class EmberOut, class PeerOp, class PeerOut>
std::vector<ember_bench::Workload> binary(const std::string& name, EmberOp eop, EmberOut eout,
                                          PeerOp pop, PeerOut pout) {
  return {
      {"core", name + "_16M",
       [=] {
         auto a = twin(at::randn({kN})), b = twin(at::randn({kN}));
         return Case{[=] { return eop(a.e, b.e); }, [=] { return pop(a.t, b.t); }, 3 * kN * kF};
       }},
      {"core", name + "_out_16M",
       [=] {
         auto a = twin(at::randn({kN})), b = twin(at::randn({kN}));
         auto o = twin(at::empty({kN}));
         return Case{[=]() mutable { return eout(o.e, a.e, b.e); },
                     [=]() mutable { return pout(o.t, a.t, b.t); }, 3 * kN * kF};
       }},
  };
}

// Unary op: allocating and out= workloads, read 1 + write 1 stream.
template <class EmberOp, class EmberOut, class PeerOp, class PeerOut>
std::vector<ember_bench::Workload> unary(const std::string& name, EmberOp eop, EmberOut eout,
                                         PeerOp pop, PeerOut pout) {
  return {
      {"core", name + "_16M",
       [=] {
         auto a = twin(at::randn({kN}));
         return Case{[=] { return eop(a.e); }, [=] { return pop(a.t); }, 2 * kN * kF};
       }},
      {"core", name + "_out_16M",
       [=] {
         auto a = twin(at::randn({kN}));
         auto o = twin(at::empty({kN}));
         return Case{[=]() mutable { return eout(o.e, a.e); },
                     [=]() mutable { return pout(o.t, a.t); }, 2 * kN * kF};
       }},
  };
}

// Lambdas pick one overload of an overloaded function.
#define EMBER_BENCH_BINARY(op)                                                                  \
  binary(                                                                                       \
      #op, [](const ember::Tensor& a, const ember::Tensor& b) { return ember::op(a, b); },      \
      [](ember::Tensor& o, const ember::Tensor& a, const ember::Tensor& b) -> ember::Tensor {    \
        return ember::op##_out(o, a, b);                                                        \
      },                                                                                        \
      [](const at::Tensor& a, const at::Tensor& b) { return at::op(a, b); },                    \
      [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b) -> at::Tensor {               \
        return at::op##_out(o, a, b);                                                           \
      })
#define EMBER_BENCH_UNARY(op)                                                                     \
  unary(                                                                                          \
      #op, [](const ember::Tensor& a) { return ember::op(a); },                                   \
      [](ember::Tensor& o, const ember::Tensor& a) -> ember::Tensor { return ember::op##_out(o, a); }, \
      [](const at::Tensor& a) { return at::op(a); },                                              \
      [](at::Tensor& o, const at::Tensor& a) -> at::Tensor { return at::op##_out(o, a); })

std::vector<ember_bench::Workload> layout_workloads() {
  constexpr int64_t n = 4096;
  return {
      {"core", "add_bcast_4096x4096+4096",
       [] {
         auto a = twin(at::randn({n, n})), b = twin(at::randn({n}));
         return Case{[=] { return ember::add(a.e, b.e); }, [=] { return at::add(a.t, b.t); },
                     2 * n * n * kF};
       }},
      {"core", "add_transposed_4096x4096",
       [] {
         auto a = twin(at::randn({n, n})), b = twin(at::randn({n, n}));
         return Case{[=] { return ember::add(a.e.t(), b.e); }, [=] { return at::add(a.t.t(), b.t); },
                     3 * n * n * kF};
       }},
  };
}

// sin, cos and tensor ** number on 2^20 fp32 (an audio clip's worth): the
// vectorized trig polynomial and pow's special exponents (2 as x * x, 0.5 as
// sqrt). Phases span +-30 rad as an oscillator's do; pow's base is positive.
std::vector<ember_bench::Workload> math_workloads() {
  constexpr int64_t n = kMi;
  auto one = [](std::string name, auto make_input, auto eop, auto pop) -> ember_bench::Workload {
    return {"core", name, [=] {
              auto a = twin(make_input());
              return Case{[=] { return eop(a.e); }, [=] { return pop(a.t); }, 2 * n * kF};
            }};
  };
  auto phases = [] { return at::randn({n}) * 10; };
  auto positive = [] { return at::rand({n}) + 0.01; };
  return {
      one("sin_1M", phases, [](const ember::Tensor& x) { return ember::sin(x); },
          [](const at::Tensor& x) { return at::sin(x); }),
      one("cos_1M", phases, [](const ember::Tensor& x) { return ember::cos(x); },
          [](const at::Tensor& x) { return at::cos(x); }),
      one("pow2_1M", phases, [](const ember::Tensor& x) { return ember::pow(x, 2); },
          [](const at::Tensor& x) { return at::pow(x, 2); }),
      one("pow0.5_1M", positive, [](const ember::Tensor& x) { return ember::pow(x, 0.5); },
          [](const at::Tensor& x) { return at::pow(x, 0.5); }),
  };
}

std::vector<ember_bench::Workload> all() {
  std::vector<ember_bench::Workload> w;
  for (auto part : {EMBER_BENCH_BINARY(add), EMBER_BENCH_BINARY(mul), EMBER_BENCH_UNARY(relu),
                    EMBER_BENCH_UNARY(sigmoid), EMBER_BENCH_UNARY(exp), layout_workloads(),
                    math_workloads()})
    w.insert(w.end(), part.begin(), part.end());
  return w;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(all());

}  // namespace
