// Regressions found by ember_difffuzz (benchmarks/difffuzz/), the differential
// fuzzer against libtorch: each test says which case found the bug (a replay
// line of the fuzzer as it was then; later op-table changes move cases) and
// checks PyTorch 1.13's values (computed with Debian's torch, quoted here).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#include <ember/ember.h>

#include "tensor_expect.h"

using namespace ember;
using namespace ember::testing;
namespace F = ember::nn::functional;

namespace difffuzz_findings_test {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor c128(std::vector<std::complex<double>> v) { return tensor(v); }
Tensor f64(std::vector<double> v) { return tensor(v, TensorOptions(kFloat64)); }

// ember_difffuzz --replay 1:138: std of a complex tensor whose slice has equal
// values (std 0) had a NaN gradient (sqrt's derivative at 0); PyTorch's
// std_backward gives 0 there.
TEST(DiffFuzzFindings, ComplexStdGradientIsZeroWhereTheStdIsZero) {
  Tensor x = c128({{1, 2}, {1, 2}}).requires_grad_();
  x.std({0}).backward();
  expect_tensor_near(x.grad(), c128({{0, 0}, {0, 0}}), 0, 0);

  // Elsewhere the gradient is unchanged (torch: std 2.0 and this gradient).
  Tensor y = c128({{1, 2}, {3, -1}, {0.5, 0.5}}).requires_grad_();
  Tensor s = y.std({0});
  EXPECT_DOUBLE_EQ(s.item<double>(), 2.0);
  s.backward();
  expect_tensor_near(y.grad(), c128({{-0.125, 0.375}, {0.375, -0.375}, {-0.25, 0}}), 1e-14, 1e-15);
}

// ember_difffuzz --replay 7:2961: complex log2 divided by a complex
// ln 2, and C99's complex division turned log(0) = -inf + 0i into -inf + NaN i.
TEST(DiffFuzzFindings, ComplexLog2AtZeroKeepsItsImaginaryPart) {
  const double pi_over_ln2 = std::numbers::pi / std::numbers::ln2;
  Tensor z = c128({{0, 0}, {-0.0, 0}, {-1, 0}, {2, 0}});
  Tensor r = log2(z);
  expect_tensor_near(r, c128({{-kInf, 0}, {-kInf, pi_over_ln2}, {0, pi_over_ln2}, {1, 0}}), 1e-15, 0);
  EXPECT_FALSE(view_as_real(r).isnan().any().item<bool>());
  // log10 (std::log10 directly) agrees with PyTorch on the same points.
  const double pi_over_ln10 = std::numbers::pi / std::numbers::ln10;
  expect_tensor_near(log10(z), c128({{-kInf, 0}, {-kInf, pi_over_ln10}, {0, pi_over_ln10}, {std::log10(2.0), 0}}),
                     1e-15, 0);
}

// ember_difffuzz --replay 3:837: smooth_l1_loss / huber_loss gradients were
// NaN where |input - target| is infinite (the untaken quadratic branch's
// 0 * inf); PyTorch's are +-1 there, and NaN where the difference is NaN.
TEST(DiffFuzzFindings, SmoothL1AndHuberGradientsAtInfiniteDifferences) {
  for (int huber = 0; huber < 2; ++huber) {
    Tensor a = f64({-kInf, 2.0, 0.5, kNaN}).requires_grad_();
    Tensor b = f64({1.0, -kInf, 0.0, 0.0}).requires_grad_();
    Tensor loss = huber ? F::huber_loss(a, b, {.reduction = F::Reduction::Sum})
                        : F::smooth_l1_loss(a, b, {.reduction = F::Reduction::Sum});
    auto g = autograd::grad({loss}, {a, b});
    SCOPED_TRACE(huber ? "huber_loss" : "smooth_l1_loss");
    expect_tensor_near(g[0], f64({-1, 1, 0.5, kNaN}), 0, 0);
    expect_tensor_near(g[1], f64({1, -1, -0.5, kNaN}), 0, 0);
  }
}

// ember_difffuzz --replay 1:1385: index_put (the op) accepted values with
// extra leading size-1 dims ([1] into a 0-dim result); PyTorch raises. Python's
// x[i] = v still drops them, and a one-element value through a single mask is
// a masked fill whatever its shape, as in PyTorch.
TEST(DiffFuzzFindings, IndexPutValuesMustBroadcastToTheIndexingResult) {
  const std::vector<std::optional<Tensor>> at3 = {tensor({int64_t{3}}).reshape({})};
  expect_error([&] { ember::index_put(zeros({28}), at3, ones({1})); },
               "value tensor of shape [1] cannot be broadcast to indexing result of shape []");
  Tensor x = zeros({4});
  x.index_put_({tensor({int64_t{2}}).reshape({})}, full({1}, 7.0f));  // x[i] = v
  expect_tensor_near(x, tensor({0.f, 0.f, 7.f, 0.f}), 0, 0);
  Tensor mask = tensor({false, true, false, false});
  const std::vector<std::optional<Tensor>> by_mask = {mask};
  expect_tensor_near(ember::index_put(zeros({4}), by_mask, full({1, 1}, 5.0f)), tensor({0.f, 5.f, 0.f, 0.f}), 0, 0);
}

// ember_difffuzz --replay 1:3648 (and seed 2's cases): with class
// probabilities, cross_entropy's weight got no gradient (it was detached) and
// a non-negative ignore_index was ignored silently; PyTorch differentiates the
// weight and rejects the ignore_index.
TEST(DiffFuzzFindings, CrossEntropyWithProbabilitiesDifferentiatesTheWeight) {
  Tensor input = f64({2.0, 0.5, -1.0, 0.1, 0.2, 0.3}).view({2, 3}).requires_grad_();
  Tensor target = f64({0.7, 0.2, 0.1, 0.0, 0.5, 0.5}).view({2, 3});
  Tensor weight = f64({1.0, 2.0, 0.5}).requires_grad_();
  Tensor loss = F::cross_entropy(input, target, {.weight = weight});
  EXPECT_NEAR(loss.item<double>(), 1.189968275721143, 1e-14);
  auto g = autograd::grad({loss}, {input, weight});
  expect_tensor_near(g[0],
                     f64({0.10171829488883370, -0.09920802451947890, -0.00251027036935472, 0.18788100334732960,
                          -0.29235937904165793, 0.10447837569432844})
                         .view({2, 3}),
                     1e-13, 1e-15);
  expect_tensor_near(g[1], f64({0.08445895383000496, 0.44961684172302674, 0.41255127689016891}), 1e-13, 1e-15);
  expect_error([&] { F::cross_entropy(input, target, {.ignore_index = 1}); },
               "ignore_index is not supported for floating point target");
}

// ember_difffuzz --replay 8:197: binary_cross_entropy's target gradient
// used the forward's log clamp (finite at input 0 and 1); PyTorch's is
// -logit(input), infinite there.
TEST(DiffFuzzFindings, BinaryCrossEntropyTargetGradientIsMinusLogit) {
  Tensor x = f64({0.0, 0.25, 1.0}).requires_grad_();
  Tensor y = f64({0.5, 0.5, 0.5}).requires_grad_();
  Tensor loss = F::binary_cross_entropy(x, y);
  EXPECT_NEAR(loss.item<double>(), 33.61232940559528, 1e-12);
  auto g = autograd::grad({loss}, {x, y});
  expect_tensor_near(g[0], f64({-1.66666667332633820e+11, -4.44444444444444420e-01, 1.66666667332633820e+11}), 1e-8, 0);
  expect_tensor_near(g[1], f64({kInf, 0.36620409622270317, -kInf}), 1e-14, 0);
}

// ember_difffuzz --replay 8:3811: the mean of an empty complex tensor was
// nan + 0i; PyTorch's 0 / 0 is nan + nan i.
TEST(DiffFuzzFindings, MeanOfNothingComplexIsNanNan) {
  for (DType t : {kComplex64, kComplex128}) {
    Tensor m = zeros({0}, TensorOptions(t)).mean();
    EXPECT_EQ(m.dtype(), t);
    EXPECT_TRUE(view_as_real(m).isnan().all().item<bool>()) << m;
  }
}

// ember_difffuzz, seed 9 and --replay 1:72169 (--max-numel 256): hardtanh on
// bool, and on uint8 with a negative min_val, clamped; PyTorch rejects both.
TEST(DiffFuzzFindings, HardtanhRejectsBoolAndNegativeLimitsOnUInt8) {
  expect_error([] { F::hardtanh(tensor({true, false})); }, "Bool inputs not supported for hardtanh");
  expect_error([] { F::relu6(tensor({true})); }, "Bool inputs not supported for hardtanh");
  Tensor u = tensor({0, 3, 200}).to(kUInt8);
  expect_error([&] { F::hardtanh(u, -2.875, 2.5); }, "cannot do hardtanh on an unsigned type with negative limits");
  expect_tensor_near(F::hardtanh(u, 1, 100), tensor({1, 3, 100}).to(kUInt8), 0, 0);
  // Limits are truncated to integers first (ember_difffuzz --replay 202:237062
  // --max-numel 100000 --threads 2): torch's hardtanh(uint8 [0, 3, 200], -0.375,
  // 0.75) is [0, 0, 0].
  expect_tensor_near(F::hardtanh(u, -0.375, 0.75), tensor({0, 0, 0}).to(kUInt8), 0, 0);
  expect_error([&] { F::hardtanh(u, -1.0, 0.75); }, "negative limits");
}

// ember_difffuzz --replay 1:21928 (--max-numel 256): addmm on float64 rejected
// beta = complex(-2.5, -0); PyTorch converts a complex number whose imaginary
// part is zero (and rejects one whose part is not).
TEST(DiffFuzzFindings, AddmmTakesComplexCoefficientsWithZeroImaginaryPart) {
  Tensor a = f64({1, 2, 3, 4}).view({2, 2});
  Tensor m = f64({0.5, -1, 2, 0.25}).view({2, 2});
  expect_tensor_near(addmm(a, m, m, Scalar(std::complex<double>(-2.5, -0.0)), 1), addmm(a, m, m, -2.5, 1), 0, 0);
  expect_error([&] { addmm(a, m, m, Scalar(std::complex<double>(-2.5, 1.0)), 1); }, "non-zero imaginary part");
}

// ember_difffuzz --replay 201:160365 --max-numel 100000 --threads 2: the
// gradient of atan2(float64 tensor, 0.1) was float32-accurate (6.87499951 for
// 6.875): the backward squared the wrapped 0.1 as a number times a number,
// whose result type is float32. torch: d/dx atan2(x, 0.1) = 0.1 / (x^2 + 0.01).
TEST(DiffFuzzFindings, Atan2GradientWithANumberKeepsFloat64) {
  Tensor x = f64({0.0, 0.5, -1.5}).requires_grad_();
  atan2(x, Scalar(0.1)).sum().backward();
  for (int64_t i = 0; i < 3; ++i) {
    const double xi = x.detach()[i].item<double>();
    EXPECT_NEAR(x.grad()[i].item<double>(), 0.1 / (xi * xi + 0.1 * 0.1), 4e-15) << "x = " << xi;
  }
  EXPECT_EQ(x.grad().dtype(), kFloat64);
}

// ember_difffuzz --replay 201:56401 --max-numel 100000 --threads 2: einsum on
// bool operands raised from bmm even when nothing is summed; PyTorch's
// sumproduct_pair multiplies then (torch: einsum('ij,ij->ij') of bools is their
// logical and, 'i,j->ij' their outer and), and still raises for a contraction.
TEST(DiffFuzzFindings, EinsumWithoutSummedIndicesTakesBool) {
  Tensor a = tensor({true, false, true, true}).view({2, 2});
  Tensor b = tensor({true, true, false, true}).view({2, 2});
  Tensor r = einsum("ij,ij->ij", {a, b});
  EXPECT_EQ(r.dtype(), kBool);
  EXPECT_TRUE(equal(r, logical_and(a, b)));
  Tensor o = einsum("i,j->ij", {tensor({true, false}), tensor({true, true, false})});
  EXPECT_TRUE(equal(o, tensor({true, true, false, false, false, false}).view({2, 3})));
  expect_error([&] { einsum("ij,jk->ik", {a, b}); }, "bool tensors are not supported");
  // Floating operands take the same path: the product, with its gradient.
  Tensor x = f64({1.5, -2.0, 0.25}).requires_grad_();
  Tensor y = f64({2.0, 3.0, -4.0});
  Tensor p = einsum("i,i->i", {x, y});
  expect_tensor_near(p, f64({3.0, -6.0, -1.0}), 0, 0);
  p.sum().backward();
  expect_tensor_near(x.grad(), y, 0, 0);
}

// ember_difffuzz --replay 1:40043 --max-numel 256 --threads 1: cumprod of a
// float64 input with dtype=float32 raised in its backward (masked_scatter_ of
// float64 into float32). PyTorch's formulas take the gradient in the input's
// dtype: cumprod_backward(grad.to(self.dtype), self, dim, result). Values from
// torch 1.13 (scripts: x, w below; (cumprod(x, 0, dtype=float32) * w).sum()).
TEST(DiffFuzzFindings, CumprodAndCumsumWithDtypeDifferentiateInTheInputDtype) {
  const Tensor w = tensor({0.5f, -1.25f, 2.0f}).view({3, 1});
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{0.3, 1.7, 0.0}, {-1.6250001887480419, -0.37500003681463356, 1.0200001001358032}},
      {{0.3, 1.7, -2.1}, {-8.765000055233639, -1.635000013253268, 1.0199999809265137}}};
  for (const auto& [values, expected] : cases) {
    Tensor x = f64(values).view({3, 1}).requires_grad_();
    Tensor y = cumprod(x, 0, kFloat32);
    EXPECT_EQ(y.dtype(), kFloat32);
    (y * w).sum().backward();
    EXPECT_EQ(x.grad().dtype(), kFloat64);
    expect_tensor_near(x.grad().flatten(), f64(expected), 1e-6, 0);
    Tensor z = f64(values).view({3, 1}).requires_grad_();
    (cumsum(z, 0, kFloat32) * w).sum().backward();
    EXPECT_EQ(z.grad().dtype(), kFloat64);
    expect_tensor_near(z.grad().flatten(), f64({1.25, 0.75, 2.0}), 0, 0);
  }
}

}  // namespace difffuzz_findings_test
