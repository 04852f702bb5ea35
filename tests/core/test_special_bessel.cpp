// ember::special Bessel functions against mpmath (fixtures from
// scripts/fixtures/special_bessel.py: the correctly rounded true values): the
// max ULP error per function and dtype is printed and bounded; edge values
// exactly; dtype promotion and out=; gradcheck / gradgradcheck of all six.
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
namespace special_bessel_test {

using testing::kTightGradcheck;
namespace S = ember::special;
using testing::check_ulp;
using testing::expect_error;
using testing::expect_values;
using testing::values_of;
using V = autograd::variable_list;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor fx(const std::string& name) { return testing::fixture("special_bessel", name); }
Tensor t64(std::vector<double> v) { return tensor(v, kFloat64); }

using Unary = std::function<Tensor(const Tensor&)>;

// Both dtypes of a fixture; bounds in ULP for float64 and float32.
void check_unary(const std::string& name, const Unary& f, double bound64, double bound32) {
  const Tensor x = fx(name + "_x");
  check_ulp(name + " float64", f(x), fx(name + "_y64"), bound64, x);
  const Tensor x32 = x.to(kFloat32);
  check_ulp(name + " float32", f(x32), fx(name + "_y32"), bound32, x32);
}

// ---- accuracy (measured: docs/special.md; bounds leave ~1 ULP for other libms) ----

TEST(SpecialBesselAccuracy, I0) { check_unary("i0", S::i0, 2, 1); }
TEST(SpecialBesselAccuracy, I0e) { check_unary("i0e", S::i0e, 2, 1); }
TEST(SpecialBesselAccuracy, I1) { check_unary("i1", S::i1, 2, 1); }
TEST(SpecialBesselAccuracy, I1e) { check_unary("i1e", S::i1e, 2, 1); }

// J0/J1: ULP-accurate everywhere below x = 26 (Taylor series around the
// zeros) and wherever |J| >= 1e-3 of the envelope sqrt(2 / (pi x)); closer to
// the zeros beyond 26 the error is absolute, a few 2^-64 of the envelope
// (Hankel's expansion in long double), bounded separately.
void check_bessel_j(const std::string& name, const Unary& f) {
  const Tensor x = fx(name + "_x"), expected = fx(name + "_y64");
  const Tensor actual = f(x);
  const std::vector<double> xs = values_of(x), e = values_of(expected), a = values_of(actual);
  std::vector<bool> relative(xs.size());
  double worst_abs = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double ax = std::fabs(xs[i]);
    const double envelope = std::sqrt(2 / (M_PI * ax));
    relative[i] = ax <= 26 || std::fabs(e[i]) >= 1e-3 * envelope;
    if (!relative[i]) worst_abs = std::max(worst_abs, std::fabs(a[i] - e[i]) / envelope / std::ldexp(1.0, -64));
  }
  check_ulp(name + " float64", actual, expected, 2, x, relative);
  std::printf("[ max ULP ] %-26s %8.2f (|error| / envelope in units of 2^-64, near zeros beyond x = 26)\n",
              (name + " float64 abs").c_str(), worst_abs);
  EXPECT_LE(worst_abs, 8);
  const Tensor x32 = x.to(kFloat32);
  check_ulp(name + " float32", f(x32), fx(name + "_y32"), 1, x32);
}

TEST(SpecialBesselAccuracy, J0) { check_bessel_j("bessel_j0", S::bessel_j0); }
TEST(SpecialBesselAccuracy, J1) { check_bessel_j("bessel_j1", S::bessel_j1); }

TEST(SpecialBesselAccuracy, RightAtTheZeros) {
  // The doubles nearest the first zeros: J is ~1e-17 there, still to 1 ULP
  // (mpmath values, 40 digits). Cephes (scipy, torch) has no correct digit.
  const Tensor x = t64({2.404825557695773, 3.8317059702075125, 24.352471530749302});
  const std::vector<double> j0 = values_of(S::bessel_j0(x.narrow(0, 0, 1)));
  const std::vector<double> j1 = values_of(S::bessel_j1(x.narrow(0, 1, 1)));
  EXPECT_LE(testing::ulp_error<double>(j0[0], -6.1087652597367304e-17), 1) << j0[0];
  EXPECT_LE(std::fabs(j1[0]), 1e-15);
  EXPECT_NE(j1[0], 0.0);
}

// ---- edge values, exactly ----

TEST(SpecialBesselValues, Edges) {
  for (const DType dt : {kFloat64, kFloat32}) {
    SCOPED_TRACE(dt);
    const Tensor x = t64({0.0, -0.0, kInf, -kInf, kNaN}).to(dt);
    // The limits at +-inf (torch and scipy give nan for i0, i1, j0, j1 there).
    expect_values(S::i0(x), {1, 1, kInf, kInf, kNaN});
    expect_values(S::i0e(x), {1, 1, 0, 0, kNaN});
    expect_values(S::i1(x), {0, 0, kInf, -kInf, kNaN});  // i1(-0) = +0 as Cephes (torch, scipy)
    expect_values(S::i1e(x), {0, 0, 0, -0.0, kNaN});
    expect_values(S::bessel_j0(x), {1, 1, 0, 0, kNaN});
    expect_values(S::bessel_j1(x), {0, -0.0, 0, -0.0, kNaN});
  }
  // Overflow of I0/I1 at x ~ 713.987 in double, 91.9 in float.
  EXPECT_TRUE(std::isfinite(S::i0(t64({713.98})).item<double>()));
  EXPECT_EQ(S::i0(t64({714.0})).item<double>(), kInf);
  EXPECT_EQ(S::i1(t64({-714.0})).item<double>(), -kInf);
  EXPECT_EQ(S::i0(tensor({92.0f})).item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_GT(S::i0e(t64({1e300})).item<double>(), 3.98e-151);  // 1/sqrt(2 pi x), no underflow
  // Denormals: I1(x) = x/2, J1(x) = x/2.
  EXPECT_EQ(S::i1(t64({1e-310})).item<double>(), 5e-311);
  EXPECT_EQ(S::bessel_j1(t64({-1e-310})).item<double>(), -5e-311);
}

// ---- dtypes ----

TEST(SpecialBesselDtypes, PromotionAndOut) {
  const Tensor i = arange(0, 4);  // int64
  EXPECT_EQ(S::i0(i).dtype(), default_dtype());
  EXPECT_EQ(S::bessel_j1(i.to(kBool)).dtype(), default_dtype());
  EXPECT_TRUE(allclose(S::i0(i), S::i0(i.to(default_dtype())), 0, 0));
  const Tensor h = tensor({0.5f, 1.5f, 3.0f});
  for (const DType dt : {kFloat16, kBFloat16}) {
    EXPECT_EQ(S::i1e(h.to(dt)).dtype(), dt);
    EXPECT_TRUE(allclose(S::i1e(h.to(dt)).to(kFloat32), S::i1e(h), 1e-2, 1e-3));
  }
  const Tensor m = t64({0.1, 2.2, 5.3, 30.4, 1e3, -4.0}).reshape({2, 3}).t();
  EXPECT_TRUE(equal(S::bessel_j0(m), S::bessel_j0(m.contiguous())));
  const Tensor x = t64({-3.5, 0.25, 40.0});
  Tensor out = empty({0}, kFloat64);
  EXPECT_TRUE(equal(S::i0_out(out, x), S::i0(x)));
  EXPECT_TRUE(equal(S::i0e_out(out, x), S::i0e(x)));
  EXPECT_TRUE(equal(S::i1_out(out, x), S::i1(x)));
  EXPECT_TRUE(equal(S::i1e_out(out, x), S::i1e(x)));
  EXPECT_TRUE(equal(S::bessel_j0_out(out, x), S::bessel_j0(x)));
  EXPECT_TRUE(equal(S::bessel_j1_out(out, x), S::bessel_j1(x)));
  Tensor out32 = empty({3}, kFloat32);
  S::i0_out(out32, x);
  EXPECT_TRUE(equal(out32, S::i0(x).to(kFloat32)));
  const Tensor g = x.clone().requires_grad_();
  expect_error([&] { S::i0_out(out, g); }, "special.i0");
  expect_error([&] { S::i1e(randn({2}, kComplex64)); }, "special.i1e: complex inputs are not supported");
  expect_error([&] { S::bessel_j0(randn({2}, kComplex128)); }, "special.bessel_j0: complex inputs are not supported");
}

// ---- autograd ----

V one(const Tensor& t) { return V{t}; }

TEST(SpecialBesselAutograd, Gradcheck) {
  const Tensor x = t64({-31.5, -3.7, -0.6, 0.02, 0.9, 2.4, 7.1, 29.0}).requires_grad_();
  const std::vector<std::pair<const char*, std::function<V(const V&)>>> cases = {
      {"i0", [](const V& v) { return one(S::i0(v[0])); }},
      {"i0e", [](const V& v) { return one(S::i0e(v[0])); }},
      {"i1", [](const V& v) { return one(S::i1(v[0])); }},
      {"i1e", [](const V& v) { return one(S::i1e(v[0])); }},
      {"bessel_j0", [](const V& v) { return one(S::bessel_j0(v[0])); }},
      {"bessel_j1", [](const V& v) { return one(S::bessel_j1(v[0])); }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(autograd::gradcheck(fn, {x}, kTightGradcheck));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x}, {}, kTightGradcheck));
  }
}

TEST(SpecialBesselAutograd, ValuesAtZeroAndNodeNames) {
  // i1'(0) = i1e'(0) = j1'(0) = 1/2 (the limits PyTorch uses), i0'(0) = j0'(0) = 0.
  for (const auto& f : std::vector<Unary>{S::i1, S::i1e, S::bessel_j1}) {
    const Tensor z = t64({0.0, -0.0}).requires_grad_();
    f(z).sum().backward();
    EXPECT_TRUE(equal(z.grad(), t64({0.5, 0.5})));
  }
  for (const auto& f : std::vector<Unary>{S::i0, S::bessel_j0}) {
    const Tensor z = t64({0.0}).requires_grad_();
    f(z).sum().backward();
    EXPECT_EQ(z.grad().item<double>(), 0.0);
  }
  // i0e' = i1e - sgn(x) i0e: -i0e(0) + ... is 0 at 0 (sgn(0) = 0), odd elsewhere.
  const Tensor y = t64({-2.0, 2.0}).requires_grad_();
  S::i0e(y).sum().backward();
  EXPECT_NEAR(y.grad()[0].item<double>(), -y.grad()[1].item<double>(), 1e-16);
  // Ember's node names capitalize after '_' only (torch: SpecialI0EBackward0).
  const Tensor x = t64({0.3}).requires_grad_();
  EXPECT_EQ(S::i0(x).grad_fn()->name(), "I0Backward0");
  EXPECT_EQ(S::i0e(x).grad_fn()->name(), "SpecialI0eBackward0");
  EXPECT_EQ(S::i1(x).grad_fn()->name(), "SpecialI1Backward0");
  EXPECT_EQ(S::i1e(x).grad_fn()->name(), "SpecialI1eBackward0");
  EXPECT_EQ(S::bessel_j0(x).grad_fn()->name(), "SpecialBesselJ0Backward0");
  EXPECT_EQ(S::bessel_j1(x).grad_fn()->name(), "SpecialBesselJ1Backward0");
}

}  // namespace special_bessel_test
}  // namespace ember
