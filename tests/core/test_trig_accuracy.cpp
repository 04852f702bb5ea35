// sin and cos of float32 and float64 (the vectorized polynomial of
// kernels/cpu/vec_trig.h, Note [Vectorized sin and cos]) against float64 and
// long double libm references, element by element: wide magnitude ranges,
// the points nearest multiples of pi/2 (where range reduction loses most),
// huge arguments (libm's own path), -0.0, denormals, inf and NaN, and
// contiguous, strided and odd-length layouts (vector body, scalar tail).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include <ember/ember.h>

#include "special_ulp.h"

using namespace ember;
using ember::testing::values_of;

namespace trig_accuracy_test {

// Arguments: log-uniform magnitudes from denormal to 2^40 of both signs, the
// representable neighbours of k * pi/2, and the special values.
template <class T>
std::vector<T> trig_arguments() {
  std::vector<T> xs;
  std::mt19937_64 gen(20);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  const int lo = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;
  std::uniform_int_distribution<int> expo(lo, 40);
  for (int i = 0; i < 200000; ++i) {
    const T x = static_cast<T>(std::ldexp(mant(gen), expo(gen)));
    xs.push_back(i % 2 ? -x : x);
  }
  // Near multiples of pi/2 (long double pi/2, so k * pi/2 is the true point to
  // ~2^-64 relative), up to k = 2^24.
  const long double half_pi = 1.570796326794896619231321691639751442L;
  for (int64_t k = 1; k < (int64_t{1} << 24); k += (k < 2000 ? 1 : k / 500)) {
    const T x = static_cast<T>(static_cast<long double>(k) * half_pi);
    for (T v : {x, std::nextafter(x, T(0)), std::nextafter(x, std::numeric_limits<T>::infinity())}) {
      xs.push_back(v);
      xs.push_back(-v);
    }
  }
  const T inf = std::numeric_limits<T>::infinity();
  for (T v : {T(0), T(-0.0), inf, -inf, std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(),
              -std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
              -std::numeric_limits<T>::max(), T(268435456), T(268435456 * 1.0000001), T(1e30), T(-3e37)})
    xs.push_back(v);
  xs.push_back(T(0.5));  // an odd length: the last elements go through the scalar tail
  return xs;
}

template <class T>
Tensor as_tensor(const std::vector<T>& xs) {
  return from_blob(const_cast<T*>(xs.data()), {static_cast<int64_t>(xs.size())}, TensorOptions().dtype(dtype_of_v<T>)).clone();
}

// Max ulp error of f(x) against ref(x) (a long double), in units of T at ref.
template <class T, class F, class Ref>
double max_ulp(const std::vector<T>& xs, const F& got, const Ref& ref, T* worst_x) {
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double r = ref(xs[i]);
    const T a = got[i];
    if (std::isnan(r)) {
      EXPECT_TRUE(std::isnan(a)) << "x = " << xs[i];
      continue;
    }
    const T rt = static_cast<T>(r);
    const T up = std::nextafter(std::fabs(rt), std::numeric_limits<T>::infinity());
    const long double spacing = static_cast<long double>(up) - std::fabs(static_cast<long double>(rt));
    const double u = static_cast<double>(std::fabs(static_cast<long double>(a) - r) / spacing);
    if (u > worst) worst = u, *worst_x = xs[i];
  }
  return worst;
}

template <class T>
void check_sin_cos(double bound) {
  const std::vector<T> xs = trig_arguments<T>();
  const Tensor x = as_tensor(xs);
  for (int cosine = 0; cosine < 2; ++cosine) {
    auto ref = [cosine](T v) -> long double {
      if constexpr (std::is_same_v<T, float>) return cosine ? std::cos(double(v)) : std::sin(double(v));
      else return cosine ? cosl(static_cast<long double>(v)) : sinl(static_cast<long double>(v));
    };
    // Contiguous (vector body + tail) and every other element (strided: libm per element).
    const Tensor y = cosine ? cos(x) : sin(x);
    const std::vector<T> got(y.data_ptr<T>(), y.data_ptr<T>() + y.numel());
    T at = 0;
    const double u = max_ulp(xs, got, ref, &at);
    std::printf("[ max ULP ] %s %s: %.3f at x = %.17g\n", dtype_of_v<T> == kFloat32 ? "float32" : "float64",
                cosine ? "cos" : "sin", u, static_cast<double>(at));
    EXPECT_LE(u, bound) << (cosine ? "cos" : "sin") << " at x = " << at;
    const Tensor ys = cosine ? cos(x.slice(0, 1, x.size(0), 2)) : sin(x.slice(0, 1, x.size(0), 2));
    const Tensor yc = y.slice(0, 1, y.size(0), 2).contiguous();
    const Tensor ysc = ys.contiguous();
    std::vector<T> odd;
    for (size_t i = 1; i < xs.size(); i += 2) odd.push_back(xs[i]);
    const std::vector<T> got_strided(ysc.data_ptr<T>(), ysc.data_ptr<T>() + ysc.numel());
    EXPECT_LE(max_ulp(odd, got_strided, ref, &at), bound) << "strided, at x = " << at;
  }
}

TEST(TrigAccuracy, Float32SinCosWithinOneAndAHalfUlpOfFloat64Libm) { check_sin_cos<float>(1.5); }
TEST(TrigAccuracy, Float64SinCosWithinTwoUlpOfLongDoubleLibm) { check_sin_cos<double>(2.0); }

// Signed zeros, denormals, infinities and NaN exactly as libm gives them, in
// a vector body (8 float / 4 double lanes of the same value) and in the tail.
template <class T>
void check_special_values() {
  const T inf = std::numeric_limits<T>::infinity(), dmin = std::numeric_limits<T>::denorm_min();
  for (T v : {T(-0.0), T(0), dmin, -dmin, T(3) * dmin, inf, -inf, std::numeric_limits<T>::quiet_NaN(),
              std::numeric_limits<T>::max(), T(1e30)}) {
    SCOPED_TRACE(v);
    const Tensor x = full({19}, v, TensorOptions().dtype(dtype_of_v<T>));
    const Tensor s = sin(x), c = cos(x);
    for (int64_t i = 0; i < 19; ++i) {
      const T si = s.data_ptr<T>()[i], ci = c.data_ptr<T>()[i];
      if (std::isnan(std::sin(v))) {
        EXPECT_TRUE(std::isnan(si));
        EXPECT_TRUE(std::isnan(ci));
        continue;
      }
      EXPECT_EQ(si, std::sin(v)) << "element " << i;
      EXPECT_EQ(std::signbit(si), std::signbit(std::sin(v))) << "sign, element " << i;
      EXPECT_EQ(ci, std::cos(v)) << "element " << i;
    }
  }
}

TEST(TrigAccuracy, Float32SpecialValuesAsLibm) { check_special_values<float>(); }
TEST(TrigAccuracy, Float64SpecialValuesAsLibm) { check_special_values<double>(); }

// A vector with one huge lane goes to libm as a whole; its other lanes must
// still be right (and equal libm's, which computes them).
TEST(TrigAccuracy, HugeLaneBesideSmallOnes) {
  std::vector<float> xs = {0.5f, -1.25f, 3e9f, 2.f, -0.f, 7.f, 100.f, 1e-3f};
  const Tensor x = as_tensor(xs);
  const Tensor s = sin(x), c = cos(x);
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_EQ(s.data_ptr<float>()[i], std::sin(xs[i])) << "x = " << xs[i];
    EXPECT_EQ(c.data_ptr<float>()[i], std::cos(xs[i])) << "x = " << xs[i];
  }
  EXPECT_TRUE(std::signbit(s.data_ptr<float>()[4]));
}

// float16/bfloat16 keep their float libm path; in-place and out= forms
// take the same kernel.
TEST(TrigAccuracy, InPlaceOutAndReducedFloats) {
  const Tensor x = linspace(-20, 20, 1001);
  Tensor a = x.clone();
  a.sin_();
  EXPECT_TRUE(equal(a, sin(x)));
  Tensor o = empty({1001});
  cos_out(o, x);
  EXPECT_TRUE(equal(o, cos(x)));
  const Tensor xh = x.to(kHalf);
  EXPECT_TRUE(allclose(sin(xh).to(kFloat32), sin(xh.to(kFloat32)), 1e-3, 1e-3));
  const Tensor d = sin(x.to(kFloat64));
  EXPECT_TRUE(allclose(sin(x).to(kFloat64), d, 1e-6, 1e-7));
}

}  // namespace trig_accuracy_test
