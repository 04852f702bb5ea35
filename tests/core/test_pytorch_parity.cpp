// Edge cases where Ember gave a different answer than PyTorch 1.13 (issue 18,
// "Numerics and semantics", found by random differential testing against
// libtorch). Expected values were printed by Debian's python3-torch 1.13 (the
// snippet is quoted beside each) or come from scripts/fixtures/parity.py.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <ember/ember.h>

#include "tensor_expect.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember::testing::expect_error;
using ember::testing::expect_tensor_near;

namespace pytorch_parity_test {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor f64(std::initializer_list<double> v) { return tensor(std::vector<double>(v), kFloat64); }
Tensor leaf(Tensor t) { return t.detach().requires_grad_(); }

// The gradient of sum(fn(x)) at x.
Tensor grad_of(const std::function<Tensor(const Tensor&)>& fn, const Tensor& x0) {
  Tensor x = leaf(x0);
  fn(x).sum().backward();
  return x.grad();
}

// ---- 1. sum/prod with dtype= cast the input first ----

TEST(PytorchParity, SumProdWithDtypeCastComplexInputFirst) {
  // torch.prod(torch.tensor([1j, 1j]), dtype=torch.float32) -> tensor(0.)
  Tensor z = tensor({complex64(0, 1), complex64(0, 1)});
  EXPECT_EQ(prod(z, kFloat32).item<float>(), 0.0f);
  EXPECT_EQ(prod(z, kFloat32).dtype(), kFloat32);
  // torch.sum(torch.tensor([0.6+0j, 0.7+0j]), dtype=torch.int32) -> tensor(0, dtype=torch.int32)
  Tensor w = tensor({complex128(0.6, 0), complex128(0.7, 0)});
  EXPECT_EQ(sum(w, kInt32).item<int32_t>(), 0);
  // torch.tensor([[1j, 2], [1j, 1j]]).prod(1, dtype=torch.float64) -> [0., 0.]
  Tensor m = tensor({complex64(0, 1), complex64(2, 0), complex64(0, 1), complex64(0, 1)}).view({2, 2});
  expect_tensor_near(m.prod(1, false, kFloat64), f64({0, 0}), 0, 0);
  // torch.tensor([1.5+2j, -0.5]).sum(dtype=torch.int64) -> tensor(1)
  EXPECT_EQ(sum(tensor({complex64(1.5, 2), complex64(-0.5, 0)}), kInt64).item<int64_t>(), 1);
  // Real inputs cast first too: torch.tensor([1.7, 1.7]).sum(dtype=torch.int32) -> 2;
  // torch.tensor([0.1] * 10 + [1e-4] * 3, dtype=torch.float64).sum(dtype=torch.float16) -> 1.0
  EXPECT_EQ(sum(tensor({1.7f, 1.7f}), kInt32).item<int32_t>(), 2);
  std::vector<double> v(10, 0.1);
  v.insert(v.end(), 3, 1e-4);
  EXPECT_EQ(sum(tensor(v, kFloat64), kFloat16).item<double>(), 1.0);
  // Linear reductions are unchanged: torch.tensor([0.6+0.1j, 0.7]).mean(dtype=torch.float64) -> 0.65
  EXPECT_DOUBLE_EQ(mean(tensor({complex128(0.6, 0.1), complex128(0.7, 0)}), kFloat64).item<double>(), 0.65);
  // The complex dtype keeps complex arithmetic: prod([1j, 1j]) = -1.
  EXPECT_EQ(prod(z).item<complex64>(), complex64(-1, 0));
}

TEST(PytorchParity, SumProdWithDtypeDifferentiateTheCastInput) {
  // x = torch.tensor([0.6+1j, 0.7-2j], requires_grad=True)
  // torch.sum(x, dtype=torch.float64).backward() -> x.grad [1+0j, 1+0j]
  // torch.prod(x, dtype=torch.float64) -> 0.42; backward -> x.grad [0.7+0j, 0.6+0j]
  const Tensor x0 = tensor({complex128(0.6, 1), complex128(0.7, -2)});
  Tensor x = leaf(x0);
  sum(x, kFloat64).backward();
  expect_tensor_near(x.grad(), tensor({complex128(1, 0), complex128(1, 0)}), 0, 0);
  x = leaf(x0);
  Tensor p = prod(x, kFloat64);
  EXPECT_DOUBLE_EQ(p.item<double>(), 0.42);
  p.backward();
  expect_tensor_near(x.grad(), tensor({complex128(0.7, 0), complex128(0.6, 0)}), 1e-15, 0);
  x = leaf(x0);
  x.prod(0, false, kFloat64).backward();
  expect_tensor_near(x.grad(), tensor({complex128(0.7, 0), complex128(0.6, 0)}), 1e-15, 0);
}

// ---- 2. float64 formulas compute in float64 ----

TEST(PytorchParity, PowScalarTensorGradientIsDoublePrecision) {
  // x = torch.tensor([0.5], dtype=torch.float64, requires_grad=True); torch.pow(0.1, x).sum().backward()
  // x.grad -> -0.72814134002118 (Ember gave -0.72814135013270098: log(0.1) in float32)
  Tensor g = grad_of([](const Tensor& x) { return pow(Scalar(0.1), x); }, f64({0.5}));
  EXPECT_DOUBLE_EQ(g.item<double>(), -0.72814134002118);
  // An integer base: torch.pow(3, x) at [0.5, 1.5] -> [1.902852301792692, 5.708556905378076]
  g = grad_of([](const Tensor& x) { return pow(Scalar(3), x); }, f64({0.5, 1.5}));
  EXPECT_DOUBLE_EQ(g[0].item<double>(), 1.902852301792692);
  EXPECT_DOUBLE_EQ(g[1].item<double>(), 5.708556905378076);
  // A complex base in complex128: torch.autograd.grad(torch.pow(0.1+0.2j, x).real.sum(), x)
  // with x = [0.5+0j] -> (-0.8777539313389893-0.07297442591827263j)
  Tensor x = leaf(tensor({complex128(0.5, 0)}));
  pow(Scalar(complex128(0.1, 0.2)), x).real().sum().backward();
  const complex128 gz = x.grad().item<complex128>();
  EXPECT_NEAR(gz.real(), -0.8777539313389893, 1e-15);
  EXPECT_NEAR(gz.imag(), -0.07297442591827263, 1e-15);
}

TEST(PytorchParity, NumberOperandsOfBinaryFormulasKeepDoublePrecision) {
  // d/dx atan2(x, 0.1) = 0.1 / (x^2 + 0.1^2): 0.1 * 0.1 must not be rounded to float32.
  const double x0 = 0.3;
  Tensor g = grad_of([](const Tensor& x) { return atan2(x, Scalar(0.1)); }, f64({x0}));
  EXPECT_DOUBLE_EQ(g.item<double>(), 0.1 / (x0 * x0 + 0.1 * 0.1));
  // Tight gradchecks (float64 central differences agree to ~1e-10) of the
  // number-operand formulas, which the default atol 1e-5 let pass.
  const autograd::GradcheckOptions tight{.eps = 1e-6, .atol = 1e-9, .rtol = 1e-8};
  Tensor xs = leaf(f64({0.3, 0.7, 1.9}));
  auto check = [&](std::function<Tensor(const Tensor&)> fn) {
    return autograd::gradcheck([fn](const autograd::variable_list& v) { return autograd::variable_list{fn(v[0])}; },
                               {xs}, tight);
  };
  EXPECT_TRUE(check([](const Tensor& t) { return pow(Scalar(0.1), t); }));
  EXPECT_TRUE(check([](const Tensor& t) { return pow(Scalar(2.5), t); }));
  EXPECT_TRUE(check([](const Tensor& t) { return t.atan2(Scalar(0.1)); }));
  EXPECT_TRUE(check([](const Tensor& t) { return t.pow(Scalar(0.3)); }));
  EXPECT_TRUE(check([](const Tensor& t) { return t.xlogy(Scalar(0.1)); }));
  EXPECT_TRUE(check([](const Tensor& t) { return t.hypot(Scalar(0.1)); }));
  EXPECT_TRUE(check([](const Tensor& t) { return Scalar(0.1) / t; }));
  EXPECT_TRUE(check([](const Tensor& t) { return special::zeta(Scalar(2.1), t + 1); }));
  // q = torch.tensor([1.5, 2.5], dtype=torch.float64, requires_grad=True)
  // torch.special.zeta(2.1, q).sum().backward() -> [-0.8168626247466836, -0.21936471314263667]
  // (scipy: -2.1 * zeta(3.1, q), the same digits; 2.1 + 1 was rounded to float32)
  g = grad_of([](const Tensor& q) { return special::zeta(Scalar(2.1), q); }, f64({1.5, 2.5}));
  EXPECT_NEAR(g[0].item<double>(), -0.8168626247466836, 1e-15);
  EXPECT_NEAR(g[1].item<double>(), -0.21936471314263667, 1e-15);
}

// ---- 3. all targets ignored: NaN loss, zero gradient ----

TEST(PytorchParity, AllIgnoredTargetsGiveZeroGradient) {
  // x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True); t = torch.tensor([-100] * 3)
  // F.cross_entropy(x, t) -> nan; x.grad -> zeros (also with weight=, label_smoothing=, and nll_loss)
  Tensor x0 = randn({3, 4}, kFloat64);
  Tensor t = tensor(std::vector<int64_t>{-100, -100, -100});
  Tensor w = rand({4}, kFloat64);
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> cases = {
      {"cross_entropy", [&](const Tensor& x) { return F::cross_entropy(x, t); }},
      {"cross_entropy weight", [&](const Tensor& x) { return F::cross_entropy(x, t, {.weight = w}); }},
      {"cross_entropy smoothing", [&](const Tensor& x) { return F::cross_entropy(x, t, {.label_smoothing = 0.1}); }},
      {"cross_entropy weight smoothing",
       [&](const Tensor& x) { return F::cross_entropy(x, t, {.weight = w, .label_smoothing = 0.1}); }},
      {"nll_loss", [&](const Tensor& x) { return F::nll_loss(x, t); }},
      {"nll_loss weight", [&](const Tensor& x) { return F::nll_loss(x, t, {.weight = w}); }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    Tensor x = leaf(x0);
    Tensor loss = fn(x);
    EXPECT_TRUE(std::isnan(loss.item<double>()));
    loss.backward();
    expect_tensor_near(x.grad(), zeros({3, 4}, kFloat64), 0, 0);
  }
  // Zero class weights on targets that are not ignored still divide 0 by 0, as
  // PyTorch: F.nll_loss(x, torch.tensor([1, -100, 2]), weight=torch.tensor([1., 0, 0, 1]))
  // -> x.grad NaN at [0, 1] and [2, 2], 0 elsewhere.
  Tensor x = leaf(x0);
  F::nll_loss(x, tensor(std::vector<int64_t>{1, -100, 2}), {.weight = f64({1, 0, 0, 1})}).backward();
  Tensor expected = zeros({3, 4}, kFloat64);
  expected.index_put_({0, 1}, kNan);
  expected.index_put_({2, 2}, kNan);
  expect_tensor_near(x.grad(), expected, 0, 0);
}

// ---- 4. clamp with tensor bounds promotes over all three operands ----

TEST(PytorchParity, ClampTensorBoundsPromoteTogether) {
  Tensor x = tensor({0.1f, 0.2f, 0.05f});
  // torch.clamp(x, torch.tensor(0.1, dtype=torch.float64), torch.tensor([0.15] * 3, dtype=torch.float64))
  // -> float64 [0.10000000149011612, 0.15, 0.1]: the 0-d min is not rounded to float32 first.
  Tensor r = clamp(x, full({}, 0.1, kFloat64), full({3}, 0.15, kFloat64));
  EXPECT_EQ(r.dtype(), kFloat64);
  EXPECT_EQ(r[0].item<double>(), 0.10000000149011612);
  EXPECT_EQ(r[1].item<double>(), 0.15);
  EXPECT_EQ(r[2].item<double>(), 0.1);
  // Both bounds 0-d: float32, as PyTorch ([0.10000000149011612, 0.15000000596046448, 0.10000000149011612]).
  r = clamp(x, full({}, 0.1, kFloat64), full({}, 0.15, kFloat64));
  EXPECT_EQ(r.dtype(), kFloat32);
  EXPECT_EQ(r[1].item<float>(), 0.15f);
  // An integer input with a 0-d float64 bound computes in float64:
  // torch.clamp(torch.tensor([1, 2, 3]), torch.tensor(1.5, dtype=torch.float64), torch.tensor([2.5] * 3, ...))
  r = clamp(tensor(std::vector<int64_t>{1, 2, 3}), full({}, 1.5, kFloat64), full({3}, 2.5, kFloat64));
  expect_tensor_near(r, f64({1.5, 2, 2.5}), 0, 0);
  // NaN in a bound or the input propagates (Ember's documented choice for bounds).
  r = clamp(f64({1, kNan, 3}), f64({0, 0, kNan}), f64({2, 2, 2}));
  EXPECT_EQ(r[0].item<double>(), 1);
  EXPECT_TRUE(std::isnan(r[1].item<double>()));
  EXPECT_TRUE(std::isnan(r[2].item<double>()));
}

// ---- 5. argmax/argmin without dim keep every dim with keepdim ----

TEST(PytorchParity, ArgmaxAllDimsKeepdim) {
  // torch.argmax(torch.randn(2, 3, 4), dim=None, keepdim=True).shape -> torch.Size([1, 1, 1])
  Tensor x = randn({2, 3, 4});
  Tensor a = x.argmax(std::nullopt, true), b = x.argmin(std::nullopt, true);
  EXPECT_EQ(a.sizes(), IntArrayRef({1, 1, 1}));
  EXPECT_EQ(b.sizes(), IntArrayRef({1, 1, 1}));
  EXPECT_EQ(a.item<int64_t>(), x.argmax().item<int64_t>());
  EXPECT_EQ(b.item<int64_t>(), x.argmin().item<int64_t>());
  // A 0-d input stays 0-d: torch.argmax(torch.tensor(1.), keepdim=True).shape -> torch.Size([])
  EXPECT_EQ(scalar_tensor(1.0).argmax(std::nullopt, true).dim(), 0);
}

// ---- 6. values that do not fit the dtype raise ----

TEST(PytorchParity, ScalarOverflowRaisesAsPytorch) {
  // torch.zeros(2, dtype=...).fill_(v): RuntimeError "value cannot be converted to type ... without overflow"
  struct Case {
    DType dtype;
    Scalar value;
    bool ok;
  };
  const std::vector<Case> cases = {
      {kUInt8, -1.5, false}, {kUInt8, -1, true}, {kUInt8, -255, true}, {kUInt8, -256, false},
      {kUInt8, 255.7, false}, {kUInt8, 256, false}, {kUInt8, -0.5, false}, {kUInt8, true, true},
      {kInt8, -128.9, false}, {kInt8, -129, false}, {kInt8, -128, true},
      {kInt32, 1e10, false}, {kInt32, 2147483647.5, false}, {kInt32, int64_t{1} << 31, false}, {kInt32, 1.5, true},
      {kInt64, kInf, false}, {kInt64, kNan, false}, {kInt64, 9.3e18, false}, {kInt64, 9.2e18, true},
      {kInt64, std::numeric_limits<int64_t>::min(), true}, {kInt64, -9.223372036854775808e18, true},
      {kBool, 5, true}, {kBool, kNan, true},
      {kFloat16, 1e6, false}, {kFloat16, 70000.0, false}, {kFloat16, 65504.0, true}, {kFloat16, kInf, true},
      {kFloat16, 70000, false},
      {kBFloat16, 1e39, false}, {kFloat32, 1e39, false}, {kFloat32, 1e300, false}, {kFloat32, kNan, true},
      {kFloat32, -kInf, true}, {kFloat64, 1e308, true},
      {kInt32, complex128(1, 1), false}, {kFloat32, complex128(1, 1), false}, {kFloat32, complex128(1, 0), true},
      {kFloat64, complex128(1e308, 1e308), false}, {kComplex64, 1e39, false},
      {kComplex64, complex128(1, 1e39), false}, {kComplex64, complex128(kInf, 1), true},
      {kInt32, complex128(kNan, 0), false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.dtype << " " << c.value);
    auto fill = [&] { zeros({2}, c.dtype).fill_(c.value); };
    if (c.ok) EXPECT_NO_THROW(fill());
    else expect_error(fill, "value cannot be converted to type");
  }
  // Every op that stores a Scalar checks it, naming itself; empty tensors too.
  const Tensor u8 = zeros({2}, kUInt8);
  const Tensor mask = tensor({true, false});
  const Tensor idx = tensor(std::vector<int64_t>{0});
  expect_error([&] { zeros({0}, kUInt8).fill_(256); }, "fill_: value cannot be converted to type uint8");
  expect_error([&] { full({2}, 1e10, kInt32); }, "full: value cannot be converted to type int32");
  expect_error([&] { full_like(u8, 256); }, "full_like: value cannot be converted");
  expect_error([&] { u8.masked_fill(mask, -1.5); }, "masked_fill: value cannot be converted to type uint8");
  expect_error([&] { u8.masked_fill(mask, scalar_tensor(300)); }, "masked_fill: value cannot be converted");
  expect_error([&] { u8.masked_fill(logical_not(ones({2}, kBool)), 256); }, "masked_fill: value cannot");
  expect_error([&] { Tensor(u8.clone()).masked_fill_(mask, -256); }, "value cannot be converted");
  expect_error([&] { zeros({2}, kFloat16).masked_fill(mask, scalar_tensor(1e6)); }, "value cannot be converted");
  expect_error([&] { u8.index_fill(0, idx, 256); }, "index_fill: value cannot be converted");
  expect_error([&] { u8.index_fill(0, tensor(std::vector<int64_t>{}), 256); }, "value cannot be converted");
  expect_error([&] { zeros({2}, kInt32).scatter(0, idx, 1e10); }, "scatter: value cannot be converted");
  expect_error([&] { u8.clamp(std::nullopt, 300); }, "clamp_max: value cannot be converted to type uint8");
  expect_error([&] { zeros({2}, kInt8).clamp(-1000); }, "clamp_min: value cannot be converted to type int8");
  expect_error([&] { zeros({2}).clamp(std::nullopt, 1e39); }, "value cannot be converted to type float32");
  // What PyTorch accepts: wraps of small negatives, in-range truncation, bools.
  EXPECT_EQ(u8.masked_fill(mask, -1)[0].item<int64_t>(), 255);  // tensor([255, 0], dtype=torch.uint8)
  EXPECT_EQ(zeros({2}, kInt32).index_fill(0, idx, 1.5)[0].item<int64_t>(), 1);
  EXPECT_EQ(full({2}, -1, kUInt8)[1].item<int64_t>(), 255);
  EXPECT_EQ(u8.clamp(-255)[0].item<int64_t>(), 1);  // torch.zeros(2, dtype=torch.uint8).clamp(-255) -> [1, 1]
  EXPECT_EQ(zeros({2}, kInt64).clamp(std::nullopt, 1e30).dtype(), kFloat32);  // promotes, so fits
  EXPECT_EQ(zeros({2}, kInt32).scatter(0, idx, 1.5)[0].item<int64_t>(), 1);
  EXPECT_EQ(u8.masked_fill(mask, true)[0].item<int64_t>(), 1);
}

TEST(PytorchParity, InternalFillsFitTheDtype) {
  // logcumsumexp's backward fills a stand-in for log(0) in the gradient's
  // dtype: the dtype's lowest value, which the overflow check accepts.
  // x = torch.tensor([[0.5, -1., 2.], [1., 1., -3.]], requires_grad=True)
  // torch.logcumsumexp(x, 1).backward(torch.tensor([[1., -2., 0.5], [-1., 0., 3.]])); x.grad
  Tensor x = leaf(tensor({0.5f, -1.0f, 2.0f, 1.0f, 1.0f, -3.0f}).view({2, 3}));
  x.logcumsumexp(1).backward(tensor({1.0f, -2.0f, 0.5f, -1.0f, 0.0f, 3.0f}).view({2, 3}));
  expect_tensor_near(x.grad().flatten(),
                     tensor({-0.5475038290023804f, -0.3452947735786438f, 0.392798513174057f, 0.4863879680633545f,
                             1.4863879680633545f, 0.027224143967032433f}),
                     1e-5, 1e-6);
}

// ---- 7. empty and zero-width inputs ----

TEST(PytorchParity, EmbeddingWithZeroDimBackward) {
  // w = torch.randn(5, 0, requires_grad=True); F.embedding(torch.tensor([[1, 2], [3, 1]]), w).sum().backward()
  // -> output [2, 2, 0], w.grad of shape [5, 0]
  for (bool freq : {false, true}) {
    Tensor w = leaf(randn({5, 0}));
    Tensor out = F::embedding(tensor(std::vector<int64_t>{1, 2, 3, 1}).view({2, 2}), w,
                              {.padding_idx = freq ? std::optional<int64_t>(1) : std::nullopt,
                               .scale_grad_by_freq = freq});
    EXPECT_EQ(out.sizes(), IntArrayRef({2, 2, 0}));
    out.sum().backward();
    EXPECT_EQ(w.grad().sizes(), IntArrayRef({5, 0}));
  }
}

TEST(PytorchParity, CrossEntropyProbabilityTargetsOnEmptyBatchRequiresGrad) {
  // x = torch.randn(0, 4, requires_grad=True); l = F.cross_entropy(x, torch.rand(0, 4))
  // -> tensor(nan, grad_fn=<NegBackward0>); sum: tensor(-0., grad_fn=...); none: tensor([], grad_fn=...)
  for (double smoothing : {0.0, 0.2}) {
    Tensor x = leaf(randn({0, 4}));
    Tensor l = F::cross_entropy(x, rand({0, 4}), {.label_smoothing = smoothing});
    EXPECT_TRUE(std::isnan(l.item<double>()));
    EXPECT_TRUE(l.requires_grad());
    l.backward();
    EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 4}));
  }
  for (auto red : {nn::Reduction::Sum, nn::Reduction::None}) {
    Tensor l = F::cross_entropy(leaf(randn({0, 4})), rand({0, 4}), {.reduction = red});
    EXPECT_TRUE(l.requires_grad());
  }
  // Class-index targets: tensor(nan, grad_fn=<NllLossBackward0>)
  Tensor l = F::cross_entropy(leaf(randn({0, 4})), zeros({0}, kInt64));
  EXPECT_TRUE(std::isnan(l.item<double>()));
  EXPECT_TRUE(l.requires_grad());
}

TEST(PytorchParity, BatchNormTrainingOnEmptyInput) {
  // F.batch_norm(x, rm, rv, w, b, training=True) with x of shape (0, 3), (0, 3, 4, 4) or (2, 3, 0):
  // an empty output, running stats unchanged (0 and 1), w.grad and b.grad zeros.
  for (const DimVector& shape : {DimVector{0, 3}, DimVector{0, 3, 4, 4}, DimVector{2, 3, 0}}) {
    for (DType dt : {kFloat32, kFloat64}) {
      SCOPED_TRACE(::testing::Message() << IntArrayRef(shape) << " " << dt);
      Tensor x = leaf(randn(shape, dt));
      Tensor rm = zeros({3}, dt), rv = ones({3}, dt), count = zeros({}, kInt64);
      Tensor w = leaf(ones({3}, dt)), b = leaf(zeros({3}, dt));
      Tensor y = F::batch_norm(x, rm, rv,
                               {.weight = w, .bias = b, .training = true, .num_batches_tracked = count});
      EXPECT_EQ(y.sizes(), x.sizes());
      expect_tensor_near(rm, zeros({3}, dt), 0, 0);
      expect_tensor_near(rv, ones({3}, dt), 0, 0);
      EXPECT_EQ(count.item<int64_t>(), 1);  // the module's counter still counts the batch
      y.sum().backward();
      expect_tensor_near(w.grad(), zeros({3}, dt), 0, 0);
      expect_tensor_near(b.grad(), zeros({3}, dt), 0, 0);
      EXPECT_EQ(x.grad().sizes(), x.sizes());
    }
  }
  // Exactly one value per channel still raises:
  // "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])"
  expect_error([] { F::batch_norm(randn({1, 3}), Tensor(), Tensor(), {.training = true}); },
               "Expected more than 1 value per channel when training");
  expect_error([] { F::batch_norm(randn({1, 3, 1, 1}), Tensor(), Tensor(), {.training = true}); },
               "Expected more than 1 value per channel when training");
  // nn.BatchNorm1d(3) on torch.randn(0, 3): an empty output, num_batches_tracked 1.
  nn::BatchNorm1d bn(3);
  EXPECT_EQ(bn(randn({0, 3})).sizes(), IntArrayRef({0, 3}));
}

// ---- 8. gradients at NaN/inf and 0-d shape ops ----

TEST(PytorchParity, ActivationGradientsAtNan) {
  // x = torch.tensor([nan, -1., 0., 1.], dtype=torch.float64, requires_grad=True)
  // F.<act>(x).sum().backward(); x.grad. One deliberate difference: PyTorch's
  // hardsigmoid gives 0.1666666716337204 (1/6 rounded to float32) where Ember
  // computes 1/6 in float64 (docs/pytorch_differences.md).
  const Tensor x = f64({kNan, -1, 0, 1});
  const double e = std::exp(-1.0);
  const double selu_scale = 1.0507009873554804934193349852946;
  const double selu_alpha = 1.6732632423543772848170429916717;
  const double selu_neg = selu_alpha * selu_scale * e;
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&)> fn;
    std::vector<double> grad;
  };
  const std::vector<Case> cases = {
      {"relu", [](const Tensor& t) { return t.relu(); }, {1, 0, 0, 1}},
      {"relu6", [](const Tensor& t) { return F::relu6(t); }, {1, 0, 0, 1}},
      {"elu", [](const Tensor& t) { return F::elu(t); }, {1, e, 1, 1}},
      {"celu", [](const Tensor& t) { return F::celu(t); }, {1, e, 1, 1}},
      {"selu", [](const Tensor& t) { return F::selu(t); }, {selu_scale, selu_neg, selu_scale * selu_alpha, selu_scale}},
      {"leaky_relu", [](const Tensor& t) { return F::leaky_relu(t, 0.1); }, {0.1, 0.1, 0.1, 1}},
      {"hardtanh", [](const Tensor& t) { return F::hardtanh(t); }, {1, 0, 1, 0}},
      {"threshold", [](const Tensor& t) { return F::threshold(t, 0, 0); }, {1, 0, 0, 1}},
      {"hardsigmoid", [](const Tensor& t) { return F::hardsigmoid(t); }, {0, 1.0 / 6, 1.0 / 6, 1.0 / 6}},
      {"hardswish", [](const Tensor& t) { return F::hardswish(t); }, {1, 1.0 / 6, 0.5, 5.0 / 6}},
      {"clamp_min", [](const Tensor& t) { return t.clamp(0); }, {0, 0, 1, 1}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    expect_tensor_near(grad_of(c.fn, x), tensor(c.grad, kFloat64), 1e-15, 0);
  }
}

TEST(PytorchParity, CumprodGradientWithZerosAndInfinities) {
  // scripts/fixtures/parity.py: slices mixing 0 with inf or NaN, first order
  // and under create_graph (PyTorch's O(n^2) formula), along dims 1 and 0.
  const Tensor x0 = ember::testing::fixture("parity", "cumprod_zero_inf_x");
  const Tensor g = ember::testing::fixture("parity", "cumprod_zero_inf_gout");
  for (int64_t dim : {1, 0}) {
    SCOPED_TRACE(dim);
    const std::string suffix = "_dim" + std::to_string(dim);
    auto in = [dim](const Tensor& t) { return dim == 1 ? t : t.t(); };
    Tensor x = leaf(x0);
    Tensor first = autograd::grad({in(x).cumprod(dim)}, {x}, {in(g)})[0];
    expect_tensor_near(first, ember::testing::fixture("parity", "cumprod_zero_inf_grad" + suffix), 1e-14, 0);
    Tensor graph = autograd::grad({in(x).cumprod(dim)}, {x}, {in(g)}, std::nullopt, /*create_graph=*/true)[0];
    expect_tensor_near(graph, ember::testing::fixture("parity", "cumprod_zero_inf_grad_graph" + suffix), 1e-14, 0);
  }
}

// Found by ember_difffuzz: the p-norm gradient of a slice of subnormal float32
// values, whose norm^(p-1) underflows to 0, was NaN. PyTorch 1.13 (norm 0
// there) gives 0:
//   x = torch.tensor([[1.4e-45, 1.0], [2.0e-45, 2.0]], requires_grad=True)
//   x.norm(p, dim=0).sum().backward(); x.grad
//   p=3: [[0, 0.23112042], [0, 0.92448169]]; p=4: [[0, 0.11944374], [0, 0.95554990]]
// (For 1 < p < 2 the denominator does not underflow and both libraries give a
// finite value; PyTorch's is 0 there too, from its norm flushed to 0.)
TEST(PytorchParity, NormGradientOfSubnormalSliceIsZero) {
  const Tensor x0 = tensor(std::vector<float>{1.4e-45f, 1.0f, 2.0e-45f, 2.0f}, kFloat32).reshape({2, 2});
  const std::vector<std::pair<double, std::vector<double>>> cases = {
      {3.0, {0, 0.23112042248249054, 0, 0.9244816899299622}},
      {4.0, {0, 0.11944373697042465, 0, 0.9555498957633972}}};
  for (const auto& [p, want] : cases) {
    SCOPED_TRACE(p);
    const Tensor g = grad_of([p = p](const Tensor& x) { return x.norm(p, {0}); }, x0);
    expect_tensor_near(g, tensor(want, kFloat64).reshape({2, 2}).to(kFloat32), 1e-6, 1e-6);
  }
  const Tensor g15 = grad_of([](const Tensor& x) { return x.norm(1.5, {0}); }, x0);
  EXPECT_TRUE(g15.isfinite().all().item<bool>());
}

TEST(PytorchParity, ZeroDimTransposeAndRollRaise) {
  const Tensor s = scalar_tensor(1.0);
  // torch.tensor(1.).transpose(0, 1) -> IndexError: Dimension out of range
  // (expected to be in range of [-1, 0], but got 1)
  expect_error([&] { s.transpose(0, 1); }, "dimension out of range");
  // transpose(0, 0), (0, -1), (-1, -1) and t() return the tensor.
  EXPECT_EQ(s.transpose(0, -1).item<double>(), 1.0);
  EXPECT_EQ(s.t().dim(), 0);
  // torch.tensor(1.).roll(1, dims=[0]) -> IndexError: Dimension specified as 0 but tensor has no dimensions
  expect_error([&] { s.roll({1}, {0}); }, "tensor has no dimensions");
  expect_error([&] { s.roll({1}, {-1}); }, "tensor has no dimensions");
  // Without dims a 0-d tensor rolls as one element: tensor(1.)
  EXPECT_EQ(s.roll({1}).item<double>(), 1.0);
}

// lerp picks its form by weight < 0.5 for real weights, as PyTorch 1.13, so a
// weight of -inf takes self + w * (end - self) (Ember used |w| < 0.5, NaN):
//   torch.lerp(torch.tensor(-0.35), torch.tensor(-inf), -inf) -> tensor(inf)
//   (float64 and bfloat16 too); torch.lerp(-0.35, 2., -3.) -> -7.4
TEST(PytorchParity, LerpWithMinusInfiniteWeight) {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor a = full({}, -0.35, TensorOptions(dt)), inf_end = full({}, -kInf, TensorOptions(dt));
    EXPECT_EQ(lerp(a, inf_end, -kInf).to(kFloat64).item<double>(), kInf);
    EXPECT_EQ(lerp(a, inf_end, full({}, -kInf, TensorOptions(dt))).to(kFloat64).item<double>(), kInf);
    EXPECT_NEAR(lerp(a, full({}, 2.0, TensorOptions(dt)), -3.0).to(kFloat64).item<double>(), -7.4, 0.01);
  }
}

// div's gradient for the divisor is -g * (a / b) / b, as PyTorch: b * b
// underflows for a tiny bfloat16 b, where a = 0 gave 0 / 0:
//   a = torch.tensor([0, 2, 0], dtype=torch.int16)
//   b = torch.tensor([9.98e-31, 1e-30, 0.], dtype=torch.bfloat16, requires_grad=True)
//   torch.div(a, b).sum().backward(); b.grad -> [-0., -inf, nan]
TEST(PytorchParity, DivGradientForTinyDivisor) {
  const Tensor a = tensor(std::vector<int16_t>{0, 2, 0}, kInt16);
  const Tensor g = grad_of([&](const Tensor& b) { return div(a, b); },
                           tensor(std::vector<double>{9.98402083e-31, 1e-30, 0.0}, kFloat64).to(kBFloat16));
  const Tensor g64 = g.to(kFloat64);
  EXPECT_EQ(g64[0].item<double>(), 0.0);
  EXPECT_EQ(g64[1].item<double>(), -kInf);
  EXPECT_TRUE(std::isnan(g64[2].item<double>()));
}

// A group of one element normalizes to exactly its bias. Ember computes
// (x - mean) * rstd * w + b; PyTorch 1.13's x * a + (b - mean * a), with
// a = 1 / sqrt(eps) = 316, rounds (-1.04101562 at x = -104 for bias
// -1.04095328; Ember was 8e-4 off with that form):
//   x = torch.tensor([[-1.4e-45, -0.544, 0.629], [-0.606, -104., 1.25]])
//   F.group_norm(x, 3, None, torch.tensor([1.44952583, -1.04095328, 1.]))
TEST(PytorchParity, GroupNormOfSingleElementGroupsIsTheBias) {
  const Tensor x = tensor(std::vector<float>{-1.4e-45f, -0.543996096f, 0.628990233f, -0.606119275f, -104.f, 1.25030386f},
                          kFloat32).reshape({2, 3});
  const Tensor bias = tensor(std::vector<float>{1.44952583f, -1.04095328f, 1.f}, kFloat32);
  const Tensor y = F::group_norm(x, 3, {.bias = bias});
  expect_tensor_near(y, bias.expand({2, 3}), 2e-6, 2e-6);
}

// Without a positive pad the input covers the output: PyTorch never converts
// the value then, so a value out of the dtype's range is fine:
//   F.pad(torch.tensor(0, dtype=torch.uint8), [], value=-2.625) -> tensor(0)
//   F.pad(torch.tensor([1], dtype=torch.uint8), [1, 1], value=-2.625) -> RuntimeError
//   value cannot be converted to type uint8_t without overflow
TEST(PytorchParity, ConstantPadConvertsItsValueOnlyWhenItFills) {
  const Tensor s = tensor(std::vector<uint8_t>{7}, kUInt8).reshape({});
  EXPECT_EQ(ember::pad(s, {}, "constant", -2.625).item<int64_t>(), 7);
  const Tensor v = tensor(std::vector<uint8_t>{1, 2, 3}, kUInt8);
  EXPECT_TRUE(ember::pad(v, {-1, 0}, "constant", -2.625).equal(tensor(std::vector<uint8_t>{2, 3}, kUInt8)));
  expect_error([&] { ember::pad(v, {1, 1}, "constant", -2.625); }, "without overflow");
}

// einsum leaves contractions over size-1 dims to a product (no bmm, so bool
// works) and sums a dim one operand lacks as sum does (int8 to int64):
//   torch.einsum('ab,b', torch.tensor([[True], [False]]), torch.tensor([True])) -> [True, False]
//   torch.einsum('ab,b', torch.ones(5, 2, dtype=torch.int8) * 100, torch.ones(1, dtype=torch.int8))
//   -> [200, ...] (int64); a size-2 bool contraction raises (bmm takes no Bool in libtorch 1.13)
TEST(PytorchParity, EinsumOverSizeOneDims) {
  const Tensor flags = tensor(std::vector<bool>{true, false}, kBool).reshape({2, 1});
  const Tensor y = einsum("ab,b", {flags, tensor(std::vector<bool>{true}, kBool)});
  EXPECT_EQ(y.dtype(), kBool);
  EXPECT_TRUE(y.equal(tensor(std::vector<bool>{true, false}, kBool)));
  const Tensor z = einsum("ab,b", {full({5, 2}, 100, TensorOptions(kInt8)), ones({1}, TensorOptions(kInt8))});
  EXPECT_EQ(z.dtype(), kInt64);
  EXPECT_EQ(z[0].item<int64_t>(), 200);
  expect_error([&] { einsum("ab,b", {ones({5, 2}, TensorOptions(kBool)), ones({2}, TensorOptions(kBool))}); },
               "bool");
}

}  // namespace pytorch_parity_test
