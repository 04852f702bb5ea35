// ember::special gamma / erf / normal family against scipy.special (fixtures
// from scripts/fixtures/special_gamma.py, where scipy's own errors beyond
// 1 ULP are replaced by mpmath's correctly rounded values): the max ULP error
// per function and dtype is printed and bounded; edge values exactly; argument
// errors; dtype promotion; gradcheck / gradgradcheck of every differentiable op.
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>
#include <ember/special/gamma.h>

#include "special_ulp.h"
#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace special_gamma_test {

using testing::kTightGradcheck;
namespace S = ember::special;
using testing::expect_error;
using testing::ulp_error;
using testing::values_of;
using testing::fixture;
using V = autograd::variable_list;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor fx(const std::string& name) { return fixture("special_gamma", name); }

struct Measured {
  double max_ulp = 0;
  size_t at = 0;
};

Measured measure(const Tensor& actual, const Tensor& expected) {
  EXPECT_EQ(actual.sizes(), expected.sizes());
  EXPECT_EQ(actual.dtype(), expected.dtype());
  const std::vector<double> a = values_of(actual), e = values_of(expected);
  Measured m;
  for (size_t i = 0; i < a.size() && i < e.size(); ++i) {
    const double u = actual.dtype() == kFloat32 ? ulp_error<float>(a[i], e[i]) : ulp_error<double>(a[i], e[i]);
    if (u > m.max_ulp) m = {u, i};
  }
  return m;
}

// Prints the measured max ULP error (shown by the test run) and bounds it.
void check_ulp(const std::string& what, const Tensor& input_for_report, const Tensor& actual, const Tensor& expected,
               double bound) {
  const Measured m = measure(actual, expected);
  std::printf("[ max ULP ] %-22s %8.2f\n", what.c_str(), m.max_ulp);
  const std::vector<double> a = values_of(actual), e = values_of(expected);
  EXPECT_LE(m.max_ulp, bound) << what << ": at flat index " << m.at
                              << (input_for_report.defined() && input_for_report.numel() == actual.numel()
                                      ? " x = " + std::to_string(values_of(input_for_report)[m.at])
                                      : std::string())
                              << " got " << a[m.at] << " expected " << e[m.at];
}

using Unary = std::function<Tensor(const Tensor&)>;

// Both dtypes of a unary fixture; bounds are max ULP for float64 and float32.
void check_unary(const std::string& name, const Unary& f, double bound64, double bound32) {
  const Tensor x = fx(name + "_x");
  check_ulp(name + " float64", x, f(x), fx(name + "_y64"), bound64);
  const Tensor x32 = x.to(kFloat32);
  check_ulp(name + " float32", x32, f(x32), fx(name + "_y32"), bound32);
}

using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

// Broadcast grid a (m, 1) x b (n,) -> (m, n).
void check_binary(const std::string& name, const Binary& f, double bound64, double bound32) {
  const Tensor a = fx(name + "_a"), b = fx(name + "_b");
  check_ulp(name + " float64", Tensor(), f(a, b), fx(name + "_y64"), bound64);
  check_ulp(name + " float32", Tensor(), f(a.to(kFloat32), b.to(kFloat32)), fx(name + "_y32"), bound32);
}

// ---- accuracy against the fixtures ----
// Bounds: the measured max (docs/special.md) plus a margin of about one ULP
// for other libm versions (erf/erfc are glibc's, the rest builds on exp, log,
// pow and lgamma).

TEST(SpecialGammaAccuracy, Gammaln) { check_unary("gammaln", S::gammaln, 3, 1); }
TEST(SpecialGammaAccuracy, Digamma) { check_unary("digamma", S::digamma, 3, 1); }
TEST(SpecialGammaAccuracy, Erf) { check_unary("erf", S::erf, 2, 1); }
TEST(SpecialGammaAccuracy, Erfc) { check_unary("erfc", S::erfc, 3, 2); }  // core op: glibc erfcf
TEST(SpecialGammaAccuracy, Erfcx) { check_unary("erfcx", S::erfcx, 2, 1); }
TEST(SpecialGammaAccuracy, Erfinv) { check_unary("erfinv", S::erfinv, 2, 1); }
TEST(SpecialGammaAccuracy, Ndtr) { check_unary("ndtr", S::ndtr, 3, 1); }
TEST(SpecialGammaAccuracy, LogNdtr) { check_unary("log_ndtr", S::log_ndtr, 4, 1); }
TEST(SpecialGammaAccuracy, Ndtri) { check_unary("ndtri", S::ndtri, 3, 1); }

TEST(SpecialGammaAccuracy, Polygamma) {
  // n is a column of the grid: one call per n.
  const Tensor n = fx("polygamma_a"), x = fx("polygamma_b");
  const std::vector<double> ns = values_of(n);
  for (const DType dt : {kFloat64, kFloat32}) {
    std::vector<Tensor> rows;
    for (double v : ns) rows.push_back(S::polygamma(static_cast<int64_t>(v), x.to(dt)));
    const bool f64 = dt == kFloat64;
    check_ulp(std::string("polygamma ") + (f64 ? "float64" : "float32"), Tensor(), stack(rows),
              fx(f64 ? "polygamma_y64" : "polygamma_y32"), f64 ? 6 : 1);
  }
}

TEST(SpecialGammaAccuracy, Zeta) {
  check_binary("zeta", [](const Tensor& a, const Tensor& b) { return S::zeta(a, b); }, 6, 1);
}
// Deep tails of P and Q (values near 1e-260 at a = 1e4) are ill-conditioned:
// one ULP of x moves them by thousands of ULP; the bound leaves room there.
TEST(SpecialGammaAccuracy, Gammainc) { check_binary("gammainc", S::gammainc, 8, 1); }
TEST(SpecialGammaAccuracy, Gammaincc) { check_binary("gammaincc", S::gammaincc, 5, 1); }

TEST(SpecialGammaAccuracy, Multigammaln) {
  const Tensor x = fx("multigammaln_x"), expected = fx("multigammaln_y64");
  std::vector<Tensor> rows;
  for (int64_t p = 1; p <= 5; ++p) rows.push_back(S::multigammaln(x, p));
  check_ulp("multigammaln float64", Tensor(), stack(rows), expected, 5);
}

// ---- edge values, exactly (torch.special's conventions) ----

// Exact values (and signs of zeros); expected values are rounded to the result's dtype.
void expect_values(const Tensor& actual, std::vector<double> expected) {
  const std::vector<double> a = values_of(actual);
  ASSERT_EQ(a.size(), expected.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (actual.dtype() == kFloat32) expected[i] = static_cast<float>(expected[i]);
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(a[i])) << "element " << i << ": got " << a[i] << ", expected nan";
    } else {
      EXPECT_EQ(a[i], expected[i]) << "element " << i;
      EXPECT_EQ(std::signbit(a[i]), std::signbit(expected[i])) << "sign of element " << i;
    }
  }
}

Tensor t64(std::vector<double> v) { return tensor(v, kFloat64); }

TEST(SpecialGammaValues, GammaAndDigammaEdges) {
  for (const DType dt : {kFloat64, kFloat32}) {
    SCOPED_TRACE(dt);
    const Tensor x = t64({0.0, -0.0, -1, -2, kInf, -kInf, kNaN, 1, 2}).to(dt);
    expect_values(S::gammaln(x), {kInf, kInf, kInf, kInf, kInf, kInf, kNaN, 0, 0});
    expect_values(S::digamma(x).narrow(0, 0, 7), {-kInf, kInf, kNaN, kNaN, kInf, kNaN, kNaN});
    expect_values(S::psi(x).narrow(0, 0, 2), {-kInf, kInf});
    // polygamma: poles of odd order are +inf, even order -inf (as scipy); 0 at +inf.
    expect_values(S::polygamma(1, x).narrow(0, 0, 5), {kInf, kInf, kInf, kInf, 0});
    expect_values(S::polygamma(2, x).narrow(0, 0, 5), {-kInf, -kInf, -kInf, -kInf, -0.0});
  }
}

TEST(SpecialGammaValues, PolygammaOfLargeOrder) {
  // n! and zeta(n + 1, x) overflow / underflow in double where the product
  // does not (mpmath values, 50 digits).
  const std::vector<std::pair<int64_t, std::pair<double, double>>> cases = {
      {200, {10.0, -7.8865787114015540738e+173}}, {150, {1000.0, -4.1017783919253752648e-190}},
      {30, {2.5, -1.2232990235199245034e+20}},    {25, {-3.7, 6.1022929985758361324e+38}},
      {40, {0.1, -8.1591528324789587736e+88}},
  };
  for (const auto& [n, xv] : cases) {
    SCOPED_TRACE(n);
    const double got = S::polygamma(n, t64({xv.first})).item<double>();
    EXPECT_LE(ulp_error<double>(got, xv.second), 4) << got;
  }
  expect_values(S::polygamma(31, t64({0, -2, kInf})), {kInf, kInf, 0});
  expect_values(S::polygamma(32, t64({0, -2, kInf})), {-kInf, -kInf, -0.0});
}

TEST(SpecialGammaValues, ZetaAndIncompleteGammaEdges) {
  // zeta(x, q): x == 1 -> inf; x < 1 -> nan; q a non-positive integer -> inf;
  // q < 0 with x not an integer -> nan; nan propagates.
  expect_values(S::zeta(t64({1, 0.5, 2, 2, 2.5, kNaN, 2}), t64({2, 2, 0, -3, -1.5, 1, kNaN})),
                {kInf, kNaN, kInf, kInf, kNaN, kNaN, kNaN});
  // An integer x with a negative non-integer q is a finite sum:
  // zeta(2, -1.5) = (-1.5)^-2 + (-0.5)^-2 + zeta(2, 0.5) = 4/9 + 4 + pi^2/2.
  EXPECT_NEAR(S::zeta(t64({2}), t64({-1.5})).item<double>(), 4.0 / 9 + 4 + M_PI * M_PI / 2, 1e-13);
  // gammainc / gammaincc (a, x): as scipy and torch.
  const Tensor a = t64({-1, 1, 0, 0, 1, kInf, kInf, 1, kNaN, 1});
  const Tensor x = t64({1, -1, 1, 0, 0, 1, kInf, kInf, 1, kNaN});
  expect_values(S::gammainc(a, x), {kNaN, kNaN, 1, kNaN, 0, 0, kNaN, 1, kNaN, kNaN});
  expect_values(S::gammaincc(a, x), {kNaN, kNaN, 0, kNaN, 1, 1, kNaN, 0, kNaN, kNaN});
}

TEST(SpecialGammaValues, ErrorFunctionAndNormalEdges) {
  for (const DType dt : {kFloat64, kFloat32}) {
    SCOPED_TRACE(dt);
    const Tensor x = t64({-kInf, kInf, kNaN, 0.0, -0.0}).to(dt);
    expect_values(S::erfcx(x), {kInf, 0, kNaN, 1, 1});
    expect_values(S::ndtr(x), {0, 1, kNaN, 0.5, 0.5});
    expect_values(S::log_ndtr(x), {-kInf, 0, kNaN, -M_LN2, -M_LN2});
    expect_values(S::erf(x), {-1, 1, kNaN, 0, -0.0});
    expect_values(S::erfc(x), {2, 0, kNaN, 1, 1});
    expect_values(S::erfinv(t64({-1, 1, kNaN, 0.0, -0.0, 1.5, -1.5}).to(dt)), {-kInf, kInf, kNaN, 0, -0.0, kNaN, kNaN});
    expect_values(S::ndtri(t64({0, 1, kNaN, 0.5, -0.1, 1.1}).to(dt)), {-kInf, kInf, kNaN, 0, kNaN, kNaN});
  }
  EXPECT_GT(S::erfcx(t64({-26.6})).item<double>(), 1e307);  // no overflow before 2 exp(x^2) does
  EXPECT_EQ(S::erfcx(t64({-27})).item<double>(), kInf);
  EXPECT_EQ(S::erfcx(t64({1e308})).item<double>(), M_2_SQRTPI / 2 / 1e308);
}

TEST(SpecialGammaValues, IncompleteGammaForHugeA) {
  // Beyond the fixtures (mpmath's gammainc gives up there): P + Q = 1, the
  // known centre P(a, a) = 1/2 + 1/(3 sqrt(2 pi a)) + O(1/a^(3/2)), and P still
  // increasing where the evaluation switches to the uniform asymptotic
  // expansion (|x - a| < 1e-3 a for a >= 1e8).
  for (const double a : {1e8, 1e10, 1e13, 1e16}) {
    SCOPED_TRACE(a);
    const Tensor av = t64({a});
    const Tensor x = t64({a * (1 - 2e-5), a, a * (1 + 1e-5), a * (1 - 1e-3) + a * 1e-12, a * (1 - 1e-3) - a * 1e-12});
    const std::vector<double> p = values_of(S::gammainc(av, x)), q = values_of(S::gammaincc(av, x));
    for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i] + q[i], 1.0, 2e-16) << i;
    EXPECT_NEAR(p[1], 0.5 + 1 / (3 * std::sqrt(2 * M_PI * a)), 1e-15);
    // The switch point sits between x[4] (series) and x[3] (asymptotic): P keeps increasing.
    if (p[4] > 0) {  // (underflows to 0 for a >= 1e10)
      EXPECT_LT(p[4], p[3]);
    }
    EXPECT_LE(p[3], p[0]);
  }
}

// ---- dtypes, promotion, broadcasting ----

TEST(SpecialGammaDtypes, PromotionAndBroadcasting) {
  const Tensor i = arange(1, 5);  // int64
  EXPECT_EQ(S::gammaln(i).dtype(), default_dtype());
  EXPECT_EQ(S::digamma(i.to(kBool)).dtype(), default_dtype());
  EXPECT_EQ(S::erfinv(tensor({0.5f})).dtype(), kFloat32);
  EXPECT_EQ(S::polygamma(2, i).dtype(), default_dtype());
  EXPECT_EQ(S::multigammaln(i + 2, 3).dtype(), default_dtype());
  EXPECT_EQ(S::erf(i).dtype(), default_dtype());
  const Tensor f = tensor({1.5f, 2.5f, 3.5f});
  const Tensor d = t64({2, 3}).reshape({2, 1});
  EXPECT_EQ(S::zeta(d, f).dtype(), kFloat64);
  EXPECT_EQ(S::zeta(d, f).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(S::zeta(i.reshape({4, 1}) + 1, f).dtype(), kFloat32);
  EXPECT_EQ(S::zeta(Scalar(2.0), f).dtype(), kFloat32);  // a wrapped number does not promote
  EXPECT_EQ(S::zeta(f, Scalar(1)).dtype(), kFloat32);
  EXPECT_EQ(S::gammainc(i, i).dtype(), default_dtype());
  EXPECT_EQ(S::gammaincc(f, d).sizes(), (std::vector<int64_t>{2, 3}));
  // Values agree across the promotion.
  EXPECT_TRUE(allclose(S::zeta(Scalar(2.0), t64({1})), t64({M_PI * M_PI / 6}), 1e-15, 0));
  EXPECT_TRUE(allclose(S::gammaln(i), S::gammaln(i.to(kFloat32)), 0, 0));
  // Reduced-precision floats compute in double too.
  const Tensor h = tensor({0.5f, 1.5f, 3.0f}).to(kFloat16);
  EXPECT_EQ(S::gammaln(h).dtype(), kFloat16);
  EXPECT_TRUE(allclose(S::gammaln(h).to(kFloat32), S::gammaln(h.to(kFloat32)), 1e-3, 1e-3));
  EXPECT_EQ(S::ndtri(h.to(kBFloat16) / 4).dtype(), kBFloat16);
  // Non-contiguous input.
  const Tensor m = t64({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}).reshape({2, 3}).t();
  EXPECT_TRUE(equal(S::erfinv(m), S::erfinv(m.contiguous())));
}

TEST(SpecialGammaDtypes, OutVariants) {
  const Tensor x = t64({0.3, 1.7, 4.2});
  Tensor out = empty({0}, kFloat64);
  EXPECT_TRUE(equal(S::gammaln_out(out, x), S::gammaln(x)));
  EXPECT_TRUE(equal(S::digamma_out(out, x), S::digamma(x)));
  EXPECT_TRUE(equal(S::psi_out(out, x), S::psi(x)));
  EXPECT_TRUE(equal(S::polygamma_out(out, 2, x), S::polygamma(2, x)));
  EXPECT_TRUE(equal(S::polygamma_out(out, 0, x), S::digamma(x)));
  EXPECT_TRUE(equal(S::erf_out(out, x), S::erf(x)));
  EXPECT_TRUE(equal(S::erfc_out(out, x), S::erfc(x)));
  EXPECT_TRUE(equal(S::erfcx_out(out, x), S::erfcx(x)));
  EXPECT_TRUE(equal(S::ndtr_out(out, x), S::ndtr(x)));
  EXPECT_TRUE(equal(S::log_ndtr_out(out, x), S::log_ndtr(x)));
  const Tensor p = x / 5;
  EXPECT_TRUE(equal(S::erfinv_out(out, p), S::erfinv(p)));
  EXPECT_TRUE(equal(S::ndtri_out(out, p), S::ndtri(p)));
  const Tensor q = t64({1.5, 2.5}).reshape({2, 1});
  Tensor out2 = empty({0}, kFloat64);
  EXPECT_TRUE(equal(S::zeta_out(out2, q + 1, x), S::zeta(q + 1, x)));
  EXPECT_EQ(out2.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(equal(S::gammainc_out(out2, q, x), S::gammainc(q, x)));
  EXPECT_TRUE(equal(S::gammaincc_out(out2, q, x), S::gammaincc(q, x)));
  // A float32 out takes the float64 result cast.
  Tensor out32 = empty({3}, kFloat32);
  S::gammaln_out(out32, x);
  EXPECT_TRUE(equal(out32, S::gammaln(x).to(kFloat32)));
  // out= with an input that requires grad is an error, as in PyTorch.
  const Tensor g = x.clone().requires_grad_();
  expect_error([&] { S::gammaln_out(out, g); }, "special.gammaln");
}

// ---- errors ----

TEST(SpecialGammaErrors, BadArguments) {
  const Tensor x = t64({1.5, 2.5});
  expect_error([&] { S::polygamma(-1, x); }, "special.polygamma: polygamma(n, x) does not support negative n (got n = -1)");
  expect_error([&] { S::multigammaln(x, 0); }, "special.multigammaln: p has to be greater than or equal to 1 (got p = 0)");
  expect_error([&] { S::multigammaln(x, 4); }, "all elements must be greater than (p-1)/2 = 1.5 (p = 4); the smallest element is 1.5");
  expect_error([&] { S::multigammaln(t64({3, kNaN}), 2); }, "special.multigammaln: all elements must be greater than");
  expect_error([&] { S::multigammaln(tensor({true}), 1); }, "special.multigammaln: the input tensor may not be a boolean tensor");
  const Tensor c = randn({2}, kComplex128);
  expect_error([&] { S::gammaln(c); }, "special.gammaln: complex inputs are not supported");
  expect_error([&] { S::zeta(x, c); }, "special.zeta: complex inputs are not supported");
  expect_error([&] { S::polygamma(1, c); }, "special.polygamma: complex inputs are not supported");
  expect_error([&] { S::gammaincc(c, x); }, "special.gammaincc: complex inputs are not supported");
}

TEST(SpecialGammaErrors, FirstArgumentDerivativesAsTorch) {
  // torch: zeta and igamma/igammac have no derivative in self ('not_implemented').
  const Tensor a = t64({2.5, 3.0}).requires_grad_(), q = t64({1.5, 2.0}).requires_grad_();
  expect_error([&] { S::zeta(a, q).sum().backward(); }, "special.zeta: the derivative with respect to x (self) is not implemented");
  expect_error([&] { S::gammainc(a, q).sum().backward(); }, "special.gammainc: the derivative with respect to a");
  expect_error([&] { S::gammaincc(a, q).sum().backward(); }, "special.gammaincc: the derivative with respect to a");
  // Only the second argument requiring grad is fine.
  const Tensor a0 = t64({2.5, 3.0});
  S::gammainc(a0, q).sum().backward();
  EXPECT_TRUE(q.grad().defined());
}

// ---- autograd ----

V one(const Tensor& t) { return V{t}; }

TEST(SpecialGammaAutograd, UnaryGradcheck) {
  const Tensor pos = t64({0.3, 1.2, 2.7, 7.5}).requires_grad_();
  const Tensor any = t64({-2.3, -0.4, 0.6, 1.9}).requires_grad_();
  const Tensor unit = t64({-0.8, -0.3, 0.1, 0.6}).requires_grad_();
  const Tensor prob = t64({0.02, 0.3, 0.55, 0.9}).requires_grad_();
  const std::vector<std::pair<const char*, std::function<V(const V&)>>> cases = {
      {"gammaln", [](const V& v) { return one(S::gammaln(v[0])); }},
      {"digamma", [](const V& v) { return one(S::digamma(v[0])); }},
      {"polygamma1", [](const V& v) { return one(S::polygamma(1, v[0])); }},
      {"polygamma3", [](const V& v) { return one(S::polygamma(3, v[0])); }},
      {"multigammaln", [](const V& v) { return one(S::multigammaln(v[0] + 2, 3)); }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(autograd::gradcheck(fn, {pos}, kTightGradcheck));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {pos}, {}, kTightGradcheck));
  }
  const std::vector<std::pair<const char*, std::function<V(const V&)>>> real_line = {
      {"erf", [](const V& v) { return one(S::erf(v[0])); }},
      {"erfc", [](const V& v) { return one(S::erfc(v[0])); }},
      {"erfcx", [](const V& v) { return one(S::erfcx(v[0])); }},
      {"ndtr", [](const V& v) { return one(S::ndtr(v[0])); }},
      {"log_ndtr", [](const V& v) { return one(S::log_ndtr(v[0])); }},
  };
  for (const auto& [name, fn] : real_line) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(autograd::gradcheck(fn, {any}, kTightGradcheck));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {any}, {}, kTightGradcheck));
  }
  auto erfinv_fn = [](const V& v) { return one(S::erfinv(v[0])); };
  EXPECT_TRUE(autograd::gradcheck(erfinv_fn, {unit}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(erfinv_fn, {unit}, {}, kTightGradcheck));
  auto ndtri_fn = [](const V& v) { return one(S::ndtri(v[0])); };
  EXPECT_TRUE(autograd::gradcheck(ndtri_fn, {prob}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(ndtri_fn, {prob}, {}, kTightGradcheck));
  // The digamma of a negative non-integer too (reflection branch).
  EXPECT_TRUE(autograd::gradcheck([](const V& v) { return one(S::digamma(v[0])); }, {any}, kTightGradcheck));
}

TEST(SpecialGammaAutograd, BinarySecondArgumentGradcheck) {
  const Tensor s = t64({2.0, 3.5, 5.0}).reshape({3, 1});  // constants
  const Tensor q = t64({0.7, 1.5, 4.0, 9.0}).requires_grad_();
  auto zeta_fn = [s](const V& v) { return one(S::zeta(s, v[0])); };
  EXPECT_TRUE(autograd::gradcheck(zeta_fn, {q}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(zeta_fn, {q}, {}, kTightGradcheck));
  auto p_fn = [s](const V& v) { return one(S::gammainc(s, v[0])); };
  auto q_fn = [s](const V& v) { return one(S::gammaincc(s, v[0])); };
  EXPECT_TRUE(autograd::gradcheck(p_fn, {q}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(p_fn, {q}, {}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradcheck(q_fn, {q}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(q_fn, {q}, {}, kTightGradcheck));
}

TEST(SpecialGammaAutograd, NodeNamesAsTorch) {
  const Tensor x = t64({0.3, 0.6}).requires_grad_(), q = t64({1.5, 2.0}).requires_grad_();
  EXPECT_EQ(S::gammaln(x).grad_fn()->name(), "LgammaBackward0");
  EXPECT_EQ(S::digamma(x).grad_fn()->name(), "DigammaBackward0");
  EXPECT_EQ(S::polygamma(2, x).grad_fn()->name(), "PolygammaBackward0");
  EXPECT_EQ(S::multigammaln(x + 2, 2).grad_fn()->name(), "MvlgammaBackward0");
  EXPECT_EQ(S::erfcx(x).grad_fn()->name(), "SpecialErfcxBackward0");
  EXPECT_EQ(S::erfinv(x).grad_fn()->name(), "ErfinvBackward0");
  EXPECT_EQ(S::ndtr(x).grad_fn()->name(), "SpecialNdtrBackward0");
  EXPECT_EQ(S::log_ndtr(x).grad_fn()->name(), "SpecialLogNdtrBackward0");
  EXPECT_EQ(S::ndtri(x).grad_fn()->name(), "SpecialNdtriBackward0");
  EXPECT_EQ(S::erf(x).grad_fn()->name(), "ErfBackward0");
  EXPECT_EQ(S::zeta(x + 2, q).grad_fn()->name(), "SpecialZetaBackward0");
  EXPECT_EQ(S::gammainc(x, q).grad_fn()->name(), "IgammaBackward0");
  EXPECT_EQ(S::gammaincc(x, q).grad_fn()->name(), "IgammacBackward0");
}

TEST(SpecialGammaAutograd, GradientValues) {
  // d/dx gammaln = digamma; d/dx digamma = polygamma(1) = pi^2/6 at 1.
  const Tensor x = t64({1.0}).requires_grad_();
  S::digamma(x).sum().backward();
  EXPECT_NEAR(x.grad().item<double>(), M_PI * M_PI / 6, 1e-14);
  const Tensor p = t64({0.5}).requires_grad_();
  S::ndtri(p).sum().backward();
  EXPECT_NEAR(p.grad().item<double>(), std::sqrt(2 * M_PI), 1e-14);
}

}  // namespace special_gamma_test
}  // namespace ember
