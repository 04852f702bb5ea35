// Backward formulas of the elementwise ops (unary, binary, ternary, clamp,
// where, masked_fill...): gradcheck/gradgradcheck against central
// differences, broadcasting, non-contiguous and complex inputs, in-place and
// out= variants, and PyTorch's conventions at the kinks (values checked
// against torch 1.13 by hand).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tensor_expect.h"

namespace ember {
namespace autograd_elementwise_test {

using autograd::variable_list;
using testing::expect_error;
using testing::expect_tensor_near;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Up to six values spread over [lo, hi]; for [-2, 2] they avoid 0, the
// integers and the half-integers (kinks of relu/abs/floor/round...). `alt`
// picks another order, so that two inputs interleave without ties.
Tensor spread(double lo, double hi, std::vector<int64_t> shape = {2, 3}, bool alt = false) {
  static const double fracs[] = {0.13, 0.27, 0.41, 0.58, 0.72, 0.89};
  static const double alt_fracs[] = {0.85, 0.2, 0.66, 0.05, 0.47, 0.31};
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * (alt ? alt_fracs[i] : fracs[i]));
  return tensor(v, kFloat64).reshape(shape);
}

Tensor leaf(Tensor t) { return t.detach().requires_grad_(); }

// A complex128 leaf: real parts over [lo, hi], imaginary parts over [ilo, ihi].
Tensor complex_leaf(double lo, double hi, double ilo = -1, double ihi = 1, std::vector<int64_t> shape = {2, 3},
                    bool alt = false) {
  Tensor re = spread(lo, hi, shape, alt), im = spread(ilo, ihi, shape, !alt);
  return leaf(re.to(kComplex128) + im.to(kComplex128) * Scalar(complex128(0, 1)));
}

Tensor values(std::initializer_list<double> v) { return tensor(std::vector<double>(v), kFloat64); }
Tensor grad_leaf(std::initializer_list<double> v) { return values(v).requires_grad_(); }

// Tolerances far below gradcheck's defaults (PyTorch's atol 1e-5, rtol 1e-3):
// float64 central differences of these smooth functions agree with exact
// formulas to ~1e-10, so a formula that rounds through float32 somewhere
// (log(2) of pow(2.0, x) was 2.7e-9 off) fails here.
const autograd::GradcheckOptions kTight{.eps = 1e-6, .atol = 1e-10, .rtol = 1e-9};

// gradcheck / gradgradcheck that report a mismatch as a test failure (with
// the SCOPED_TRACE of the case) instead of an exception.
bool gradcheck(const autograd::GradcheckFn& f, const variable_list& xs) {
  try {
    return autograd::gradcheck(f, xs, kTight);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
    return false;
  }
}
bool gradgradcheck(const autograd::GradcheckFn& f, const variable_list& xs) {
  try {
    return autograd::gradgradcheck(f, xs, {}, kTight);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
    return false;
  }
}

using Fn1 = std::function<Tensor(const Tensor&)>;
using Fn2 = std::function<Tensor(const Tensor&, const Tensor&)>;

autograd::GradcheckFn wrap1(const Fn1& f) {
  return [f](const variable_list& xs) { return variable_list{f(xs[0])}; };
}
autograd::GradcheckFn wrap2(const Fn2& f) {
  return [f](const variable_list& xs) { return variable_list{f(xs[0], xs[1])}; };
}

// ---------------------------------------------------------------- unary

struct UnaryCase {
  const char* name;
  Fn1 fn;
  double lo = -2, hi = 2;
  bool complex = false;   // gradcheck with complex128 inputs too
  bool gradgrad = false;  // gradgradcheck
  double ilo = -1, ihi = 1;
};

std::vector<UnaryCase> unary_cases() {
  return {
      {"abs", [](const Tensor& x) { return x.abs(); }, -2, 2, true},
      {"neg", [](const Tensor& x) { return x.neg(); }, -2, 2, true},
      {"sign", [](const Tensor& x) { return x.sign(); }},
      {"sgn", [](const Tensor& x) { return x.sgn(); }, -2, 2, true},
      {"exp", [](const Tensor& x) { return x.exp(); }, -2, 2, true, true},
      {"exp2", [](const Tensor& x) { return x.exp2(); }, -2, 2, true},
      {"expm1", [](const Tensor& x) { return x.expm1(); }, -2, 2, true},
      {"log", [](const Tensor& x) { return x.log(); }, 0.2, 3, true, true},
      {"log2", [](const Tensor& x) { return x.log2(); }, 0.2, 3, true},
      {"log10", [](const Tensor& x) { return x.log10(); }, 0.2, 3, true},
      {"log1p", [](const Tensor& x) { return x.log1p(); }, -0.5, 2, true},
      {"sqrt", [](const Tensor& x) { return x.sqrt(); }, 0.2, 3, true, true},
      {"rsqrt", [](const Tensor& x) { return x.rsqrt(); }, 0.2, 3, true},
      {"square", [](const Tensor& x) { return x.square(); }, -2, 2, true},
      {"reciprocal", [](const Tensor& x) { return x.reciprocal(); }, 0.2, 3, true, true},
      {"sin", [](const Tensor& x) { return x.sin(); }, -2, 2, true, true},
      {"cos", [](const Tensor& x) { return x.cos(); }, -2, 2, true},
      {"tan", [](const Tensor& x) { return x.tan(); }, -1.2, 1.2, true},
      {"asin", [](const Tensor& x) { return x.asin(); }, -0.9, 0.9, true},
      {"acos", [](const Tensor& x) { return x.acos(); }, -0.9, 0.9, true},
      {"atan", [](const Tensor& x) { return x.atan(); }, -2, 2, true, false, -0.8, 0.8},
      {"sinh", [](const Tensor& x) { return x.sinh(); }, -2, 2, true},
      {"cosh", [](const Tensor& x) { return x.cosh(); }, -2, 2, true},
      {"tanh", [](const Tensor& x) { return x.tanh(); }, -2, 2, true, true},
      {"asinh", [](const Tensor& x) { return x.asinh(); }, -2, 2, true, false, -0.8, 0.8},
      // Complex acosh around the cut of (z^2 - 1)^(-1/2): negative real parts.
      {"acosh", [](const Tensor& x) { return x.acosh(); }, 1.2, 3, true},
      {"atanh", [](const Tensor& x) { return x.atanh(); }, -0.9, 0.9, true},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }, -3, 3, true, true},
      {"relu", [](const Tensor& x) { return x.relu(); }, -2, 2, false, true},
      {"silu", [](const Tensor& x) { return x.silu(); }, -2, 2, true, true},
      {"erf", [](const Tensor& x) { return x.erf(); }, -2, 2, false, true},
      {"erfc", [](const Tensor& x) { return x.erfc(); }},
      {"floor", [](const Tensor& x) { return x.floor(); }},
      {"ceil", [](const Tensor& x) { return x.ceil(); }},
      {"round", [](const Tensor& x) { return x.round(); }},
      {"trunc", [](const Tensor& x) { return x.trunc(); }},
      {"frac", [](const Tensor& x) { return x.frac(); }},
      {"conj", [](const Tensor& x) { return x.conj(); }, -2, 2, true},
      {"angle", [](const Tensor& x) { return x.angle(); }, -2, 2, true},
      {"gelu", [](const Tensor& x) { return x.gelu(); }, -3, 3, false, true},
      {"gelu_tanh", [](const Tensor& x) { return x.gelu("tanh"); }, -3, 3, false, true},
      {"softplus", [](const Tensor& x) { return x.softplus(); }, -3, 3, false, true},
      // beta * x crosses the threshold: both branches.
      {"softplus_beta_threshold", [](const Tensor& x) { return x.softplus(2, 1.5); }, -2, 2, false, true},
      {"clamp", [](const Tensor& x) { return x.clamp(-0.5, 0.8); }, -2, 2, false, true},
      {"clamp_min", [](const Tensor& x) { return x.clamp_min(0.1); }},
      {"clamp_max", [](const Tensor& x) { return x.clamp_max(0.1); }},
      {"nan_to_num", [](const Tensor& x) { return x.nan_to_num(); }, -2, 2, true},
  };
}

TEST(AutogradElementwise, UnaryGradcheck) {
  for (const UnaryCase& c : unary_cases()) {
    SCOPED_TRACE(c.name);
    Tensor x = leaf(spread(c.lo, c.hi));
    EXPECT_TRUE(gradcheck(wrap1(c.fn), {x}));
    // Non-contiguous: a transposed view of the leaf.
    Tensor xt = leaf(spread(c.lo, c.hi, {3, 2}));
    EXPECT_TRUE(gradcheck([&](const variable_list& xs) { return variable_list{c.fn(xs[0].t())}; }, {xt}));
    if (c.gradgrad) {
      EXPECT_TRUE(gradgradcheck(wrap1(c.fn), {x}));
    }
  }
}

TEST(AutogradElementwise, UnaryGradcheckComplex) {
  int n = 0;
  for (const UnaryCase& c : unary_cases()) {
    if (!c.complex) continue;
    SCOPED_TRACE(c.name);
    ++n;
    Tensor z = complex_leaf(c.lo, c.hi, c.ilo, c.ihi);
    EXPECT_TRUE(gradcheck(wrap1(c.fn), {z}));
    if (c.gradgrad) {
      EXPECT_TRUE(gradgradcheck(wrap1(c.fn), {z}));
    }
  }
  EXPECT_GE(n, 30);
}

TEST(AutogradElementwise, ComplexAcoshAndSgnAwayFromTheRealAxis) {
  // acosh: z with negative real part (where 1/sqrt(z^2-1) would pick the wrong branch).
  Tensor z = complex_leaf(-2, -1.2, 0.3, 1.5);
  EXPECT_TRUE(gradcheck(wrap1([](const Tensor& x) { return x.acosh(); }), {z}));
  // abs/sgn/angle of complex: gradgrad away from 0.
  Tensor w = complex_leaf(-2, 2, 0.4, 1.5);
  EXPECT_TRUE(gradgradcheck(wrap1([](const Tensor& x) { return x.abs(); }), {w}));
  EXPECT_TRUE(gradgradcheck(wrap1([](const Tensor& x) { return x.sgn(); }), {w}));
  EXPECT_TRUE(gradgradcheck(wrap1([](const Tensor& x) { return x.angle(); }), {w}));
  // Complex input, real output chained back to complex.
  EXPECT_TRUE(gradcheck(wrap1([](const Tensor& x) { return x.abs() * x; }), {w}));
}

TEST(AutogradElementwise, UnaryValuesMatchFormulas) {
  Tensor x = leaf(spread(0.2, 3));
  x.sqrt().sum().backward();
  expect_tensor_near(x.grad(), x.detach().sqrt().reciprocal() * 0.5);
  Tensor y = leaf(spread(-3, 3));
  y.sigmoid().sum().backward();
  Tensor s = y.detach().sigmoid();
  expect_tensor_near(y.grad(), s * (1 - s));
}

// ---------------------------------------------------------------- binary

struct BinaryCase {
  const char* name;
  Fn2 fn;
  double alo = -2, ahi = 2, blo = -2, bhi = 2;
  bool complex = false;
  bool gradgrad = false;
};

std::vector<BinaryCase> binary_cases() {
  return {
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }, -2, 2, -2, 2, true, true},
      {"add_alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 2.5); }, -2, 2, -2, 2, true},
      {"sub_alpha", [](const Tensor& a, const Tensor& b) { return sub(a, b, -1.5); }, -2, 2, -2, 2, true},
      {"rsub", [](const Tensor& a, const Tensor& b) { return rsub(a, b, 0.5); }, -2, 2, -2, 2, true},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }, -2, 2, -2, 2, true, true},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }, -2, 2, 0.5, 2, true, true},
      {"div_trunc", [](const Tensor& a, const Tensor& b) { return a.div(b, "trunc"); }, -2, 2, 0.5, 2},
      {"div_floor", [](const Tensor& a, const Tensor& b) { return a.div(b, "floor"); }, -2, 2, 0.5, 2},
      {"fmod", [](const Tensor& a, const Tensor& b) { return a.fmod(b); }, -2, 2, 0.5, 2},
      {"remainder", [](const Tensor& a, const Tensor& b) { return a.remainder(b); }, -2, 2, 0.5, 2},
      {"pow", [](const Tensor& a, const Tensor& b) { return a.pow(b); }, 0.5, 2, -2, 2, true, true},
      {"atan2", [](const Tensor& a, const Tensor& b) { return a.atan2(b); }, -2, 2, -2, 2, false, true},
      {"maximum", [](const Tensor& a, const Tensor& b) { return a.maximum(b); }, -2, 2, -2, 2, false, true},
      {"minimum", [](const Tensor& a, const Tensor& b) { return a.minimum(b); }, -2, 2, -2, 2, false, true},
      {"fmax", [](const Tensor& a, const Tensor& b) { return a.fmax(b); }},
      {"fmin", [](const Tensor& a, const Tensor& b) { return a.fmin(b); }},
      {"hypot", [](const Tensor& a, const Tensor& b) { return a.hypot(b); }, -2, 2, -2, 2, false, true},
      {"copysign", [](const Tensor& a, const Tensor& b) { return a.copysign(b); }},
      {"xlogy", [](const Tensor& a, const Tensor& b) { return a.xlogy(b); }, -2, 2, 0.5, 2, false, true},
  };
}

TEST(AutogradElementwise, BinaryGradcheck) {
  for (const BinaryCase& c : binary_cases()) {
    SCOPED_TRACE(c.name);
    // b in the alternate order: the two inputs interleave (no ties for maximum...).
    Tensor a = leaf(spread(c.alo, c.ahi)), b = leaf(spread(c.blo, c.bhi, {2, 3}, true));
    EXPECT_TRUE(gradcheck(wrap2(c.fn), {a, b}));
    // Only one input requiring grad.
    EXPECT_TRUE(gradcheck(wrap2(c.fn), {a, b.detach()}));
    EXPECT_TRUE(gradcheck(wrap2(c.fn), {a.detach(), b}));
    // Broadcasting: b of shape {3} and {1, 3}, and a broadcast against b.
    Tensor b3 = leaf(spread(c.blo, c.bhi, {3}, true));
    EXPECT_TRUE(gradcheck(wrap2(c.fn), {a, b3}));
    Tensor a13 = leaf(spread(c.alo, c.ahi, {1, 3}));
    EXPECT_TRUE(gradcheck(wrap2(c.fn), {a13, b}));
    // Non-contiguous: transposed views.
    Tensor at = leaf(spread(c.alo, c.ahi, {3, 2})), bt = leaf(spread(c.blo, c.bhi, {3, 2}, true));
    EXPECT_TRUE(gradcheck(
        [&](const variable_list& xs) { return variable_list{c.fn(xs[0].t(), xs[1].t())}; }, {at, bt}));
    if (c.gradgrad) {
      EXPECT_TRUE(gradgradcheck(wrap2(c.fn), {a, b}));
    }
  }
}

TEST(AutogradElementwise, BinaryGradcheckComplex) {
  for (const BinaryCase& c : binary_cases()) {
    if (!c.complex) continue;
    SCOPED_TRACE(c.name);
    Tensor a = complex_leaf(c.alo, c.ahi), b = complex_leaf(c.blo, c.bhi, -1, 1, {2, 3}, true);
    EXPECT_TRUE(gradcheck(wrap2(c.fn), {a, b}));
    // Mixed real/complex operands: the real input gets the real part.
    EXPECT_TRUE(gradcheck(wrap2(c.fn), {a, leaf(spread(c.blo, c.bhi, {3}, true))}));
    if (c.gradgrad) {
      EXPECT_TRUE(gradgradcheck(wrap2(c.fn), {a, b}));
    }
  }
  Tensor a = complex_leaf(-2, 2), b = complex_leaf(-2, 2, -1, 1, {2, 3}, true);
  EXPECT_TRUE(gradcheck(wrap2([](const Tensor& x, const Tensor& y) {
    return add(x, y, Scalar(complex128(0.5, -2)));
  }), {a, b}));
}

TEST(AutogradElementwise, ScalarOperands) {
  Tensor x = leaf(spread(0.5, 2));
  const std::vector<std::pair<const char*, Fn1>> cases = {
      {"pow_2.5", [](const Tensor& t) { return t.pow(2.5); }},
      {"pow_3", [](const Tensor& t) { return t.pow(3); }},
      {"pow_-1.5", [](const Tensor& t) { return t.pow(-1.5); }},
      {"pow_0", [](const Tensor& t) { return t.pow(0); }},
      {"scalar_pow", [](const Tensor& t) { return pow(2.5, t); }},
      {"div_scalar", [](const Tensor& t) { return t / 3; }},
      {"rdiv_scalar", [](const Tensor& t) { return 3 / t; }},
      {"sub_scalar", [](const Tensor& t) { return 3 - t; }},
      {"fmod_scalar", [](const Tensor& t) { return t.fmod(0.7); }},
      {"remainder_scalar", [](const Tensor& t) { return t.remainder(0.7); }},
      {"xlogy_scalar", [](const Tensor& t) { return t.xlogy(2.0); }},
      {"copysign_scalar", [](const Tensor& t) { return t.copysign(-1.0); }},
      {"atan2_scalar", [](const Tensor& t) { return t.atan2(0.5); }},
      {"maximum_scalar", [](const Tensor& t) { return t.maximum(scalar_tensor(1.1, kFloat64)); }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(gradcheck(wrap1(fn), {x}));
    EXPECT_TRUE(gradgradcheck(wrap1(fn), {x}));
  }
  // Complex tensor ** number.
  Tensor w = complex_leaf(0.5, 2);
  EXPECT_TRUE(gradcheck(wrap1([](const Tensor& t) { return t.pow(2); }), {w}));
  EXPECT_TRUE(gradcheck(wrap1([](const Tensor& t) { return t.pow(-0.5); }), {w}));
  EXPECT_TRUE(gradcheck(wrap1([](const Tensor& t) { return pow(2.0, t); }), {w}));
}

TEST(AutogradElementwise, FloorDivideAndComparisonsAreNotDifferentiable) {
  Tensor a = leaf(spread(-2, 2)), b = spread(0.5, 2, {2, 3}, true);
  EXPECT_FALSE(a.floor_divide(b).requires_grad());
  EXPECT_FALSE(floor_divide(a, 2.0).requires_grad());
  EXPECT_FALSE((a < b).requires_grad());
  EXPECT_FALSE(a.isnan().requires_grad());
  EXPECT_FALSE(a.signbit().requires_grad());
  // out= of a non-differentiable op takes inputs that require grad (as PyTorch);
  // a differentiable one does not.
  Tensor mask = empty({2, 3}, kBool);
  eq_out(mask, a, b);
  expect_tensor_near(mask, eq(a.detach(), b));
  Tensor q = empty({2, 3}, kFloat64);
  floor_divide_out(q, a, b);
  EXPECT_FALSE(q.requires_grad());
  expect_error([&] { exp_out(q, a); }, "don't support automatic differentiation");
  expect_error([&] { mul_out(q, a, b); }, "don't support automatic differentiation");
  expect_error([&] { clamp_out(q, a, 0, 1); }, "don't support automatic differentiation");
  expect_error([&] { gelu_out(q, a); }, "don't support automatic differentiation");
  expect_error([&] { addcmul_out(q, a, b, b); }, "don't support automatic differentiation");
  // div with a rounding mode: recorded, zero gradients.
  Tensor d = a.div(b, "floor");
  EXPECT_TRUE(d.requires_grad());
  d.sum().backward();
  expect_tensor_near(a.grad(), zeros({2, 3}, kFloat64));
}

// ---------------------------------------------------------------- ternary and friends

struct TernaryCase {
  const char* name;
  std::function<Tensor(const variable_list&)> fn;
  variable_list inputs;
  bool gradgrad = false;
};

std::vector<TernaryCase> ternary_cases() {
  Tensor a = leaf(spread(-2, 2)), b = leaf(spread(-2, 2, {2, 3}, true));
  Tensor b3 = leaf(spread(-2, 2, {3}, true)), c3 = leaf(spread(0.5, 2, {3}));
  Tensor w = leaf(spread(0, 1, {2, 3}, true)), w1 = leaf(spread(0, 1, {1}));
  Tensor v = leaf(tensor(std::vector<double>{0.25}, kFloat64).reshape({}));
  Tensor cond = values({1, 0, 0, 1, 1, 0}).to(kBool).reshape({2, 3});
  Tensor cond3 = values({1, 0, 1}).to(kBool);
  return {
      {"where", [cond](const variable_list& x) { return where(cond, x[0], x[1]); }, {a, b}, true},
      {"where_broadcast", [cond](const variable_list& x) { return where(cond, x[0], x[1]); }, {b3, a}, true},
      {"where_scalar", [cond3](const variable_list& x) { return where(cond3, 1.5, x[0]); }, {a}},
      {"where_scalar_other", [cond](const variable_list& x) { return where(cond, x[0], 2.0); }, {b3}},
      {"lerp_scalar", [](const variable_list& x) { return x[0].lerp(x[1], 0.3); }, {a, b}, true},
      {"lerp_tensor", [](const variable_list& x) { return x[0].lerp(x[1], x[2]); }, {a, b, w}, true},
      {"lerp_tensor_broadcast", [](const variable_list& x) { return x[0].lerp(x[1], x[2]); }, {a, b3, w1}},
      {"addcmul", [](const variable_list& x) { return x[0].addcmul(x[1], x[2], 0.7); }, {a, b, c3}, true},
      {"addcmul_broadcast", [](const variable_list& x) { return x[0].addcmul(x[1], x[2]); }, {b3, a, w1}},
      {"addcdiv", [](const variable_list& x) { return x[0].addcdiv(x[1], x[2], -1.3); }, {a, b, c3}, true},
      {"masked_fill", [cond](const variable_list& x) { return x[0].masked_fill(cond, 0.5); }, {a}, true},
      {"masked_fill_broadcast_mask", [cond3](const variable_list& x) { return x[0].masked_fill(cond3, -1.0); }, {a}},
      {"masked_fill_tensor_value", [cond](const variable_list& x) { return x[0].masked_fill(cond, x[1]); },
       {a, v}, true},
      // lo < x < hi, x < lo and x > hi all occur (no ties).
      {"clamp_tensor", [](const variable_list& x) { return x[0].clamp(x[1] - 1.1, x[2] + 0.05); }, {a, b, c3}, true},
      {"clamp_tensor_min", [](const variable_list& x) { return x[0].clamp(x[1], Tensor()); }, {a, b}},
      {"clamp_tensor_max", [](const variable_list& x) { return x[0].clamp(Tensor(), x[1]); }, {a, b3}},
  };
}

TEST(AutogradElementwise, TernaryGradcheck) {
  for (const TernaryCase& c : ternary_cases()) {
    SCOPED_TRACE(c.name);
    auto f = [&c](const variable_list& xs) { return variable_list{c.fn(xs)}; };
    EXPECT_TRUE(gradcheck(f, c.inputs));
    // Each input alone.
    for (size_t i = 0; i < c.inputs.size() && c.inputs.size() > 1; ++i) {
      variable_list only;
      for (size_t j = 0; j < c.inputs.size(); ++j) only.push_back(j == i ? c.inputs[j] : c.inputs[j].detach());
      EXPECT_TRUE(gradcheck(f, only));
    }
    if (c.gradgrad) {
      EXPECT_TRUE(gradgradcheck(f, c.inputs));
    }
  }
}

TEST(AutogradElementwise, TernaryGradcheckComplex) {
  Tensor a = complex_leaf(-2, 2), b = complex_leaf(-2, 2, -1, 1, {2, 3}, true);
  Tensor c = complex_leaf(0.5, 2, 0.2, 1, {3});
  Tensor w = complex_leaf(0, 1, -0.5, 0.5, {2, 3}, true);
  Tensor cond = values({1, 0, 0, 1, 1, 0}).to(kBool).reshape({2, 3});
  auto check = [](const char* name, std::function<Tensor(const variable_list&)> fn, const variable_list& xs) {
    SCOPED_TRACE(name);
    auto f = [fn](const variable_list& ys) { return variable_list{fn(ys)}; };
    EXPECT_TRUE(gradcheck(f, xs));
    EXPECT_TRUE(gradgradcheck(f, xs));
  };
  check("where", [cond](const variable_list& x) { return where(cond, x[0], x[1]); }, {a, b});
  check("lerp_scalar", [](const variable_list& x) { return x[0].lerp(x[1], 0.3); }, {a, b});
  check("lerp_tensor", [](const variable_list& x) { return x[0].lerp(x[1], x[2]); }, {a, b, w});
  check("addcmul", [](const variable_list& x) { return x[0].addcmul(x[1], x[2], Scalar(complex128(0.5, 1))); },
        {a, b, c});
  check("addcdiv", [](const variable_list& x) { return x[0].addcdiv(x[1], x[2], 0.7); }, {a, b, c});
  check("masked_fill", [cond](const variable_list& x) { return x[0].masked_fill(cond, Scalar(complex128(1, 2))); },
        {a});
}

// ---------------------------------------------------------------- in-place variants

TEST(AutogradElementwise, InPlaceVariants) {
  Tensor a = leaf(spread(0.2, 2)), b = leaf(spread(0.5, 2, {2, 3}, true)), c3 = leaf(spread(0.5, 2, {3}));
  Tensor cond = values({1, 0, 0, 1, 1, 0}).to(kBool).reshape({2, 3});
  using Inplace = std::function<void(Tensor&, const variable_list&)>;
  const std::vector<std::pair<const char*, Inplace>> cases = {
      {"exp_", [](Tensor& y, const variable_list&) { y.exp_(); }},
      {"log_", [](Tensor& y, const variable_list&) { y.log_(); }},
      {"sqrt_", [](Tensor& y, const variable_list&) { y.sqrt_(); }},
      {"tanh_", [](Tensor& y, const variable_list&) { y.tanh_(); }},
      {"sigmoid_", [](Tensor& y, const variable_list&) { y.sigmoid_(); }},
      {"abs_", [](Tensor& y, const variable_list&) { y.abs_(); }},
      {"relu_", [](Tensor& y, const variable_list&) { y.sub_(1).relu_(); }},
      {"clamp_", [](Tensor& y, const variable_list&) { y.clamp_(0.5, 1.5); }},
      {"mul_", [](Tensor& y, const variable_list& x) { y.mul_(x[1]); }},
      {"div_", [](Tensor& y, const variable_list& x) { y.div_(x[1]); }},
      {"pow_", [](Tensor& y, const variable_list& x) { y.pow_(x[1]); }},
      {"pow_scalar_", [](Tensor& y, const variable_list&) { y.pow_(1.5); }},
      {"atan2_", [](Tensor& y, const variable_list& x) { y.atan2_(x[1]); }},
      {"maximum_", [](Tensor& y, const variable_list& x) { y.maximum_(x[1]); }},
      {"hypot_", [](Tensor& y, const variable_list& x) { y.hypot_(x[1]); }},
      {"xlogy_", [](Tensor& y, const variable_list& x) { y.xlogy_(x[1]); }},
      {"addcmul_", [](Tensor& y, const variable_list& x) { y.addcmul_(x[1], x[2], 0.5); }},
      {"addcdiv_", [](Tensor& y, const variable_list& x) { y.addcdiv_(x[1], x[2], 0.5); }},
      {"masked_fill_", [cond](Tensor& y, const variable_list&) { y.masked_fill_(cond, 2.0); }},
      {"masked_fill_tensor_", [cond](Tensor& y, const variable_list& x) { y.masked_fill_(cond, x[2].sum()); }},
  };
  for (const auto& [name, op] : cases) {
    SCOPED_TRACE(name);
    auto f = [op = op](const variable_list& xs) {
      Tensor y = xs[0] * 1;
      op(y, xs);
      return variable_list{y};
    };
    EXPECT_TRUE(gradcheck(f, {a, b, c3}));
  }
  // In-place on a view of a non-leaf: the base's gradient goes through the view.
  auto through_view = [](const variable_list& xs) {
    Tensor y = xs[0] * 1;
    y.select(0, 1).exp_();
    y.narrow(1, 0, 2).mul_(xs[1].narrow(1, 1, 2));
    return variable_list{y};
  };
  EXPECT_TRUE(gradcheck(through_view, {a, b}));
  // The node of the out-of-place op, under the copy.
  Tensor y = a * 1;
  y.exp_();
  y.sum().backward();
  expect_tensor_near(a.grad(), a.detach().exp());
  // A leaf that requires grad cannot be written in place.
  expect_error([&] { a.exp_(); }, "leaf Variable");
  expect_error([&] { a.clamp_(0, 1); }, "leaf Variable");
  expect_error([&] { a.addcmul_(b, b); }, "leaf Variable");
  expect_error([&] { a.masked_fill_(cond, 0.0); }, "leaf Variable");
  // Writing a tensor that does not require grad with one that does gives it history.
  Tensor z = spread(0.2, 2);
  z.mul_(b);
  EXPECT_TRUE(z.requires_grad());
  z.sum().backward();
  expect_tensor_near(b.grad(), spread(0.2, 2));
}

// ---------------------------------------------------------------- names, zero-size, kinks

TEST(AutogradElementwise, GradFnNames) {
  Tensor x = leaf(spread(0.5, 2)), y = leaf(spread(0.5, 2, {2, 3}, true));
  Tensor cond = values({1, 0, 0, 1, 1, 0}).to(kBool).reshape({2, 3});
  EXPECT_EQ(x.exp().grad_fn()->name(), "ExpBackward0");
  EXPECT_EQ(x.pow(2).grad_fn()->name(), "PowBackward0");
  EXPECT_EQ(x.pow(y).grad_fn()->name(), "PowBackward0");
  EXPECT_EQ(x.sigmoid().grad_fn()->name(), "SigmoidBackward0");
  EXPECT_EQ(x.gelu("tanh").grad_fn()->name(), "GeluBackward0");
  EXPECT_EQ(x.softplus().grad_fn()->name(), "SoftplusBackward0");
  EXPECT_EQ(x.atan2(y).grad_fn()->name(), "Atan2Backward0");
  EXPECT_EQ(x.maximum(y).grad_fn()->name(), "MaximumBackward0");
  EXPECT_EQ(x.xlogy(y).grad_fn()->name(), "XlogyBackward0");
  EXPECT_EQ(x.clamp(0, 1).grad_fn()->name(), "ClampBackward0");
  EXPECT_EQ(x.clamp_min(0).grad_fn()->name(), "ClampMinBackward0");
  EXPECT_EQ(x.clamp_max(0).grad_fn()->name(), "ClampMaxBackward0");
  EXPECT_EQ(x.clamp(y, Tensor()).grad_fn()->name(), "ClampMinBackward0");
  EXPECT_EQ(where(cond, x, y).grad_fn()->name(), "WhereBackward0");
  EXPECT_EQ(x.masked_fill(cond, 0).grad_fn()->name(), "MaskedFillBackward0");
  EXPECT_EQ(x.addcmul(x, y).grad_fn()->name(), "AddcmulBackward0");
  EXPECT_EQ(x.addcdiv(x, y).grad_fn()->name(), "AddcdivBackward0");
  EXPECT_EQ(x.lerp(y, 0.5).grad_fn()->name(), "LerpBackward0");
  EXPECT_EQ(x.nan_to_num().grad_fn()->name(), "NanToNumBackward0");
  EXPECT_EQ(x.angle().grad_fn()->name(), "AngleBackward0");
  EXPECT_EQ(x.floor().grad_fn()->name(), "FloorBackward0");
  EXPECT_EQ(x.div(y, "trunc").grad_fn()->name(), "DivBackward0");
  // Integer-valued inputs never require grad: nothing is recorded.
  EXPECT_FALSE(arange(3).exp().requires_grad());
}

TEST(AutogradElementwise, ZeroSizeInputs) {
  Tensor x = leaf(empty({0, 3}, kFloat64)), y = leaf(empty({3}, kFloat64).fill_(1.5));
  std::vector<Fn1> ops = {
      [](const Tensor& t) { return t.exp(); },     [](const Tensor& t) { return t.relu(); },
      [](const Tensor& t) { return t.clamp(0, 1); }, [](const Tensor& t) { return t.gelu(); },
      [](const Tensor& t) { return t.softplus(); }, [](const Tensor& t) { return t.abs(); },
  };
  for (const Fn1& f : ops) {
    x.mutable_grad() = Tensor();
    f(x).sum().backward();
    ASSERT_TRUE(x.grad().defined());
    EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 3}));
  }
  x.mutable_grad() = Tensor();
  (x * y).pow(y).sum().backward();
  EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 3}));
  expect_tensor_near(y.grad(), zeros({3}, kFloat64));
  EXPECT_TRUE(gradcheck(wrap2([](const Tensor& a, const Tensor& b) { return a.atan2(b); }), {x, y}));
}

TEST(AutogradElementwise, KinksFollowPyTorch) {
  auto grads = [](const Fn1& f, std::initializer_list<double> v) {
    Tensor x = grad_leaf(v);
    f(x).sum().backward();
    return x.grad();
  };
  // relu'(0) = 0, abs'(0) = 0, sign/round: zero everywhere.
  expect_tensor_near(grads([](const Tensor& x) { return x.relu(); }, {-1, 0, 2}), values({0, 0, 1}));
  expect_tensor_near(grads([](const Tensor& x) { return x.abs(); }, {-1, 0, 2}), values({-1, 0, 1}));
  expect_tensor_near(grads([](const Tensor& x) { return x.sign(); }, {-1, 0, 2}), values({0, 0, 0}));
  // clamp: the bounds pass the gradient, NaN does not.
  expect_tensor_near(grads([](const Tensor& x) { return x.clamp(0, 1); }, {-1, 0, 0.5, 1, 2, kNaN}),
                     values({0, 1, 1, 1, 0, 0}));
  expect_tensor_near(grads([](const Tensor& x) { return x.clamp_min(0); }, {-1, 0, 2}), values({0, 1, 1}));
  expect_tensor_near(grads([](const Tensor& x) { return x.clamp_max(0); }, {-1, 0, 2}), values({1, 1, 0}));
  // sqrt at 0: inf; nan_to_num: 0 where not finite.
  expect_tensor_near(grads([](const Tensor& x) { return x.sqrt(); }, {0}), values({kInf}));
  expect_tensor_near(grads([](const Tensor& x) { return x.nan_to_num(); }, {1, kNaN, kInf}), values({1, 0, 0}));
  // softplus(beta=2, threshold=3): sigmoid(2x), 1 beyond the threshold.
  expect_tensor_near(grads([](const Tensor& x) { return x.softplus(2, 3); }, {1, 1.5, 2}),
                     values({0.8807970779778824, 0.9525741268224333, 1.0}));

  auto grads2 = [](const Fn2& f, std::initializer_list<double> a, std::initializer_list<double> b) {
    Tensor x = grad_leaf(a), y = grad_leaf(b);
    f(x, y).sum().backward();
    return std::make_pair(x.grad(), y.grad());
  };
  // maximum/minimum: ties split evenly, NaN gives both the gradient.
  auto [mx_a, mx_b] = grads2([](const Tensor& a, const Tensor& b) { return a.maximum(b); }, {1, 2, 3, kNaN, 1},
                             {2, 2, 1, 1, kNaN});
  expect_tensor_near(mx_a, values({0, 0.5, 1, 1, 1}));
  expect_tensor_near(mx_b, values({1, 0.5, 0, 1, 1}));
  auto [mn_a, mn_b] = grads2([](const Tensor& a, const Tensor& b) { return a.minimum(b); }, {1, 2, 3, kNaN, 1},
                             {2, 2, 1, 1, kNaN});
  expect_tensor_near(mn_a, values({1, 0.5, 0, 1, 1}));
  expect_tensor_near(mn_b, values({0, 0.5, 1, 1, 1}));
  // fmax/fmin: ties to the first input, a NaN side passes to the other.
  auto [fx_a, fx_b] = grads2([](const Tensor& a, const Tensor& b) { return a.fmax(b); }, {1, 2, 3, kNaN, 1},
                             {2, 2, 1, 1, kNaN});
  expect_tensor_near(fx_a, values({0, 1, 1, 0, 1}));
  expect_tensor_near(fx_b, values({1, 0, 0, 1, 0}));
  auto [fn_a, fn_b] = grads2([](const Tensor& a, const Tensor& b) { return a.fmin(b); }, {1, 2, 3, kNaN, 1},
                             {2, 2, 1, 1, kNaN});
  expect_tensor_near(fn_a, values({1, 1, 0, 0, 1}));
  expect_tensor_near(fn_b, values({0, 0, 1, 1, 0}));
  // clamp with tensor bounds, including min > max (the result is max).
  {
    Tensor x = grad_leaf({-1, 0, 0.5, 1, 2, 0.5}), lo = grad_leaf({0, 0, 0, 0, 0, 1}),
           hi = grad_leaf({1, 1, 1, 1, 1, 0});
    x.clamp(lo, hi).sum().backward();
    expect_tensor_near(x.grad(), values({0, 1, 1, 1, 0, 0}));
    expect_tensor_near(lo.grad(), values({1, 0, 0, 0, 0, 0}));
    expect_tensor_near(hi.grad(), values({0, 0, 0, 0, 1, 1}));
  }
  // pow at 0 (tensor ** tensor): d/dbase is 0 for exponent 0; d/dexponent is 0
  // where base == 0 and exponent >= 0, else result * log(base).
  auto [pw_a, pw_b] = grads2([](const Tensor& a, const Tensor& b) { return a.pow(b); }, {0, 0, 0, 2, 0, 0},
                             {0, 1, 2, 0, -1, 0.5});
  expect_tensor_near(pw_a, values({0, 1, 0, 0, -kInf, kInf}));
  expect_tensor_near(pw_b, values({0, 0, 0, std::log(2.0), -kInf, 0}));
  expect_tensor_near(grads([](const Tensor& x) { return x.pow(0); }, {0, 2}), values({0, 0}));
  expect_tensor_near(grads([](const Tensor& x) { return pow(0.0, x); }, {0, 2, -1}), values({0, 0, -kInf}));
  // xlogy: d/dx is 0 at x == 0 and y <= 0.
  auto [xl_a, xl_b] = grads2([](const Tensor& a, const Tensor& b) { return a.xlogy(b); }, {0, 0, 1}, {0, -1, 2});
  expect_tensor_near(xl_a, values({0, 0, std::log(2.0)}));
  expect_tensor_near(xl_b, values({kNaN, 0, 0.5}));
  // copysign: 0 at x == 0 (either sign); nothing flows to the sign source.
  auto [cs_a, cs_b] = grads2([](const Tensor& a, const Tensor& b) { return a.copysign(b); }, {0, -0.0, 1, -2},
                             {1, -1, -1, 2});
  expect_tensor_near(cs_a, values({0, 0, -1, -1}));
  expect_tensor_near(cs_b, values({0, 0, 0, 0}));
  // hypot at (0, 0): 0/0.
  auto [hy_a, hy_b] = grads2([](const Tensor& a, const Tensor& b) { return a.hypot(b); }, {3, 0}, {4, 0});
  expect_tensor_near(hy_a, values({0.6, kNaN}));
  expect_tensor_near(hy_b, values({0.8, kNaN}));
  // Complex sgn/abs/angle at 0: zero gradient.
  {
    Tensor z = zeros({2}, kComplex128).requires_grad_();
    (z.abs().sum() + z.angle().sum()).backward();
    expect_tensor_near(z.grad(), zeros({2}, kComplex128));
    Tensor w = zeros({1}, kComplex128).requires_grad_();
    w.sgn().abs().sum().backward();
    EXPECT_EQ(w.sgn().grad_fn()->name(), "SgnBackward0");
  }
}

// Complex gradients against values from torch 1.13 (the conjugate Wirtinger
// convention end to end, through real-valued losses).
TEST(AutogradElementwise, ComplexValuesMatchPyTorch) {
  auto c1 = [](double re, double im) {
    return tensor(std::vector<double>{re}, kFloat64).to(kComplex128) +
           tensor(std::vector<double>{im}, kFloat64).to(kComplex128) * Scalar(complex128(0, 1));
  };
  auto grad_at = [&](const Fn1& f, double re, double im) {
    Tensor z = c1(re, im).requires_grad_();
    f(z).sum().backward();
    return z.grad();
  };
  const Tensor k = c1(1, -1), w = c1(0.5, 1), e = c1(1.5, -0.5);
  expect_tensor_near(grad_at([](const Tensor& z) { return z.exp().abs(); }, 1, 2), c1(2.7182818284590446, 0));
  expect_tensor_near(grad_at([](const Tensor& z) { return z.abs(); }, 3, 4), c1(0.6, 0.8));
  expect_tensor_near(grad_at([](const Tensor& z) { return z.angle(); }, 3, 4), c1(-0.16, 0.12));
  expect_tensor_near(grad_at([&](const Tensor& z) { return (z.sgn() * k).abs(); }, 3, 4), c1(0, 0));
  expect_tensor_near(grad_at([](const Tensor& z) { return (z.sgn() * 2).angle(); }, 3, 4), c1(-0.16, 0.12));
  expect_tensor_near(grad_at([&](const Tensor& z) { return (z.log() * w).abs(); }, 1, 1),
                     c1(-0.2857544169207238, 0.7371189952852233));
  expect_tensor_near(grad_at([&](const Tensor& z) { return z.pow(e).abs(); }, 1, 1),
                     c1(1.245344609703686, 2.490689219407372));
  expect_tensor_near(grad_at([](const Tensor& z) { return z.acosh().abs(); }, -2, 0.5),
                     c1(-0.37291830277427096, -0.3937229842077806));
}

// Formulas whose gradient is the incoming one (add, frac...) hand back the
// grad_output itself: gradgradcheck then differentiates a leaf w.r.t. leaves.
TEST(AutogradElementwise, GradOfALeafRoot) {
  Tensor a = grad_leaf({1, 2}), v = grad_leaf({3, 4});
  variable_list g = autograd::grad({v}, {a, v}, {values({1, 0})}, true, false, /*allow_unused=*/true);
  EXPECT_FALSE(g[0].defined());
  expect_tensor_near(g[1], values({1, 0}));
  expect_tensor_near(autograd::grad({a}, {a}, {values({0, 1})})[0], values({0, 1}));
}

TEST(AutogradElementwise, DoubleBackwardValues) {
  // d2/dx2 of tanh = -2 tanh (1 - tanh^2); of gelu at 0: 2 pdf(0).
  Tensor x = grad_leaf({0.3, -0.7});
  Tensor g = autograd::grad({x.tanh().sum()}, {x}, {}, true, true)[0];
  Tensor gg = autograd::grad({g.sum()}, {x})[0];
  Tensor t = x.detach().tanh();
  expect_tensor_near(gg, t * (1 - t * t) * -2);
  Tensor z = grad_leaf({0.0});
  Tensor gz = autograd::grad({z.gelu().sum()}, {z}, {}, true, true)[0];
  expect_tensor_near(gz, values({0.5}));
  expect_tensor_near(autograd::grad({gz.sum()}, {z})[0], values({2 / std::sqrt(2 * M_PI)}));
}

}  // namespace autograd_elementwise_test
}  // namespace ember
