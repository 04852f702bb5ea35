// The CUDA activation, prelu, softplus and softmax kernels (activation.cu,
// softmax.cu) against the CPU's, dtype by dtype, over shapes that take each
// kernel path (warp rows, block rows, columns), strided inputs and edge values.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cuda/cuda_test.h"

// A named namespace: the suite builds as one unity file, whose anonymous
// namespaces are shared between its files.
namespace ember::cuda::activations_test {
namespace {

namespace F = ember::nn::functional;
using testing::CudaTest;
using testing::expect_matches_cpu;

constexpr DType kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

double rtol_for(DType dt) {
  switch (dt) {
    case DType::Float16: return 2e-3;
    case DType::BFloat16: return 1.6e-2;
    case DType::Float32: return 4e-6;
    default: return 1e-13;
  }
}
double atol_for(DType dt) { return dt == kFloat64 ? 1e-14 : (dt == kFloat32 ? 1e-6 : 1e-3); }

Tensor values(IntArrayRef sizes, DType dt, double lo, double hi) {
  return (rand(sizes, TensorOptions(kFloat64)) * (hi - lo) + lo).to(dt);
}

struct ActCase {
  const char* name;
  std::function<Tensor(const Tensor&)> f;
};

std::vector<ActCase> act_cases() {
  return {
      {"leaky_relu", [](const Tensor& x) { return F::leaky_relu(x, 0.1); }},
      {"elu", [](const Tensor& x) { return F::elu(x, 0.8); }},
      {"celu", [](const Tensor& x) { return F::celu(x, 1.5); }},
      {"selu", [](const Tensor& x) { return F::selu(x); }},
      {"hardtanh", [](const Tensor& x) { return F::hardtanh(x, -2, 3); }},
      {"relu6", [](const Tensor& x) { return F::relu6(x); }},
      {"hardswish", [](const Tensor& x) { return F::hardswish(x); }},
      {"hardsigmoid", [](const Tensor& x) { return F::hardsigmoid(x); }},
      {"softsign", [](const Tensor& x) { return F::softsign(x); }},
      {"softshrink", [](const Tensor& x) { return F::softshrink(x, 0.7); }},
      {"hardshrink", [](const Tensor& x) { return F::hardshrink(x, 0.7); }},
      {"tanhshrink", [](const Tensor& x) { return F::tanhshrink(x); }},
      {"threshold", [](const Tensor& x) { return F::threshold(x, 0.5, -3); }},
      {"mish", [](const Tensor& x) { return F::mish(x); }},
      {"logsigmoid", [](const Tensor& x) { return F::logsigmoid(x); }},
      {"softplus", [](const Tensor& x) { return F::softplus(x); }},
      {"softplus_beta", [](const Tensor& x) { return F::softplus(x, 2.5, 4); }},
  };
}

TEST_P(CudaTest, ActivationsMatchTheCpu) {
  manual_seed(21);
  for (const ActCase& c : act_cases())
    for (DType dt : kFloating) {
      const std::string what = std::string(c.name) + " " + std::string(dtype_name(dt));
      const Tensor x = values({41, 67}, dt, -8, 8);
      const Tensor xg = x.to(kCUDA);
      expect_matches_cpu(c.f(xg), c.f(x), rtol_for(dt), atol_for(dt), what);
      expect_matches_cpu(c.f(xg.t()), c.f(x.t()), rtol_for(dt), atol_for(dt), what + " transposed");
      expect_matches_cpu(c.f(xg.slice(1, 0, 67, 3)), c.f(x.slice(1, 0, 67, 3)), rtol_for(dt), atol_for(dt),
                         what + " strided");
      const Tensor empty_in = values({0, 3}, dt, -1, 1);
      expect_matches_cpu(c.f(empty_in.to(kCUDA)), c.f(empty_in), 0, 0, what + " empty");
    }
}

TEST_P(CudaTest, ActivationsKeepNaNAndInfinitiesAsTheCpu) {
  const Tensor x = tensor(std::vector<double>{0.0, -0.0, 3.0, -3.0, 20.5, -20.5, INFINITY, -INFINITY, NAN, 1e-300},
                          TensorOptions(kFloat64));
  for (DType dt : {kFloat64, kFloat32})
    for (const ActCase& c : act_cases()) {
      const Tensor h = x.to(dt);
      expect_matches_cpu(c.f(h.to(kCUDA)), c.f(h), rtol_for(dt), atol_for(dt),
                         std::string(c.name) + " edges " + std::string(dtype_name(dt)));
    }
}

TEST_P(CudaTest, InPlaceActivationsWriteTheirInput) {
  const Tensor x = values({1000}, kFloat32, -4, 4);
  Tensor g = x.to(kCUDA), c = x.clone();
  F::elu_(g, 0.5);
  F::elu_(c, 0.5);
  expect_matches_cpu(g, c, rtol_for(kFloat32), 1e-6, "elu_");
  F::hardswish_(g);
  F::hardswish_(c);
  expect_matches_cpu(g, c, rtol_for(kFloat32), 1e-6, "hardswish_");
}

TEST_P(CudaTest, PreluMatchesTheCpu) {
  manual_seed(22);
  for (DType dt : kFloating) {
    const Tensor x = values({4, 6, 5, 3}, dt, -3, 3);
    const Tensor w = values({6}, dt, 0, 0.5), w1 = values({1}, dt, 0, 0.5);
    const std::string what = "prelu " + std::string(dtype_name(dt));
    expect_matches_cpu(F::prelu(x.to(kCUDA), w.to(kCUDA)), F::prelu(x, w), rtol_for(dt), atol_for(dt), what);
    expect_matches_cpu(F::prelu(x.to(kCUDA), w1.to(kCUDA)), F::prelu(x, w1), rtol_for(dt), atol_for(dt), what + " one slope");
    expect_matches_cpu(F::prelu(x.to(kCUDA).transpose(2, 3), w.to(kCUDA)), F::prelu(x.transpose(2, 3), w),
                       rtol_for(dt), atol_for(dt), what + " strided");
  }
}

// Shapes around each kernel's limits: warp rows (n <= 1024), block rows, columns.
struct SoftmaxShape {
  std::vector<int64_t> sizes;
  int64_t dim;
};

TEST_P(CudaTest, SoftmaxAndLogSoftmaxMatchTheCpu) {
  manual_seed(23);
  const SoftmaxShape shapes[] = {
      {{1}, 0},          {{7}, 0},          {{5, 1}, 1},       {{9, 32}, 1},       {{3, 1024}, 1},
      {{3, 1025}, 1},    {{2, 5000}, -1},   {{1000, 33}, 1},   {{6, 7, 8}, 1},     {{6, 7, 8}, 0},
      {{4, 300, 5}, 1},  {{2, 3, 4, 5}, 2}, {{0, 5}, 1},       {{5, 0}, 0},        {{}, 0},
  };
  for (DType dt : kFloating)
    for (const SoftmaxShape& s : shapes)
      for (bool log : {false, true}) {
        const Tensor x = values(s.sizes, dt, -10, 10);
        const Tensor xg = x.to(kCUDA);
        std::string what = std::string(log ? "log_softmax " : "softmax ") + std::string(dtype_name(dt)) + " [";
        for (int64_t v : s.sizes) what += std::to_string(v) + " ";
        what += "] dim " + std::to_string(s.dim);
        const auto f = [&](const Tensor& t) { return log ? F::log_softmax(t, s.dim) : F::softmax(t, s.dim); };
        expect_matches_cpu(f(xg), f(x), rtol_for(dt), atol_for(dt), what);
        // The backward kernel, with an arbitrary incoming gradient.
        const Tensor y = f(x), yg = y.to(kCUDA);
        const Tensor g = values(s.sizes, dt, -1, 1);
        expect_matches_cpu(F::softmax_backward_data(g.to(kCUDA), yg, s.dim, log),
                           F::softmax_backward_data(g, y, s.dim, log), rtol_for(dt), 4 * atol_for(dt),
                           what + " backward");
      }
}

TEST_P(CudaTest, SoftmaxRowsWithInfinitiesAndNaNAreAsTheCpus) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor rows = tensor(std::vector<double>{1, 2, 3, -inf,  // -inf: weight 0
                                                 -inf, -inf, -inf, -inf,  // all -inf: NaN
                                                 1, inf, 2, 3,  // +inf: NaN row
                                                 1, nan, 2, 3,  // NaN: NaN row
                                                 5, 5, 5, 5,  // ties at the max
                                                 700, 0, -700, 1e-300},
                             TensorOptions(kFloat64))
                          .reshape({6, 4});
  for (DType dt : {kFloat64, kFloat32})
    for (bool log : {false, true})
      for (int64_t dim : {1, 0}) {
        const Tensor x = (dim == 1 ? rows : rows.t().contiguous()).to(dt);
        const auto f = [&](const Tensor& t) { return log ? F::log_softmax(t, dim) : F::softmax(t, dim); };
        expect_matches_cpu(f(x.to(kCUDA)), f(x), rtol_for(dt), atol_for(dt),
                           std::string(log ? "log_softmax" : "softmax") + " edges dim " + std::to_string(dim) + " " +
                               std::string(dtype_name(dt)));
      }
}

TEST_P(CudaTest, SoftmaxOfANonContiguousInputAndADtypeArgument) {
  const Tensor x = values({64, 48}, kFloat32, -5, 5);
  const Tensor xg = x.to(kCUDA);
  expect_matches_cpu(F::softmax(xg.t(), 1), F::softmax(x.t(), 1), rtol_for(kFloat32), 1e-6, "transposed");
  expect_matches_cpu(F::log_softmax(xg.to(kFloat16), 0, kFloat32), F::log_softmax(x.to(kFloat16), 0, kFloat32),
                     rtol_for(kFloat32), 1e-6, "float16 in, float32 out");
  EXPECT_THROW(F::softmax(xg.to(kInt32), 0), Error) << "integers need a dtype";
}

TEST_P(CudaTest, LargeSoftmaxRowsStayNormalized) {
  // 2^17 rows of 8192: the benchmark's shape, reduced; sums of each row are 1.
  const Tensor x = values({1 << 10, 8192}, kFloat32, -20, 20).to(kCUDA);
  const Tensor s = F::softmax(x, 1).sum({1}).cpu();
  const Tensor dev = amax((s - 1).abs());
  EXPECT_LT(dev.item<float>(), 1e-4f);
}

}  // namespace
}  // namespace ember::cuda::activations_test
