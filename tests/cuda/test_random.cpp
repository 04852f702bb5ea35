// Random ops on CUDA against the CPU: one seed, the same numbers (Note [Random
// numbers equal on CPU and CUDA] in cuda/src/kernels/random.cu). Uniform and
// integer draws, Bernoulli, geometric, randperm and multinomial are compared
// exactly; normal and exponential draws within kLibmUlps ulp of the computing
// type (the last-ulp differences of CUDA's log/sin/cos and the host's libm),
// plus one rounding for float16/bfloat16 outputs.
#include <cmath>
#include <limits>
#include <vector>

#include <ember/nn/nn.h>

#include "cuda/cuda_test.h"
#include "kernels/philox.h"

namespace ember::cuda {
namespace {

using testing::CudaTest;
using testing::expect_matches_cpu;

// The bound docs/cuda.md states for transcendental samplers, in ulp of float / double.
constexpr double kLibmUlps = 8;
constexpr double kFloatRtol = kLibmUlps * 0x1.0p-23;   // ~9.5e-7
constexpr double kDoubleRtol = kLibmUlps * 0x1.0p-52;  // ~1.8e-15

// The relative tolerance of a transcendental sampler's output in dtype: the
// computing type's bound, or one rounding step of the 16-bit output.
double transcendental_rtol(DType dtype) {
  switch (dtype) {
    case DType::Float64: return kDoubleRtol;
    case DType::Float16: return 0x1.0p-10 + kFloatRtol;
    case DType::BFloat16: return 0x1.0p-7 + kFloatRtol;
    default: return kFloatRtol;
  }
}
double transcendental_atol(DType dtype) { return dtype == DType::Float16 ? 0x1.0p-24 : 1e-30; }

// Runs fill(t) on a fresh CPU tensor and on a fresh CUDA tensor from the same
// seed, and checks that the generator's offset moved the same on both.
template <class Fill>
std::pair<Tensor, Tensor> draw_both(IntArrayRef shape, DType dtype, uint64_t seed, const Fill& fill) {
  manual_seed(seed);
  Tensor cpu = empty(shape, TensorOptions(dtype));
  fill(cpu);
  const uint64_t cpu_offset = default_generator().offset();
  manual_seed(seed);
  Tensor gpu = empty(shape, TensorOptions(dtype).device(kCUDA));
  fill(gpu);
  EXPECT_EQ(default_generator().offset(), cpu_offset) << "the generator advanced differently on CUDA";
  return {gpu, cpu};
}

const std::vector<std::vector<int64_t>> kShapes = {{0}, {1}, {3}, {5, 7}, {1000}, {(1 << 20) + 3}};

TEST(CudaRandomHost, PhiloxIsConstexprAndMatchesRandom123) {
  // Random123's known answer for Philox4x32-10, counter 0 and key 0; computed
  // at compile time, which is what lets the CUDA kernels call it.
  constexpr philox::Block block = philox::philox4x32_10(0, 0);
  static_assert(block[0] == 0x6627e8d5u && block[1] == 0xe169c58du && block[2] == 0xbc57ac4cu &&
                block[3] == 0x9b00dbd8u);
  constexpr float u = philox::uniform_float(0xffffffffu, 24);
  static_assert(u < 1.0f);
  SUCCEED();
}

TEST_P(CudaTest, UniformIsBitIdenticalToTheCpu) {
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    for (const auto& shape : kShapes) {
      auto [gpu, cpu] = draw_both(shape, dtype, 42, [](Tensor& t) { t.uniform_(); });
      expect_matches_cpu(gpu, cpu, 0, 0, "rand " + std::string(dtype_name(dtype)));
      auto [gpu2, cpu2] = draw_both(shape, dtype, 7, [](Tensor& t) { t.uniform_(-2.5, 3.25); });
      expect_matches_cpu(gpu2, cpu2, 0, 0, "uniform_(-2.5, 3.25) " + std::string(dtype_name(dtype)));
    }
  }
}

TEST_P(CudaTest, NormalMatchesTheCpuWithinTheLibmBound) {
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    for (const auto& shape : kShapes) {
      auto [gpu, cpu] = draw_both(shape, dtype, 1234, [](Tensor& t) { t.normal_(); });
      expect_matches_cpu(gpu, cpu, transcendental_rtol(dtype), transcendental_atol(dtype),
                         "randn " + std::string(dtype_name(dtype)));
    }
  }
  // A mean and std: the fma then adds at most one rounding of the mean's size.
  auto [gpu, cpu] = draw_both({4096}, kFloat32, 5, [](Tensor& t) { t.normal_(1.5, 2.0); });
  expect_matches_cpu(gpu, cpu, kFloatRtol, 1e-5, "normal_(1.5, 2)");
  // The factories.
  manual_seed(9);
  const Tensor c = randn({333, 3});
  manual_seed(9);
  const Tensor g = randn({333, 3}, TensorOptions().device(kCUDA));
  expect_matches_cpu(g, c, kFloatRtol, 1e-30, "randn factory");
}

TEST_P(CudaTest, ExponentialMatchesTheCpuWithinTheLibmBound) {
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    auto [gpu, cpu] = draw_both({100003}, dtype, 77, [](Tensor& t) { t.exponential_(1.5); });
    expect_matches_cpu(gpu, cpu, transcendental_rtol(dtype), transcendental_atol(dtype),
                       "exponential_ " + std::string(dtype_name(dtype)));
  }
}

TEST_P(CudaTest, IntegerDrawsAreIdentical) {
  for (DType dtype : {kInt64, kInt32, kInt16, kInt8, kUInt8, kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const int64_t from = dtype == kUInt8 ? 3 : -5, to = dtype == kUInt8 ? 250 : 100;
    auto [gpu, cpu] = draw_both({10007}, dtype, 3, [&](Tensor& t) { t.random_(from, to); });
    expect_matches_cpu(gpu, cpu, 0, 0, "random_(from, to) " + std::string(dtype_name(dtype)));
    auto [gpu2, cpu2] = draw_both({4099}, dtype, 11, [](Tensor& t) { t.random_(); });
    expect_matches_cpu(gpu2, cpu2, 0, 0, "random_() " + std::string(dtype_name(dtype)));
  }
  auto [gpu, cpu] = draw_both({999}, kBool, 4, [](Tensor& t) { t.random_(0, 2); });
  expect_matches_cpu(gpu, cpu, 0, 0, "random_ bool");
  // The full int64 range (64-bit modulo).
  auto [gpu2, cpu2] = draw_both({2048}, kInt64, 8, [](Tensor& t) {
    t.random_(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  });
  expect_matches_cpu(gpu2, cpu2, 0, 0, "random_ int64 range");
  manual_seed(21);
  const Tensor c = randint(-3, 17, {5, 41});
  manual_seed(21);
  const Tensor g = randint(-3, 17, {5, 41}, TensorOptions().device(kCUDA));
  expect_matches_cpu(g, c, 0, 0, "randint");
}

TEST_P(CudaTest, BernoulliAndGeometricAreIdentical) {
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kInt64, kUInt8, kBool}) {
    auto [gpu, cpu] = draw_both({30011}, dtype, 12, [](Tensor& t) { t.bernoulli_(0.3); });
    expect_matches_cpu(gpu, cpu, 0, 0, "bernoulli_(0.3) " + std::string(dtype_name(dtype)));
  }
  // Tensor probabilities: on the GPU, and on the CPU meeting a CUDA output.
  manual_seed(0);
  const Tensor p = rand({64, 33}, TensorOptions(kFloat64));
  for (const Tensor& pg : {p.to(kCUDA), p}) {
    auto [gpu, cpu] = draw_both({64, 33}, kFloat32, 13, [&](Tensor& t) { t.bernoulli_(t.is_cuda() ? pg : p); });
    expect_matches_cpu(gpu, cpu, 0, 0, "bernoulli_(p tensor)");
  }
  for (DType dtype : {kFloat32, kFloat64, kInt64, kInt32}) {
    auto [gpu, cpu] = draw_both({20001}, dtype, 14, [](Tensor& t) { t.geometric_(0.3); });
    expect_matches_cpu(gpu, cpu, 0, 0, "geometric_(0.3) " + std::string(dtype_name(dtype)));
  }
}

TEST_P(CudaTest, NonContiguousAndComplexOutputsFollowTheCpu) {
  // Values in logical order whatever the strides (the op fills a contiguous buffer and copies).
  manual_seed(5);
  Tensor c = empty({40, 30}).t();
  c.uniform_();
  manual_seed(5);
  Tensor g = empty({40, 30}, TensorOptions().device(kCUDA)).t();
  g.uniform_();
  expect_matches_cpu(g, c, 0, 0, "uniform_ into a transposed view");
  // Complex: real and imaginary parts from a real [..., 2] draw.
  manual_seed(6);
  const Tensor cc = randn({17, 5}, TensorOptions(kComplex64));
  manual_seed(6);
  const Tensor gc = randn({17, 5}, TensorOptions(kComplex64).device(kCUDA));
  expect_matches_cpu(gc, cc, kFloatRtol, 1e-30, "randn complex64");
}

TEST_P(CudaTest, SequencesOfOpsStayInStep) {
  // Interleaved ops of different sizes and kinds, on an explicit generator.
  auto run = [](Device device) {
    Generator gen(2024);
    const TensorOptions o = TensorOptions().device(device);
    std::vector<Tensor> out;
    out.push_back(rand({7}, o, &gen));
    out.push_back(randint(0, 1000, {13}, o, &gen));
    out.push_back(rand({5}, o.dtype(kFloat64), &gen));
    out.push_back(randperm(9, o, &gen));
    out.push_back(rand({3}, o, &gen));
    return std::make_pair(out, gen.offset());
  };
  const auto [cpu, cpu_offset] = run(kCPU);
  const auto [gpu, gpu_offset] = run(kCUDA);
  EXPECT_EQ(gpu_offset, cpu_offset);
  for (size_t i = 0; i < cpu.size(); ++i) expect_matches_cpu(gpu[i], cpu[i], 0, 0, "op " + std::to_string(i));
}

TEST_P(CudaTest, DropoutDrawsTheCpuMask) {
  manual_seed(0);
  const Tensor x = randn({64, 100});
  manual_seed(31);
  const Tensor c = nn::functional::dropout(x, 0.4, true);
  manual_seed(31);
  const Tensor g = nn::functional::dropout(x.to(kCUDA), 0.4, true);
  expect_matches_cpu(g, c, 1e-6, 0, "dropout");
  expect_matches_cpu(g == 0, c == 0, 0, 0, "dropout mask");
}

TEST_P(CudaTest, RandpermIsTheCpuPermutation) {
  for (int64_t n : {0, 1, 2, 10, 1000, 100003}) {
    manual_seed(99);
    const Tensor c = randperm(n);
    manual_seed(99);
    const Tensor g = randperm(n, TensorOptions().device(kCUDA));
    expect_matches_cpu(g, c, 0, 0, "randperm(" + std::to_string(n) + ")");
  }
  manual_seed(3);
  const Tensor c = randperm(300, TensorOptions(kInt32));
  manual_seed(3);
  const Tensor g = randperm(300, TensorOptions(kInt32).device(kCUDA));
  expect_matches_cpu(g, c, 0, 0, "randperm int32");
}

TEST_P(CudaTest, MultinomialIsIdentical) {
  manual_seed(1);
  Tensor probs = rand({5, 50}, TensorOptions(kFloat64));
  probs.select(0, 1).narrow(0, 10, 20).zero_();  // zero-probability categories
  probs.select(1, 49).zero_();                    // trailing zeros: last_nonzero
  for (bool replacement : {true, false}) {
    for (int64_t samples : {1, 7, 25}) {  // row 1 has 29 non-zero categories
      manual_seed(17);
      const Tensor c = multinomial(probs, samples, replacement);
      manual_seed(17);
      const Tensor g = multinomial(probs.to(kCUDA), samples, replacement);
      expect_matches_cpu(g, c, 0, 0,
                         "multinomial " + std::to_string(samples) + (replacement ? " with" : " without") +
                             " replacement");
    }
  }
  // 1-d float32 probabilities, many samples.
  manual_seed(2);
  const Tensor p1 = rand({1000});
  manual_seed(18);
  const Tensor c = multinomial(p1, 5000, true);
  manual_seed(18);
  const Tensor g = multinomial(p1.to(kCUDA), 5000, true);
  expect_matches_cpu(g, c, 0, 0, "multinomial 1-d");
}

TEST_P(CudaTest, RandomArgumentErrorsAsTheCpu) {
  Tensor i = empty({4}, TensorOptions(kInt64).device(kCUDA));
  EXPECT_THROW(i.uniform_(), Error);
  EXPECT_THROW(i.random_(5, 2), Error);
  Tensor b = empty({4}, TensorOptions(kBool).device(kCUDA));
  EXPECT_THROW(b.geometric_(0.5), Error);
  Tensor f = empty({4}, TensorOptions().device(kCUDA));
  EXPECT_THROW(f.bernoulli_(1.5), Error);
  EXPECT_THROW(multinomial(zeros({3}, TensorOptions().device(kCUDA)), 1), Error);
}

}  // namespace
}  // namespace ember::cuda
