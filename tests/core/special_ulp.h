#pragma once
// ULP measurement for the ember::special accuracy tests: the max error of a
// result against a correctly rounded reference, printed as a `[ max ULP ]`
// line and bounded; exact edge-value checks (signs of zeros included).
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

namespace ember::testing {

inline std::vector<double> values_of(const Tensor& t) {
  const Tensor d = t.to(kFloat64).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

// |actual - expected| in units of the spacing of `expected` in T (nan == nan
// and equal infinities are exact; any other mismatch of non-finite values is
// infinite).
template <class T>
double ulp_error(double actual, double expected) {
  if (std::isnan(actual) && std::isnan(expected)) return 0;
  if (actual == expected) return 0;
  if (!std::isfinite(actual) || !std::isfinite(expected)) return std::numeric_limits<double>::infinity();
  const T e = static_cast<T>(expected);
  const T up = std::nextafter(std::fabs(e), std::numeric_limits<T>::infinity());
  const double spacing = static_cast<double>(up) - std::fabs(static_cast<double>(e));
  return std::fabs(actual - expected) / spacing;
}

inline double ulp_error_in(DType dt, double actual, double expected) {
  return dt == kFloat32 ? ulp_error<float>(actual, expected) : ulp_error<double>(actual, expected);
}

// Prints the max ULP error of actual against expected over the elements where
// mask (if given) is true, and bounds it; `inputs` (optional, same numel)
// names the worst point in a failure.
inline double check_ulp(const std::string& what, const Tensor& actual, const Tensor& expected, double bound,
                        const Tensor& inputs = Tensor(), const std::vector<bool>& mask = {}) {
  EXPECT_EQ(actual.sizes(), expected.sizes()) << what;
  EXPECT_EQ(actual.dtype(), expected.dtype()) << what;
  const std::vector<double> a = values_of(actual), e = values_of(expected);
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < a.size() && i < e.size(); ++i) {
    if (!mask.empty() && !mask[i]) continue;
    const double u = ulp_error_in(actual.dtype(), a[i], e[i]);
    if (u > worst) worst = u, at = i;
  }
  std::printf("[ max ULP ] %-26s %8.2f\n", what.c_str(), worst);
  const bool named = inputs.defined() && inputs.numel() == actual.numel();
  EXPECT_LE(worst, bound) << what << ": at flat index " << at
                          << (named ? " x = " + std::to_string(values_of(inputs)[at]) : std::string()) << " got "
                          << (a.empty() ? 0.0 : a[at]) << " expected " << (e.empty() ? 0.0 : e[at]);
  return worst;
}

// Exact values (and signs of zeros); expected values are rounded to the result's dtype.
inline void expect_values(const Tensor& actual, std::vector<double> expected) {
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

}  // namespace ember::testing
