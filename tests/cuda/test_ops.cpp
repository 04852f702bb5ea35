// The CUDA elementwise and reduction kernels against the CPU's, op by op and
// dtype by dtype, on contiguous, strided and broadcast operands.
#include <functional>

#include "cuda/cuda_test.h"
#include "kernels/slots/elementwise_kernels.h"
#include "kernels/slots/reduce_kernels.h"

namespace ember::cuda {
namespace {

using testing::CudaTest;
using testing::expect_matches_cpu;

constexpr DType kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};
constexpr DType kIntegral[] = {kUInt8, kInt8, kInt16, kInt32, kInt64};

// Tolerances for results computed in `dt` (the GPU's libm differs from the
// CPU's by a few ulp; 16-bit results may round differently by one unit).
double rtol_for(DType dt) {
  switch (dt) {
    case DType::Float16: return 2e-3;
    case DType::BFloat16: return 1.6e-2;
    case DType::Float32: return 2e-6;
    default: return 1e-13;
  }
}

// Values in [lo, hi] as dt (integral dtypes: integers of that range).
Tensor values(IntArrayRef sizes, DType dt, double lo, double hi) {
  Tensor u = rand(sizes, TensorOptions(kFloat64)) * (hi - lo) + lo;
  if (dt == kBool) return u.gt((lo + hi) / 2);
  if (!is_floating_point(dt)) return u.round().to(dt);
  return u.to(dt);
}

struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> f;
  double lo, hi;  // input range
  bool integral;  // also for integer inputs
};

TEST_P(CudaTest, UnaryOpsMatchTheCpu) {
  const UnaryCase cases[] = {
      {"abs", [](const Tensor& x) { return abs(x); }, -5, 5, true},
      {"neg", [](const Tensor& x) { return neg(x); }, -5, 5, true},
      {"sign", [](const Tensor& x) { return sign(x); }, -5, 5, true},
      {"square", [](const Tensor& x) { return square(x); }, -5, 5, true},
      {"relu", [](const Tensor& x) { return relu(x); }, -5, 5, true},
      {"floor", [](const Tensor& x) { return floor(x); }, -5, 5, true},
      {"round", [](const Tensor& x) { return round(x); }, -5, 5, true},
      {"exp", [](const Tensor& x) { return exp(x); }, -10, 10, false},
      {"expm1", [](const Tensor& x) { return expm1(x); }, -1, 1, false},
      {"log", [](const Tensor& x) { return log(x); }, 0.01, 100, false},
      {"log1p", [](const Tensor& x) { return log1p(x); }, -0.5, 10, false},
      {"sqrt", [](const Tensor& x) { return sqrt(x); }, 0, 100, false},
      {"rsqrt", [](const Tensor& x) { return rsqrt(x); }, 0.01, 100, false},
      {"sin", [](const Tensor& x) { return sin(x); }, -10, 10, false},
      {"cos", [](const Tensor& x) { return cos(x); }, -10, 10, false},
      {"tanh", [](const Tensor& x) { return tanh(x); }, -5, 5, false},
      {"atan", [](const Tensor& x) { return atan(x); }, -5, 5, false},
      {"sigmoid", [](const Tensor& x) { return sigmoid(x); }, -30, 30, false},
      {"silu", [](const Tensor& x) { return silu(x); }, -10, 10, false},
      {"erf", [](const Tensor& x) { return erf(x); }, -3, 3, false},
      {"gelu", [](const Tensor& x) { return gelu(x); }, -5, 5, false},
      {"gelu_tanh", [](const Tensor& x) { return gelu(x, "tanh"); }, -5, 5, false},
      {"reciprocal", [](const Tensor& x) { return reciprocal(x); }, 0.1, 10, false},
      {"frac", [](const Tensor& x) { return frac(x); }, -5, 5, false},
      {"isnan", [](const Tensor& x) { return isnan(x.log()); }, -1, 1, false},
      {"signbit", [](const Tensor& x) { return signbit(x); }, -1, 1, true},
      {"logical_not", [](const Tensor& x) { return logical_not(x); }, -1, 1, true},
  };
  for (const UnaryCase& c : cases) {
    for (DType dt : kFloating) {
      const Tensor x = values({37, 29}, dt, c.lo, c.hi);
      const Tensor xg = x.to(kCUDA);
      expect_matches_cpu(c.f(xg), c.f(x), rtol_for(dt), 1e-6, std::string(c.name) + " " + std::string(dtype_name(dt)));
      // Strided: a transposed view.
      expect_matches_cpu(c.f(xg.t()), c.f(x.t()), rtol_for(dt), 1e-6,
                         std::string(c.name) + " transposed " + std::string(dtype_name(dt)));
    }
    if (!c.integral) continue;
    for (DType dt : kIntegral) {
      const double lo = dt == kUInt8 ? 0 : c.lo;
      const Tensor x = values({100}, dt, lo, c.hi);
      expect_matches_cpu(c.f(x.to(kCUDA)), c.f(x), 0, 0, std::string(c.name) + " " + std::string(dtype_name(dt)));
    }
  }
}

TEST_P(CudaTest, UnaryOpsKeepNaNAndInfinitiesAsTheCpu) {
  const Tensor x = tensor(std::vector<double>{0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 1e-310, 2.5, -2.5}, TensorOptions(kFloat64));
  for (DType dt : {kFloat64, kFloat32}) {
    const Tensor h = x.to(dt), g = h.to(kCUDA);
    for (auto [name, f] : std::initializer_list<std::pair<const char*, Tensor (*)(const Tensor&)>>{
             {"abs", abs}, {"sign", sign}, {"exp", exp}, {"log", log}, {"sqrt", sqrt}, {"round", round},
             {"isinf", isinf}, {"isfinite", isfinite}, {"isposinf", isposinf}, {"signbit", signbit}, {"angle", angle}})
      expect_matches_cpu(f(g), f(h), rtol_for(dt), 0, std::string(name) + " edges " + std::string(dtype_name(dt)));
  }
}

struct BinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> f;
  bool integral;
};

TEST_P(CudaTest, BinaryOpsMatchTheCpu) {
  const BinaryCase cases[] = {
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }, true},
      {"add alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 3); }, true},
      {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }, true},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }, true},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }, false},
      {"floor_divide", [](const Tensor& a, const Tensor& b) { return div(a, b, "floor"); }, false},
      {"remainder", [](const Tensor& a, const Tensor& b) { return remainder(a, b); }, false},
      {"fmod", [](const Tensor& a, const Tensor& b) { return fmod(a, b); }, false},
      {"pow", [](const Tensor& a, const Tensor& b) { return pow(a.abs(), b); }, false},
      {"atan2", [](const Tensor& a, const Tensor& b) { return atan2(a, b); }, false},
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, true},
      {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, true},
      {"hypot", [](const Tensor& a, const Tensor& b) { return hypot(a, b); }, false},
      {"copysign", [](const Tensor& a, const Tensor& b) { return copysign(a, b); }, false},
      {"xlogy", [](const Tensor& a, const Tensor& b) { return xlogy(a, b.abs()); }, false},
      {"eq", [](const Tensor& a, const Tensor& b) { return a.eq(b); }, true},
      {"lt", [](const Tensor& a, const Tensor& b) { return a.lt(b); }, true},
      {"ge", [](const Tensor& a, const Tensor& b) { return a.ge(b); }, true},
      {"logical_xor", [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); }, true},
      {"bitwise_and", [](const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }, true},
      {"bitwise_xor", [](const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }, true},
  };
  for (const BinaryCase& c : cases) {
    for (DType dt : kFloating) {
      if (std::string(c.name).rfind("bitwise", 0) == 0) continue;
      const Tensor a = values({33, 65}, dt, -4, 4), b = values({33, 65}, dt, 0.25, 4) * values({33, 65}, dt, -1, 1).sign();
      const Tensor ag = a.to(kCUDA), bg = b.to(kCUDA);
      const std::string what = std::string(c.name) + " " + std::string(dtype_name(dt));
      expect_matches_cpu(c.f(ag, bg), c.f(a, b), rtol_for(dt), 1e-6, what);
      // Broadcasting a row and a column, and a strided operand.
      expect_matches_cpu(c.f(ag.slice(1, 0, 1), bg.slice(0, 0, 1)), c.f(a.slice(1, 0, 1), b.slice(0, 0, 1)),
                         rtol_for(dt), 1e-6, what + " broadcast");
      expect_matches_cpu(c.f(ag.t(), bg.t().contiguous()), c.f(a.t(), b.t().contiguous()), rtol_for(dt), 1e-6,
                         what + " strided");
    }
    if (!c.integral) continue;
    for (DType dt : kIntegral) {
      const double lo = dt == kUInt8 ? 0 : -20;
      const Tensor a = values({300}, dt, lo, 20), b = values({300}, dt, lo, 20);
      expect_matches_cpu(c.f(a.to(kCUDA), b.to(kCUDA)), c.f(a, b), 0, 0,
                         std::string(c.name) + " " + std::string(dtype_name(dt)));
    }
  }
}

TEST_P(CudaTest, TypePromotionAndCpuScalars) {
  const Tensor i = values({50}, kInt32, -10, 10), f = values({50}, kFloat32, -1, 1), h = values({50}, kFloat16, -1, 1);
  const Tensor ig = i.to(kCUDA), fg = f.to(kCUDA), hg = h.to(kCUDA);
  expect_matches_cpu(ig + fg, i + f, 1e-6, 0, "int32 + float32");
  expect_matches_cpu(hg * fg, h * f, 1e-6, 0, "float16 * float32");
  expect_matches_cpu(ig / 4, i / 4, 1e-6, 0, "int32 / number (true division)");
  expect_matches_cpu(hg + 2.5, h + 2.5, 1e-3, 0, "float16 + number stays float16");
  // A 0-dim CPU tensor meets a CUDA tensor, as PyTorch allows.
  const Tensor s = scalar_tensor(3.0, TensorOptions(kFloat64));
  expect_matches_cpu(fg * s, f * s, 1e-6, 0, "CUDA float32 * CPU 0-dim float64");
  expect_matches_cpu(ig.lt(scalar_tensor(2)), i.lt(scalar_tensor(2)), 0, 0, "comparison with a CPU 0-dim tensor");
  // A CPU tensor with elements does not.
  EXPECT_THROW(fg + f, Error);
}

TEST_P(CudaTest, IntegerDivisionIsRefusedWithItsName) {
  const Tensor a = values({10}, kInt64, 1, 9).to(kCUDA);
  try {
    (void)div(a, a, "floor");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("int64"), std::string::npos) << e.what();
  }
  // True division of integers computes in float, on the GPU.
  expect_matches_cpu(a / a, ones({10}, TensorOptions(kFloat32)), 0, 0, "int64 / int64");
}

TEST_P(CudaTest, TernaryOpsMatchTheCpu) {
  for (DType dt : kFloating) {
    const Tensor x = values({40, 30}, dt, -3, 3), lo = values({40, 30}, dt, -2, 0), hi = values({1, 30}, dt, 0, 2);
    const Tensor c = values({40, 1}, kBool, 0, 1);
    const Tensor xg = x.to(kCUDA), log_ = lo.to(kCUDA), hig = hi.to(kCUDA), cg = c.to(kCUDA);
    const std::string d(dtype_name(dt));
    const double rt = rtol_for(dt);
    expect_matches_cpu(where(cg, xg, log_), where(c, x, lo), 0, 0, "where " + d);
    expect_matches_cpu(clamp(xg, log_, hig), clamp(x, lo, hi), 0, 0, "clamp tensors " + d);
    expect_matches_cpu(clamp(xg, -1, 1), clamp(x, -1, 1), 0, 0, "clamp numbers " + d);
    expect_matches_cpu(clamp(xg, std::nullopt, 0.5), clamp(x, std::nullopt, 0.5), 0, 0, "clamp max " + d);
    expect_matches_cpu(lerp(xg, log_, hig), lerp(x, lo, hi), rt, 1e-6, "lerp " + d);
    expect_matches_cpu(addcmul(xg, log_, hig, 0.5), addcmul(x, lo, hi, 0.5), rt, 1e-6, "addcmul " + d);
    expect_matches_cpu(addcdiv(xg, log_, hig + 3, 2), addcdiv(x, lo, hi + 3, 2), rt, 1e-6, "addcdiv " + d);
    for (double e : {0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5, -0.5, 1.7})
      expect_matches_cpu(pow(xg.abs() + 0.5, e), pow(x.abs() + 0.5, e), rt, 1e-6, "pow number " + d);
  }
  for (DType dt : kIntegral) {
    const Tensor x = values({200}, dt, dt == kUInt8 ? 0 : -9, 9);
    const Tensor xg = x.to(kCUDA);
    expect_matches_cpu(clamp(xg, 2, 5), clamp(x, 2, 5), 0, 0, "clamp integral");
    expect_matches_cpu(pow(xg, 2), pow(x, 2), 0, 0, "pow 2 integral");
    expect_matches_cpu(pow(xg, 3), pow(x, 3), 0, 0, "pow 3 integral");
    expect_matches_cpu(where(xg.gt(3), xg, xg * 2), where(x.gt(3), x, x * 2), 0, 0, "where integral");
  }
  // NaN in any clamp operand gives NaN, as on the CPU.
  const Tensor n = tensor(std::vector<float>{NAN, 1.0f, 5.0f});
  expect_matches_cpu(clamp(n.to(kCUDA), 0, 2), clamp(n, 0, 2), 0, 0, "clamp NaN");
  expect_matches_cpu(clamp(n.to(kCUDA), n.to(kCUDA), n.to(kCUDA)), clamp(n, n, n), 0, 0, "clamp NaN bounds");
}

TEST_P(CudaTest, ReductionsMatchTheCpu) {
  const std::vector<std::vector<int64_t>> shapes = {{1000}, {7, 13}, {3, 4000}, {300, 5}, {6, 5, 4, 3}, {1, 1}};
  for (DType dt : kFloating) {
    const double rt = dt == kFloat64 ? 1e-12 : dt == kFloat32 ? 1e-5 : rtol_for(dt) * 4;
    for (const auto& shape : shapes) {
      const Tensor x = values(shape, dt, -2, 2);
      const Tensor xg = x.to(kCUDA);
      const std::string d = std::string(dtype_name(dt)) + " " + std::to_string(shape.size()) + "-d " +
                            std::to_string(x.numel());
      expect_matches_cpu(sum(xg), sum(x), rt, 1e-4, "sum " + d);
      expect_matches_cpu(mean(xg), mean(x), rt, 1e-4, "mean " + d);
      expect_matches_cpu(amax(xg), amax(x), 0, 0, "amax " + d);
      expect_matches_cpu(amin(xg), amin(x), 0, 0, "amin " + d);
      expect_matches_cpu(norm(xg), norm(x), rt, 1e-4, "norm " + d);
      expect_matches_cpu(norm(xg, 1), norm(x, 1), rt, 1e-4, "norm 1 " + d);
      expect_matches_cpu(norm(xg, 3), norm(x, 3), rt * 4, 1e-4, "norm 3 " + d);
      expect_matches_cpu(norm(xg, INFINITY), norm(x, INFINITY), 0, 0, "norm inf " + d);
      expect_matches_cpu(argmax(xg), argmax(x), 0, 0, "argmax " + d);
      expect_matches_cpu(argmin(xg), argmin(x), 0, 0, "argmin " + d);
      expect_matches_cpu(any(xg.gt(1.9)), any(x.gt(1.9)), 0, 0, "any " + d);
      expect_matches_cpu(all(xg.gt(-1.9)), all(x.gt(-1.9)), 0, 0, "all " + d);
      expect_matches_cpu(count_nonzero(xg.gt(0)), count_nonzero(x.gt(0)), 0, 0, "count_nonzero " + d);
      if (x.numel() > 1) {
        expect_matches_cpu(var(xg), var(x), rt * 10, 1e-4, "var " + d);
        expect_matches_cpu(ember::std(xg, {}, 0), ember::std(x, {}, 0), rt * 10, 1e-4, "std " + d);
      }
      for (int64_t dim = 0; dim < x.dim(); ++dim) {
        const std::string dd = d + " dim " + std::to_string(dim);
        expect_matches_cpu(sum(xg, {dim}), sum(x, {dim}), rt, 1e-4, "sum " + dd);
        expect_matches_cpu(sum(xg, {dim}, true), sum(x, {dim}, true), rt, 1e-4, "sum keepdim " + dd);
        expect_matches_cpu(mean(xg, {dim}), mean(x, {dim}), rt, 1e-4, "mean " + dd);
        expect_matches_cpu(prod(xg, dim), prod(x, dim), rt * 10, 1e-4, "prod " + dd);
        expect_matches_cpu(amax(xg, {dim}), amax(x, {dim}), 0, 0, "amax " + dd);
        expect_matches_cpu(argmax(xg, dim), argmax(x, dim), 0, 0, "argmax " + dd);
        expect_matches_cpu(argmin(xg, dim, true), argmin(x, dim, true), 0, 0, "argmin keepdim " + dd);
        if (x.size(dim) > 1) expect_matches_cpu(var(xg, {dim}), var(x, {dim}), rt * 10, 1e-4, "var " + dd);
        auto [v, i] = max(xg, dim);
        auto [vc, ic] = max(x, dim);
        expect_matches_cpu(v, vc, 0, 0, "max values " + dd);
        expect_matches_cpu(i, ic, 0, 0, "max indices " + dd);
      }
      if (x.dim() >= 2) expect_matches_cpu(sum(xg, {0, x.dim() - 1}), sum(x, {0, x.dim() - 1}), rt, 1e-4, "sum two dims " + d);
      // Leading dims of a contiguous input: reduced in place, a thread per output column.
      if (x.dim() >= 3) {
        expect_matches_cpu(sum(xg, {0, 1}), sum(x, {0, 1}), rt, 1e-4, "sum leading dims " + d);
        expect_matches_cpu(argmin(xg.flatten(0, 1), 0), argmin(x.flatten(0, 1), 0), 0, 0, "argmin leading dims " + d);
      }
    }
  }
}

TEST_P(CudaTest, IntegralReductions) {
  for (DType dt : kIntegral) {
    const Tensor x = values({17, 300}, dt, dt == kUInt8 ? 0 : -50, 50);
    const Tensor xg = x.to(kCUDA);
    const std::string d(dtype_name(dt));
    expect_matches_cpu(sum(xg), sum(x), 0, 0, "sum (into int64) " + d);
    expect_matches_cpu(sum(xg, {1}), sum(x, {1}), 0, 0, "sum dim " + d);
    expect_matches_cpu(sum(xg, {0}, false, kFloat64), sum(x, {0}, false, kFloat64), 1e-12, 0, "sum dtype= " + d);
    expect_matches_cpu(mean(xg, {1}, false, kFloat32), mean(x, {1}, false, kFloat32), 1e-6, 0, "mean dtype= " + d);
    expect_matches_cpu(amax(xg, {1}), amax(x, {1}), 0, 0, "amax " + d);
    expect_matches_cpu(amin(xg), amin(x), 0, 0, "amin " + d);
    expect_matches_cpu(argmax(xg, 1), argmax(x, 1), 0, 0, "argmax " + d);
    expect_matches_cpu(any(xg, 1), any(x, 1), 0, 0, "any " + d);
    expect_matches_cpu(count_nonzero(xg, {0}), count_nonzero(x, {0}), 0, 0, "count_nonzero " + d);
  }
  const Tensor b = values({1000}, kBool, 0, 1);
  expect_matches_cpu(sum(b.to(kCUDA)), sum(b), 0, 0, "sum of bool");
  expect_matches_cpu(all(b.to(kCUDA)), all(b), 0, 0, "all of bool");
}

TEST_P(CudaTest, ColumnReductionsSplitLongColumns) {
  // 100000 rows of 3 columns: the column path splits the rows into chunks.
  const Tensor x = randn({100000, 3}, TensorOptions(kFloat64));
  const Tensor xg = x.to(kCUDA);
  expect_matches_cpu(sum(xg, {0}), sum(x, {0}), 1e-12, 1e-9, "sum");
  expect_matches_cpu(var(xg, {0}), var(x, {0}), 1e-12, 1e-9, "var");
  expect_matches_cpu(argmax(xg, 0), argmax(x, 0), 0, 0, "argmax");
  expect_matches_cpu(amin(xg, {0}, true), amin(x, {0}, true), 0, 0, "amin keepdim");
}

TEST_P(CudaTest, HalfSumsAccumulateInFloat) {
  // 4096 ones sum to 4096 exactly (a float16 accumulator stops at 2048).
  const Tensor x = ones({4096}, TensorOptions(kFloat16).device(kCUDA));
  EXPECT_EQ(sum(x).item<float>(), 4096.0f);
  EXPECT_EQ(mean(x).item<float>(), 1.0f);
  const Tensor y = ones({4096}, TensorOptions(kBFloat16).device(kCUDA)) * 0.5;
  EXPECT_EQ(sum(y).item<float>(), 2048.0f);
}

TEST_P(CudaTest, ReductionsAreDeterministicAndFindTheFirstExtreme) {
  const Tensor x = randn({1 << 22}, TensorOptions(kFloat32)).to(kCUDA);
  const float first = sum(x).item<float>();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(sum(x).item<float>(), first);
  // Ties and NaN: the first index, as the CPU.
  const Tensor t = tensor(std::vector<float>{1.0f, 3.0f, 3.0f, NAN, 2.0f, NAN});
  EXPECT_EQ(argmax(t.to(kCUDA)).item<int64_t>(), 3);
  EXPECT_EQ(argmax(t.slice(0, 0, 3).to(kCUDA)).item<int64_t>(), 1);
  EXPECT_EQ(argmin(tensor({2.0f, 1.0f, 1.0f}).to(kCUDA)).item<int64_t>(), 1);
  const Tensor big = zeros({1 << 20}, TensorOptions(kFloat32));
  big.slice(0, 700000, 700001).fill_(5);
  big.slice(0, 900000, 900001).fill_(5);
  EXPECT_EQ(argmax(big.to(kCUDA)).item<int64_t>(), 700000);
  EXPECT_TRUE(std::isnan(amax(t.to(kCUDA)).item<float>()));
}

TEST_P(CudaTest, MissingKernelsNameWhatCudaLacks) {
  const std::vector<std::string> missing = missing_kernels(DeviceType::CUDA);
  auto has = [&](const std::string& s) { return std::find(missing.begin(), missing.end(), s) != missing.end(); };
  EXPECT_FALSE(has("unary: exp (complex64, complex128)"));  // test_complex.cpp
  EXPECT_FALSE(std::any_of(missing.begin(), missing.end(), [](const std::string& m) { return m.rfind("copy_", 0) == 0; }));
  EXPECT_FALSE(has("device_copy"));
  // An op without a CUDA kernel names itself and the device.
  const Tensor x = ones({3, 3}, TensorOptions(kFloat32).device(kCUDA));
  try {
    (void)geqrf(x);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember::cuda

namespace ember::cuda {
namespace {

TEST_P(CudaTest, MatrixProductsMatchTheCpu) {
  for (DType dt : {kFloat64, kFloat32, kFloat16, kBFloat16}) {
    const double rt = dt == kFloat64 ? 1e-12 : dt == kFloat32 ? 1e-5 : dt == kFloat16 ? 2e-3 : 2e-2;
    const std::string d(dtype_name(dt));
    const Tensor a = randn({37, 53}).to(dt), b = randn({53, 29}).to(dt), c = randn({37, 29}).to(dt);
    const Tensor ag = a.to(kCUDA), bg = b.to(kCUDA), cg = c.to(kCUDA);
    // The CPU computes half types in float too; compare with float64 products rounded to dt.
    auto ref = [&](const Tensor& x, const Tensor& y) { return matmul(x.to(kFloat64), y.to(kFloat64)).to(dt); };
    expect_matches_cpu(matmul(ag, bg), ref(a, b), rt, 1e-3, "matmul " + d);
    expect_matches_cpu(matmul(ag.t().contiguous().t(), bg), ref(a, b), rt, 1e-3, "matmul column-major a " + d);
    expect_matches_cpu(matmul(ag, bg.t().contiguous().t()), ref(a, b), rt, 1e-3, "matmul column-major b " + d);
    expect_matches_cpu(matmul(ag.slice(1, 0, 53, 2), bg.slice(0, 0, 53, 2)),
                       ref(a.slice(1, 0, 53, 2), b.slice(0, 0, 53, 2)), rt, 1e-3, "matmul strided " + d);
    expect_matches_cpu(addmm(cg, ag, bg, 0.5, 2), (c.to(kFloat64) * 0.5 + 2 * matmul(a.to(kFloat64), b.to(kFloat64))).to(dt),
                       rt * 2, 2e-3, "addmm " + d);
    const Tensor x = randn({4, 16, 8}).to(dt), y = randn({4, 8, 12}).to(dt);
    expect_matches_cpu(bmm(x.to(kCUDA), y.to(kCUDA)), bmm(x.to(kFloat64), y.to(kFloat64)).to(dt), rt, 1e-3, "bmm " + d);
    expect_matches_cpu(matmul(x.to(kCUDA), y.to(kCUDA).select(0, 0)),
                       matmul(x.to(kFloat64), y.to(kFloat64).select(0, 0)).to(dt), rt, 1e-3, "broadcast batch " + d);
    expect_matches_cpu(matmul(ag.select(0, 3), bg), ref(a.select(0, 3).unsqueeze(0), b).squeeze(0), rt, 1e-3,
                       "vector @ matrix " + d);
  }
  // K = 0: zeros.
  const Tensor e = matmul(empty({3, 0}, TensorOptions(kFloat32).device(kCUDA)), empty({0, 4}, TensorOptions(kFloat32).device(kCUDA)));
  expect_matches_cpu(e, zeros({3, 4}), 0, 0, "empty inner dimension");
}

TEST_P(CudaTest, Tf32IsOffByDefault) {
  EXPECT_FALSE(allow_tf32());
  // 1 + 2^-12 is exact in float32 and lost in TF32's 10-bit mantissa.
  const Tensor a = full({1, 1}, 1.0f + 1.0f / 4096, TensorOptions(kFloat32).device(kCUDA));
  const Tensor one = ones({1, 1}, TensorOptions(kFloat32).device(kCUDA));
  EXPECT_EQ(matmul(a, one).item<float>(), 1.0f + 1.0f / 4096);
  set_allow_tf32(true);
  EXPECT_TRUE(allow_tf32());
  set_allow_tf32(false);
}

}  // namespace
}  // namespace ember::cuda
