// The CUDA kernels' complex math (cuda/src/kernels/complex_math.cuh, compiled
// here as host code) against std::complex, which is what the CPU kernels
// compute with (GCC's products and quotients, glibc's functions): random
// values over many magnitudes, C99 Annex G's special values with their signed
// zeros, and the branch cuts from both sides. Runs without a GPU: it checks
// the algorithms, the GPU tests (test_complex.cpp) the device's libm under them.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../cuda/src/kernels/complex_math.cuh"

namespace ember::cuda::kernels {
namespace {

namespace cm = cmath;

template <class R>
bool part_close(R g, R c, R scale, R rtol, R atol, bool signed_zeros) {
  if (std::isnan(c)) return std::isnan(g);
  if (std::isinf(c) || std::isinf(g)) return g == c;
  if (signed_zeros && c == 0 && g == 0) return std::signbit(g) == std::signbit(c);
  return std::abs(g - c) <= atol + rtol * scale;
}

template <class R>
struct Checker {
  R rtol, atol;
  int failures = 0;
  void check(const char* name, std::complex<R> z, cm::C<R> got, std::complex<R> want, bool signed_zeros) {
    const R scale = std::isfinite(want.real()) && std::isfinite(want.imag()) ? std::abs(want) : R(0);
    if (part_close(got.re, want.real(), scale, rtol, atol, signed_zeros) &&
        part_close(got.im, want.imag(), scale, rtol, atol, signed_zeros))
      return;
    if (++failures <= 30)
      ADD_FAILURE() << name << "(" << z.real() << ", " << z.imag() << ") = (" << got.re << ", " << got.im
                    << "), std::complex gives (" << want.real() << ", " << want.imag() << ")";
  }
};

template <class R>
std::vector<std::complex<R>> test_points() {
  std::vector<std::complex<R>> points;
  const R huge = std::numeric_limits<R>::max() / 8, tiny = std::numeric_limits<R>::denorm_min() * 1000;
  const std::vector<R> special = {R(0), -R(0), R(0.5), -R(0.5), R(1), -R(1), R(2), -R(2), R(0.99), R(1.01),
                                  std::numeric_limits<R>::infinity(), -std::numeric_limits<R>::infinity(),
                                  std::numeric_limits<R>::quiet_NaN(), huge, -huge, tiny, -tiny,
                                  std::numeric_limits<R>::min(), R(1e-5), R(30), R(-100), R(1000)};
  for (R a : special)
    for (R b : special) points.emplace_back(a, b);
  std::mt19937_64 rng(23);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> exponent(std::is_same_v<R, float> ? -30 : -300, std::is_same_v<R, float> ? 30 : 300);
  for (int i = 0; i < 4000; ++i) {
    const double scale = i < 2000 ? 3.0 : std::ldexp(1.0, exponent(rng) / 3);  // moderate, then every magnitude
    const double scale2 = i % 3 == 0 ? std::ldexp(1.0, exponent(rng)) : scale;
    points.emplace_back(static_cast<R>(normal(rng) * scale), static_cast<R>(normal(rng) * scale2));
  }
  return points;
}

template <class R>
void check_functions(R rtol) {
  using Z = std::complex<R>;
  // Subnormal parts carry few digits: compared to an absolute floor.
  Checker<R> ck{rtol, std::numeric_limits<R>::min() * 4};
  for (const Z z : test_points<R>()) {
    const cm::C<R> x{z.real(), z.imag()};
    ck.check("exp", z, cm::c_exp(x), std::exp(z), true);
    ck.check("log", z, cm::c_log(x), std::log(z), true);
    ck.check("sqrt", z, cm::c_sqrt(x), std::sqrt(z), true);
    ck.check("sin", z, cm::c_sin(x), std::sin(z), true);
    ck.check("cos", z, cm::c_cos(x), std::cos(z), true);
    ck.check("tan", z, cm::c_tan(x), std::tan(z), true);
    ck.check("sinh", z, cm::c_sinh(x), std::sinh(z), true);
    ck.check("cosh", z, cm::c_cosh(x), std::cosh(z), true);
    ck.check("tanh", z, cm::c_tanh(x), std::tanh(z), true);
    ck.check("asin", z, cm::c_asin(x), std::asin(z), true);
    ck.check("acos", z, cm::c_acos(x), std::acos(z), true);
    ck.check("atan", z, cm::c_atan(x), std::atan(z), true);
    ck.check("asinh", z, cm::c_asinh(x), std::asinh(z), true);
    ck.check("acosh", z, cm::c_acosh(x), std::acosh(z), true);
    ck.check("atanh", z, cm::c_atanh(x), std::atanh(z), true);
    const Z w(R(0.75), R(-1.25));
    ck.check("pow", z, cm::c_pow(x, cm::C<R>{w.real(), w.imag()}), std::pow(z, w), false);
    ck.check("mul", z, cm::c_mul(x, cm::C<R>{w.real(), w.imag()}), z * w, true);
    ck.check("div", z, cm::c_div(x, cm::C<R>{w.real(), w.imag()}), z / w, true);
    ck.check("div by", z, cm::c_div(cm::C<R>{w.real(), w.imag()}, x), w / z, true);
    ck.check("square", z, cm::c_mul(x, x), z * z, true);
    const R a = cm::c_abs(x), arg = cm::c_arg(x);
    ck.check("abs, arg", z, cm::C<R>{a, arg}, Z(std::abs(z), std::arg(z)), true);
  }
  // Products and quotients of every pair of special values (Annex G's recovery).
  std::vector<Z> special;
  for (const Z z : test_points<R>()) {
    special.push_back(z);
    if (special.size() == 22 * 22) break;
  }
  for (const Z z : special)
    for (const Z w : {Z(0, 0), Z(std::numeric_limits<R>::infinity(), 1), Z(1, -std::numeric_limits<R>::infinity()),
                      Z(std::numeric_limits<R>::quiet_NaN(), 2), Z(0.5, -0.0), Z(-0.0, 3)}) {
      ck.check("mul special", z, cm::c_mul(cm::C<R>{z.real(), z.imag()}, cm::C<R>{w.real(), w.imag()}), z * w, false);
      ck.check("div special", z, cm::c_div(cm::C<R>{z.real(), z.imag()}, cm::C<R>{w.real(), w.imag()}), z / w, false);
    }
  EXPECT_EQ(ck.failures, 0);
}

TEST(CudaComplexMath, DoubleFunctionsAgreeWithTheCpu) { check_functions<double>(4e-15); }
TEST(CudaComplexMath, FloatFunctionsAgreeWithTheCpu) { check_functions<float>(2e-6f); }

}  // namespace
}  // namespace ember::cuda::kernels
