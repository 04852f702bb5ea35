// The shape ops on CUDA tensors end to end (cat, stack, flip, roll, pad in
// every mode, repeat, repeat_interleave, tril/triu: remap_copy_slot,
// triangle_slot and the copy kernels) and dot through cuBLAS, against the
// CPU's results on the same inputs.
#include <string>
#include <vector>

#include "cuda/cuda_test.h"

namespace ember::cuda {
namespace shape_test {

using testing::CudaTest;
using testing::expect_matches_cpu;

constexpr DType kAllDTypes[] = {kBool,    kUInt8,     kInt8,    kInt16,   kInt32,     kInt64,
                                kFloat16, kBFloat16,  kFloat32, kFloat64, kComplex64, kComplex128};

Tensor sample(IntArrayRef sizes, DType dt, int64_t seed) {
  manual_seed(seed);
  Tensor v = (randn(sizes, TensorOptions(kFloat64)) * 3).round();
  if (dt == kBool) return v.gt(0);
  if (is_complex(dt)) return complex(v, randn(sizes, TensorOptions(kFloat64))).to(dt);
  return v.to(dt);
}

// f on the CPU tensors and on their CUDA copies: equal results (moves are exact).
template <class F>
void expect_same(const std::string& what, DType dt, const std::vector<Tensor>& cpu_inputs, F&& f) {
  std::vector<Tensor> gpu_inputs;
  for (const Tensor& t : cpu_inputs) gpu_inputs.push_back(t.to(kCUDA));
  expect_matches_cpu(f(gpu_inputs), f(cpu_inputs), 0, 0, what + " " + std::string(dtype_name(dt)));
}

using Inputs = std::vector<Tensor>;

TEST_P(CudaTest, CatAndStackMatchTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor a = sample({3, 4, 5}, dt, 1), b = sample({3, 2, 5}, dt, 2);
    expect_same("cat", dt, {a, b}, [](const Inputs& t) { return cat({t[0], t[1]}, 1); });
    expect_same("cat non-contiguous", dt, {a, b},
                [](const Inputs& t) { return cat({t[0].transpose(0, 2), t[1].transpose(0, 2)}, 1); });
    expect_same("cat with empty", dt, {a, sample({3, 0, 5}, dt, 3)}, [](const Inputs& t) { return cat({t[0], t[1]}, 1); });
    expect_same("stack", dt, {a, a.flip({0})}, [](const Inputs& t) { return stack({t[0], t[1]}, 2); });
    expect_same("stack 0-dim", dt, {sample({}, dt, 4), sample({}, dt, 5)},
                [](const Inputs& t) { return stack({t[0], t[1]}); });
  }
}

TEST_P(CudaTest, FlipRollRepeatMatchTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor x = sample({4, 5, 6}, dt, 6);
    expect_same("flip", dt, {x}, [](const Inputs& t) { return flip(t[0], {0, 2}); });
    expect_same("flip non-contiguous", dt, {x}, [](const Inputs& t) { return flip(t[0].transpose(1, 2), {1}); });
    expect_same("flip 0-dim", dt, {sample({}, dt, 7)}, [](const Inputs& t) { return flip(t[0], {}); });
    expect_same("roll", dt, {x}, [](const Inputs& t) { return roll(t[0], {2, -7}, {1, 2}); });
    expect_same("roll flat", dt, {x}, [](const Inputs& t) { return roll(t[0].transpose(0, 1), {13}); });
    expect_same("repeat", dt, {x}, [](const Inputs& t) { return t[0].repeat({2, 1, 1, 3}); });
    expect_same("repeat_interleave", dt, {x}, [](const Inputs& t) { return repeat_interleave(t[0], 3, 1); });
    expect_same("repeat_interleave tensor", dt, {x, tensor({1, 0, 2, 3}, TensorOptions(kInt64))},
                [](const Inputs& t) { return repeat_interleave(t[0], t[1], 0); });
    expect_same("flip empty", dt, {sample({0, 3}, dt, 8)}, [](const Inputs& t) { return flip(t[0], {1}); });
  }
}

TEST_P(CudaTest, PadMatchesTheCpuInEveryMode) {
  for (DType dt : kAllDTypes) {
    const Tensor x = sample({2, 3, 5, 6}, dt, 9);
    expect_same("pad constant", dt, {x}, [](const Inputs& t) { return pad(t[0], {1, 2, 0, 3}, "constant", 1.0); });
    expect_same("pad constant negative", dt, {x}, [](const Inputs& t) { return pad(t[0], {-1, 2, 1, -2}); });
    if (dt == kBool) continue;  // the other modes take numbers (as PyTorch's)
    for (const char* mode : {"reflect", "replicate", "circular"}) {
      expect_same(std::string("pad ") + mode, dt, {x}, [mode](const Inputs& t) { return pad(t[0], {2, 3, 1, 4}, mode); });
      expect_same(std::string("pad 1-d ") + mode, dt, {x},
                  [mode](const Inputs& t) { return pad(t[0].select(0, 1), {4, 1}, mode); });
      expect_same(std::string("pad non-contiguous ") + mode, dt, {x},
                  [mode](const Inputs& t) { return pad(t[0].transpose(2, 3), {1, 1, 2, 0}, mode); });
    }
  }
}

TEST_P(CudaTest, TrilTriuMatchTheCpu) {
  for (DType dt : kAllDTypes) {
    const Tensor x = sample({3, 5, 7}, dt, 10);
    for (int64_t diagonal : {-6, -2, 0, 1, 3, 9}) {
      expect_same("tril " + std::to_string(diagonal), dt, {x}, [diagonal](const Inputs& t) { return tril(t[0], diagonal); });
      expect_same("triu " + std::to_string(diagonal), dt, {x}, [diagonal](const Inputs& t) { return triu(t[0], diagonal); });
    }
    expect_same("tril non-contiguous", dt, {x}, [](const Inputs& t) { return tril(t[0].transpose(1, 2)); });
    expect_same("triu_ in place", dt, {x}, [](const Inputs& t) { return t[0].clone().triu_(1); });
    expect_same("tril empty", dt, {sample({0, 4}, dt, 11)}, [](const Inputs& t) { return tril(t[0]); });
  }
}

TEST_P(CudaTest, DotMatchesTheCpuThroughCublas) {
  for (DType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    manual_seed(12);
    const Tensor a = randn({1000}).to(dt), b = randn({3000}).to(dt);
    const double rtol = dt == kFloat16 ? 1e-2 : dt == kBFloat16 ? 5e-2 : dt == kFloat32 ? 1e-5 : 1e-12;
    const std::string name(dtype_name(dt));
    expect_matches_cpu(dot(a.to(kCUDA), b.narrow(0, 0, 1000).to(kCUDA)), dot(a, b.narrow(0, 0, 1000)), rtol, 1e-2,
                       "dot " + name);
    // Strided and expanded operands.
    expect_matches_cpu(dot(a.to(kCUDA), b.to(kCUDA).slice(0, 0, 3000, 3)), dot(a, b.slice(0, 0, 3000, 3)), rtol, 1e-2,
                       "dot strided " + name);
    const Tensor one = full({1}, 2, TensorOptions(dt));
    expect_matches_cpu(dot(a.to(kCUDA), one.to(kCUDA).expand({1000})), dot(a, one.expand({1000})), rtol, 1e-2,
                       "dot expanded " + name);
    expect_matches_cpu(matmul(a.to(kCUDA), b.narrow(0, 0, 1000).to(kCUDA)), matmul(a, b.narrow(0, 0, 1000)), rtol, 1e-2,
                       "matmul 1-d " + name);
    expect_matches_cpu(dot(a.narrow(0, 0, 0).to(kCUDA), a.narrow(0, 0, 0).to(kCUDA)), zeros({}, TensorOptions(dt)), 0,
                       0, "dot empty " + name);
  }
  // Integer dot has no CUDA kernel: the missing-kernel error, no CPU fallback.
  const Tensor i = arange(0, 4, TensorOptions(kInt64).device(kCUDA));
  try {
    dot(i, i);
    ADD_FAILURE() << "integer dot on CUDA did not raise";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dot"), std::string::npos) << e.what();
  }
}

}  // namespace shape_test
}  // namespace ember::cuda
