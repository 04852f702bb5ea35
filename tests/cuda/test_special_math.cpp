// The CUDA kernels' Bessel functions (cuda/src/kernels/special_bessel_math.cuh,
// compiled here as host code) against the CPU's (kernels/cpu/special_math_bessel.h,
// which evaluates in long double): the same algorithms in double agree to
// 1e-14 of the value, except that past x ~ 26 J0 and J1 near their zeros keep
// an absolute accuracy of ~1e-17 (of an amplitude ~0.15) where long double
// keeps more. Runs without a GPU; test_special.cpp compares the kernels on one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "../../cuda/src/kernels/special_bessel_math.cuh"
#include "kernels/cpu/special_math_bessel.h"

namespace ember::cuda::kernels {
namespace {

TEST(CudaSpecialMath, BesselFunctionsAgreeWithTheCpu) {
  std::vector<double> xs = {0.0, -0.0, 1e-300, 1e-10, 0.5, 1, 2.404825557695773, 3.8317059702075125, 5.520078110286311,
                            24.352471530749302, 25, 25.000001, 26, 27.5, 30, 100, 700, 709, 710, 713, 720, 1e5, 1e10,
                            std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 40);
  for (int i = 0; i < 20000; ++i) xs.push_back(u(rng));
  for (int i = 0; i < 200; ++i) xs.push_back(std::ldexp(u(rng), -static_cast<int>(u(rng))));
  const size_t n = xs.size();
  for (size_t i = 0; i < n; ++i) xs.push_back(-xs[i]);
  struct Fn {
    const char* name;
    double (*gpu)(double);
    double (*cpu)(double);
  };
  const Fn fns[] = {{"i0", bessel::i0, special_math::i0},         {"i0e", bessel::i0e, special_math::i0e},
                    {"i1", bessel::i1, special_math::i1},         {"i1e", bessel::i1e, special_math::i1e},
                    {"j0", bessel::j0, special_math::bessel_j0}, {"j1", bessel::j1, special_math::bessel_j1}};
  for (const Fn& f : fns) {
    int failures = 0;
    for (double x : xs) {
      const double g = f.gpu(x), c = f.cpu(x);
      const bool ok = (std::isnan(g) && std::isnan(c)) ||
                      (g == c && std::signbit(g) == std::signbit(c)) ||
                      (std::isfinite(c) && std::abs(g - c) <= 1e-14 * std::abs(c) + (f.name[0] == 'j' ? 4e-17 : 1e-300));
      if (!ok && ++failures <= 10) ADD_FAILURE() << f.name << "(" << x << ") = " << g << ", the CPU gives " << c;
    }
    EXPECT_EQ(failures, 0) << f.name;
  }
}

}  // namespace
}  // namespace ember::cuda::kernels
