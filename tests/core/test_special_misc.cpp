// ember::special logistic / log / sinc / entropy / rounding / softmax family
// against mpmath (fixtures from scripts/fixtures/special_misc.py, correctly
// rounded true values): max ULP per function and dtype printed and bounded
// (this covers the core ops the aliases delegate to: sigmoid, exp2, expm1,
// log1p, xlogy, softmax, log_softmax, logsumexp); torch's edge values
// exactly; round(decimals) as PyTorch computes it; gradcheck.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>
#include <ember/special.h>

#include "special_ulp.h"
#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace special_misc_test {

using testing::kTightGradcheck;
namespace S = ember::special;
using testing::check_ulp;
using testing::expect_error;
using testing::expect_values;
using testing::values_of;
using V = autograd::variable_list;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor fx(const std::string& name) { return testing::fixture("special_misc", name); }
Tensor t64(std::vector<double> v) { return tensor(v, kFloat64); }

using Unary = std::function<Tensor(const Tensor&)>;
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

void check_unary(const std::string& name, const Unary& f, double bound64, double bound32) {
  const Tensor x = fx(name + "_x");
  check_ulp(name + " float64", f(x), fx(name + "_y64"), bound64, x);
  const Tensor x32 = x.to(kFloat32);
  check_ulp(name + " float32", f(x32), fx(name + "_y32"), bound32, x32);
}

void check_binary(const std::string& name, const Binary& f, double bound64, double bound32) {
  const Tensor a = fx(name + "_a"), b = fx(name + "_b");
  check_ulp(name + " float64", f(a, b), fx(name + "_y64"), bound64);
  check_ulp(name + " float32", f(a.to(kFloat32), b.to(kFloat32)), fx(name + "_y32"), bound32);
}

// ---- accuracy (measured: docs/special.md; bounds leave ~1 ULP for other libms) ----

// Regression: sigmoid(x) was 1 / (1 + exp(-x)), 0 below x ~ -709.8 (double)
// and -88.7 (float) where the true value is still a (subnormal) number.
TEST(SpecialMiscAccuracy, Expit) { check_unary("expit", S::expit, 2, 3); }
TEST(SpecialMiscAccuracy, Exp2) { check_unary("exp2", S::exp2, 1, 1); }
TEST(SpecialMiscAccuracy, Expm1) { check_unary("expm1", S::expm1, 1, 1); }
TEST(SpecialMiscAccuracy, Log1p) { check_unary("log1p", S::log1p, 1, 1); }
TEST(SpecialMiscAccuracy, Sinc) { check_unary("sinc", S::sinc, 1, 1); }
TEST(SpecialMiscAccuracy, Entr) { check_unary("entr", S::entr, 1, 1); }
TEST(SpecialMiscAccuracy, Logit) { check_unary("logit", [](const Tensor& x) { return S::logit(x); }, 1, 1); }
TEST(SpecialMiscAccuracy, Xlogy) {
  check_binary("xlogy", [](const Tensor& a, const Tensor& b) { return S::xlogy(a, b); }, 2, 2);
}
TEST(SpecialMiscAccuracy, Xlog1py) {
  check_binary("xlog1py", [](const Tensor& a, const Tensor& b) { return S::xlog1py(a, b); }, 1, 1);
}

// Rows of scales 1e-3 .. 3000 and one with -inf entries, along dim 1 (the
// contiguous-row kernel) and along dim 0 of the transpose (the inner-lanes
// kernel). Regression: log_softmax was (x - max) - log(sum), 1e15 ULP off
// for results near 0; softmax lost |x - max| 2^-53 to the shift.
TEST(SpecialMiscAccuracy, SoftmaxFamily) {
  const Tensor x = fx("red_x");
  for (const DType dt : {kFloat64, kFloat32}) {
    const std::string d = dt == kFloat64 ? " float64" : " float32";
    const std::string y = dt == kFloat64 ? "_y64" : "_y32";
    const Tensor xs = x.to(dt), xt = xs.t().contiguous();
    const double b = dt == kFloat64 ? 2 : 4;
    // float32 softmax keeps the rounding error of x - max (|x - max| 2^-24
    // relative: 53 ULP at x - max ~ -72 here, as torch's 53); double compensates it.
    const double bs = dt == kFloat64 ? 2 : 64;
    check_ulp("softmax" + d, S::softmax(xs, 1), fx("softmax" + y), bs);
    check_ulp("softmax (inner)" + d, S::softmax(xt, 0).t().contiguous(), fx("softmax" + y), bs);
    check_ulp("log_softmax" + d, S::log_softmax(xs, 1), fx("log_softmax" + y), b);
    check_ulp("log_softmax (inner)" + d, S::log_softmax(xt, 0).t().contiguous(), fx("log_softmax" + y), b);
    check_ulp("logsumexp" + d, S::logsumexp(xs, {1}), fx("logsumexp" + y), b);
  }
  // 16-bit floats compute in float: close to the float64 result.
  const Tensor h = x.narrow(0, 0, 3).to(kBFloat16);
  EXPECT_TRUE(allclose(S::softmax(h, 1).to(kFloat64), S::softmax(h.to(kFloat64), 1), 1e-2, 1e-3));
  EXPECT_TRUE(allclose(S::log_softmax(h.t().contiguous(), 0).t().to(kFloat64),
                       S::log_softmax(h.to(kFloat64), 1), 1e-2, 1e-2));
}

// ---- edge values (torch.special's, checked with torch) ----

TEST(SpecialMiscValues, UnaryEdges) {
  for (const DType dt : {kFloat64, kFloat32}) {
    SCOPED_TRACE(dt);
    const Tensor x = t64({0.0, -0.0, kInf, -kInf, kNaN, 1.0, -1.0}).to(dt);
    expect_values(S::expit(x), {0.5, 0.5, 1, 0, kNaN, 1 / (1 + std::exp(-1.0)), 1 / (1 + std::exp(1.0))});
    expect_values(S::sinc(x), {1, 1, kNaN, kNaN, kNaN, 0, 0});  // exact zeros at the integers
    expect_values(S::entr(x), {0, 0, -kInf, -kInf, kNaN, -0.0, -kInf});
    expect_values(S::logit(x), {-kInf, -kInf, kNaN, kNaN, kNaN, kInf, kNaN});
    expect_values(S::exp2(x), {1, 1, kInf, 0, kNaN, 2, 0.5});
    expect_values(S::expm1(x).narrow(0, 0, 5), {0, -0.0, kInf, -1, kNaN});
    expect_values(S::log1p(x).narrow(0, 0, 5), {0, -0.0, kInf, kNaN, kNaN});
    EXPECT_EQ(S::log1p(x)[6].item<double>(), -kInf);
  }
  // Subnormal results where the old sigmoid gave 0.
  EXPECT_GT(S::expit(t64({-740.0})).item<double>(), 0.0);
  EXPECT_GT(S::expit(tensor({-100.0f})).item<float>(), 0.0f);
  EXPECT_EQ(S::expit(t64({-746.0})).item<double>(), 0.0);
  expect_values(S::sinc(t64({1e300, -7.0, 0.5, -2.5})), {0, 0, M_2_PI, M_2_PI / 5});
}

TEST(SpecialMiscValues, LogitEps) {
  // torch.special.logit(x, eps): clamped to [eps, 1 - eps] first; nan stays.
  const Tensor x = tensor({0.0f, 1.0f, 0.5f, -1.0f, 2.0f, std::nanf("")});
  const float hi = 1.0f - 0.1f;
  const float l = static_cast<float>(std::log(0.1 / 0.9)), h = static_cast<float>(std::log(double(hi) / (1 - double(hi))));
  const std::vector<double> got = values_of(S::logit(x, 0.1));
  EXPECT_NEAR(got[0], l, 1e-6);
  EXPECT_NEAR(got[1], h, 1e-6);
  EXPECT_EQ(got[2], 0.0);
  EXPECT_EQ(got[3], got[0]);
  EXPECT_EQ(got[4], got[1]);
  EXPECT_TRUE(std::isnan(got[5]));
  expect_values(S::logit(t64({0.0, 1.0}), 0.0), {-kInf, kInf});
}

TEST(SpecialMiscValues, XlogyXlog1pyTables) {
  // Rows x = 0, 1, -1, inf, nan against y = 0, -1, inf, -inf, nan, 1 (torch 1.13's outputs).
  const Tensor y = t64({0, -1, kInf, -kInf, kNaN, 1});
  const std::vector<std::pair<double, std::pair<std::vector<double>, std::vector<double>>>> rows = {
      {0.0, {{0, 0, 0, 0, kNaN, 0}, {0, 0, 0, 0, kNaN, 0}}},
      {1.0, {{-kInf, kNaN, kInf, kNaN, kNaN, 0}, {0, -kInf, kInf, kNaN, kNaN, M_LN2}}},
      {-1.0, {{kInf, kNaN, -kInf, kNaN, kNaN, -0.0}, {-0.0, kInf, -kInf, kNaN, kNaN, -M_LN2}}},
      {kInf, {{-kInf, kNaN, kInf, kNaN, kNaN, kNaN}, {kNaN, -kInf, kInf, kNaN, kNaN, kInf}}},
      {kNaN, {{kNaN, kNaN, kNaN, kNaN, kNaN, kNaN}, {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN}}},
  };
  for (const auto& [xv, expected] : rows) {
    SCOPED_TRACE(xv);
    const Tensor x = full_like(y, xv);
    expect_values(S::xlogy(x, y), expected.first);
    expect_values(S::xlog1py(x, y), expected.second);
  }
  // Scalar forms.
  testing::expect_tensor_near(S::xlog1py(Scalar(2.0), y), S::xlog1py(full_like(y, 2.0), y), 0, 0);
  testing::expect_tensor_near(S::xlog1py(y, Scalar(1.0)), S::xlog1py(y, full_like(y, 1.0)), 0, 0);
  testing::expect_tensor_near(S::xlogy(Scalar(2.0), y), S::xlogy(full_like(y, 2.0), y), 0, 0);
}

TEST(SpecialMiscValues, RoundDecimalsAsTorch) {
  // torch.round(x, decimals=d): nearbyint(x * 10^d) / 10^d (x / 10^-d * 10^-d for d < 0),
  // half to even on the scaled value, in the dtype's arithmetic (torch 1.13 outputs).
  expect_values(S::round(t64({2.5, 3.5, -2.5, 0.125, 1.005, 1e300, kInf, kNaN}), 2),
                {2.5, 3.5, -2.5, 0.12, 1.0, 1e300, kInf, kNaN});
  expect_values(S::round(t64({25, 35, -25, 149, 1e300}), -1), {20, 40, -20, 150, 1e300});
  expect_values(S::round(t64({1.5, 1e-300}), 400), {kNaN, kNaN});  // 10^400 = inf
  expect_values(S::round(tensor({2.675f, 1e30f}), 2), {2.680000066757202, 1.0000000150474662e+30});
  expect_values(S::round(t64({0.5, 1.5, -0.5})), {0, 2, -0.0});  // decimals = 0: ember::round
  EXPECT_EQ(S::round(arange(0, 3)).dtype(), kInt64);
  expect_error([] { S::round(arange(0, 3), 1); }, "special.round: decimals = 1 needs a floating point input");
  EXPECT_EQ(S::round(tensor({1.25f}).to(kBFloat16), 1).dtype(), kBFloat16);
}

TEST(SpecialMiscValues, SoftmaxEdgeRows) {
  // As torch: a row with +inf, nan or only -inf is all nan; -inf entries of
  // a finite row get 0 / -inf; logsumexp of an all -inf row is -inf.
  const Tensor x = t64({kInf, 1, kNaN, 1, -kInf, -kInf, -kInf, 0}).reshape({4, 2});
  expect_values(S::softmax(x, 1), {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, 0, 1});
  expect_values(S::log_softmax(x, 1), {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, -kInf, 0});
  expect_values(S::log_softmax(x.t().contiguous(), 0).t().contiguous(),
                {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, -kInf, 0});
  expect_values(S::logsumexp(x.narrow(0, 2, 2), {1}), {-kInf, 0});
  // A dominant element: log_softmax ~ -exp(-40), not 0.
  const double v = S::log_softmax(t64({40, 0}), 0)[0].item<double>();
  EXPECT_NEAR(v / -std::exp(-40.0), 1.0, 1e-15);
}

// ---- aliases, dtypes, out= ----

TEST(SpecialMiscDtypes, AliasesPromotionAndOut) {
  const Tensor x = t64({-2.5, 0.25, 0.75, 3.0});
  EXPECT_TRUE(equal(S::expit(x), sigmoid(x)));
  EXPECT_TRUE(equal(S::exp2(x), exp2(x)));
  EXPECT_TRUE(equal(S::expm1(x), expm1(x)));
  EXPECT_TRUE(equal(S::log1p(x.abs()), log1p(x.abs())));
  EXPECT_TRUE(equal(S::xlogy(x, x.abs()), xlogy(x, x.abs())));
  EXPECT_TRUE(equal(S::softmax(x, 0), nn::functional::softmax(x, 0)));
  EXPECT_TRUE(equal(S::log_softmax(x, 0), nn::functional::log_softmax(x, 0)));
  EXPECT_TRUE(equal(S::logsumexp(x, {0}), logsumexp(x, {0})));
  EXPECT_EQ(S::softmax(arange(0, 3), 0, kFloat32).dtype(), kFloat32);
  expect_error([] { S::softmax(arange(0, 3), 0); }, "softmax: expected a floating point input");
  const Tensor i = arange(0, 4);
  for (const auto& f : std::vector<Unary>{S::expit, S::exp2, S::expm1, S::log1p, S::sinc, S::entr,
                                          [](const Tensor& t) { return S::logit(t); }})
    EXPECT_EQ(f(i).dtype(), default_dtype());
  EXPECT_EQ(S::xlog1py(i, i).dtype(), default_dtype());
  EXPECT_EQ(S::xlog1py(i, tensor({1.5f})).dtype(), kFloat32);
  EXPECT_EQ(S::xlog1py(x.reshape({4, 1}), tensor({1.5f, 2.5f})).sizes(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(S::sinc(x.to(kFloat16)).dtype(), kFloat16);
  EXPECT_TRUE(allclose(S::sinc(x.to(kBFloat16)).to(kFloat64), S::sinc(x), 1e-2, 1e-2));
  const Tensor m = t64({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}).reshape({2, 3}).t();
  EXPECT_TRUE(equal(S::logit(m), S::logit(m.contiguous())));
  Tensor out = empty({0}, kFloat64);
  EXPECT_TRUE(equal(S::expit_out(out, x), S::expit(x)));
  EXPECT_TRUE(equal(S::exp2_out(out, x), S::exp2(x)));
  EXPECT_TRUE(equal(S::expm1_out(out, x), S::expm1(x)));
  EXPECT_TRUE(equal(S::log1p_out(out, x.abs()), S::log1p(x.abs())));
  EXPECT_TRUE(equal(S::sinc_out(out, x), S::sinc(x)));
  EXPECT_TRUE(equal(S::entr_out(out, x), S::entr(x)));
  EXPECT_TRUE(equal(S::logit_out(out, x, 0.3), S::logit(x, 0.3)));
  EXPECT_TRUE(equal(S::round_out(out, x, 1), S::round(x, 1)));
  EXPECT_TRUE(equal(S::round_out(out, x), S::round(x)));
  EXPECT_TRUE(equal(S::xlogy_out(out, x, x.abs()), S::xlogy(x, x.abs())));
  EXPECT_TRUE(equal(S::xlog1py_out(out, x, x.abs()), S::xlog1py(x, x.abs())));
  Tensor out32 = empty({4}, kFloat32);
  S::sinc_out(out32, x);
  EXPECT_TRUE(equal(out32, S::sinc(x).to(kFloat32)));
  const Tensor g = x.clone().requires_grad_();
  expect_error([&] { S::entr_out(out, g); }, "special.entr");
  expect_error([&] { S::sinc(randn({2}, kComplex64)); }, "special.sinc: complex inputs are not supported");
  expect_error([&] { S::xlog1py(x, randn({4}, kComplex128)); }, "special.xlog1py: complex inputs are not supported");
  expect_error([&] { S::logit(x, kNaN); }, "special.logit: eps must not be nan");
}

// ---- autograd ----

V one(const Tensor& t) { return V{t}; }

TEST(SpecialMiscAutograd, Gradcheck) {
  const Tensor real = t64({-3.1, -0.7, -1e-3, 0.4, 1.3, 5.2}).requires_grad_();
  const Tensor pos = t64({0.05, 0.3, 0.5, 0.8, 2.5}).requires_grad_();
  const Tensor unit = t64({0.02, 0.3, 0.5, 0.7, 0.97}).requires_grad_();
  const std::vector<std::tuple<const char*, Tensor, std::function<V(const V&)>>> cases = {
      {"expit", real, [](const V& v) { return one(S::expit(v[0])); }},
      {"exp2", real, [](const V& v) { return one(S::exp2(v[0])); }},
      {"expm1", real, [](const V& v) { return one(S::expm1(v[0])); }},
      {"log1p", pos, [](const V& v) { return one(S::log1p(v[0])); }},
      {"sinc", real, [](const V& v) { return one(S::sinc(v[0])); }},
      {"entr", pos, [](const V& v) { return one(S::entr(v[0])); }},
      {"logit", unit, [](const V& v) { return one(S::logit(v[0])); }},
      {"logit eps", unit, [](const V& v) { return one(S::logit(v[0], 0.1)); }},
      {"softmax", real, [](const V& v) { return one(S::softmax(v[0], 0)); }},
      {"log_softmax", real, [](const V& v) { return one(S::log_softmax(v[0], 0)); }},
      {"logsumexp", real, [](const V& v) { return one(S::logsumexp(v[0], {0})); }},
  };
  for (const auto& [name, x, fn] : cases) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(autograd::gradcheck(fn, {x}, kTightGradcheck));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x}, {}, kTightGradcheck));
  }
  const Tensor a = t64({-1.5, 0.5, 2.0}).reshape({3, 1}).requires_grad_();
  const Tensor b = t64({-0.5, 0.3, 4.0}).requires_grad_();
  auto xlog1py_fn = [](const V& v) { return one(S::xlog1py(v[0], v[1])); };
  EXPECT_TRUE(autograd::gradcheck(xlog1py_fn, {a, b}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(xlog1py_fn, {a, b}, {}, kTightGradcheck));
  auto xlogy_fn = [](const V& v) { return one(S::xlogy(v[0], v[1] + 1)); };
  EXPECT_TRUE(autograd::gradcheck(xlogy_fn, {a, b}, kTightGradcheck));
}

TEST(SpecialMiscAutograd, SpecialPointsAndNodeNames) {
  // sinc'(0) = 0; logit with eps: 0 outside [eps, 1 - eps]; without: nan outside [0, 1];
  // xlog1py: d/dx is 0 where x == 0; round: zero gradient.
  const Tensor z = t64({0.0, 0.5}).requires_grad_();
  S::sinc(z).sum().backward();
  EXPECT_EQ(z.grad()[0].item<double>(), 0.0);
  EXPECT_NEAR(z.grad()[1].item<double>(), -4 / M_PI, 1e-15);  // (cos(pi/2) - 2/pi) / (1/2)
  const Tensor p = t64({0.05, 0.5, 0.95, 1.5}).requires_grad_();
  S::logit(p, 0.1).sum().backward();
  expect_values(p.grad(), {0, 4, 0, 0});
  const Tensor q = t64({-0.5, 0.5}).requires_grad_();
  S::logit(q).sum().backward();
  expect_values(q.grad(), {kNaN, 4});
  const Tensor x0 = t64({0.0, 2.0}).requires_grad_(), y0 = t64({-1.0, 1.0}).requires_grad_();
  S::xlog1py(x0, y0).sum().backward();
  expect_values(x0.grad(), {0, M_LN2});
  const Tensor r = t64({1.234}).requires_grad_();
  S::round(r, 2).sum().backward();
  expect_values(r.grad(), {0});
  const Tensor x = t64({0.3}).requires_grad_();
  EXPECT_EQ(S::sinc(x).grad_fn()->name(), "SincBackward0");
  EXPECT_EQ(S::entr(x).grad_fn()->name(), "SpecialEntrBackward0");
  EXPECT_EQ(S::logit(x).grad_fn()->name(), "LogitBackward0");
  EXPECT_EQ(S::xlog1py(x, x).grad_fn()->name(), "SpecialXlog1pyBackward0");  // torch: SpecialXlog1PyBackward0
  EXPECT_EQ(S::expit(x).grad_fn()->name(), "SigmoidBackward0");
  EXPECT_EQ(S::round(x, 1).grad_fn()->name(), "RoundBackward0");  // torch: RoundBackward1 (the decimals overload)
}

}  // namespace special_misc_test
}  // namespace ember
