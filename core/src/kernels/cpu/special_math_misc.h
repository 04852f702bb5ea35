#pragma once
// Scalar math of ember::special's sinc, entr, logit and xlog1py (the CPU
// kernels in special_misc_kernels.cpp call it). Edge values follow
// torch.special (docs/special.md); every function takes and returns double
// and evaluates in long double, so the float64 result is rounded once from a
// value good to ~2^-62 and float32 is exact up to that double rounding.
#include <cmath>
#include <limits>

namespace ember::special_math {

namespace misc_detail {
inline constexpr long double kPiL = 3.14159265358979323846264338327950288L;
}

// sin(pi x) / (pi x): 1 at 0, exactly 0 at the nonzero integers (torch and
// numpy compute sin(pi x) with the rounded pi x and leave ~1e-17 there), nan at
// +-inf. The argument is reduced exactly (x - 2 round(x / 2), then to
// [-1/2, 1/2]) before the long double sin, so no relative accuracy is lost
// near the zeros, and sinl(pi x) / (pi x) is exact near 0.
inline double sinc(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();
  const double ax = std::fabs(x);
  if (ax == 0) return 1.0;
  double r = ax - 2 * std::nearbyint(ax / 2);  // exact, in [-1, 1]
  if (r > 0.5) r = 1 - r;                      // sin(pi r) = sin(pi (1 - r)), exact
  else if (r < -0.5) r = -1 - r;               // sin(pi r) = sin(pi (-1 - r))
  const long double s = std::sin(misc_detail::kPiL * r);
  return static_cast<double>(s / (misc_detail::kPiL * ax));
}

// -x ln x for x > 0; 0 at +-0; -inf for x < 0; nan stays nan.
inline double entr(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return -std::numeric_limits<double>::infinity();
  if (x == 0) return 0.0;
  return static_cast<double>(-static_cast<long double>(x) * std::log(static_cast<long double>(x)));
}

// log(x / (1 - x)): 2 atanh(2x - 1) for x >= 1/4, where 2x - 1 is exact and
// no cancellation happens near x = 1/2 (log(x/(1-x)), torch's formula, loses
// the relative accuracy of results near 0 there); -inf at +-0, inf at 1, nan
// outside [0, 1].
inline double logit(double x) {
  const long double v = x;
  if (x >= 0.25) return static_cast<double>(2 * std::atanh(2 * v - 1));
  return static_cast<double>(std::log(v / (1 - v)));
}

// x log1p(y), 0 where x == 0 unless y is nan (torch's xlog1py).
inline double xlog1py(double x, double y) {
  if (std::isnan(y)) return y;
  if (x == 0) return 0.0;
  return static_cast<double>(static_cast<long double>(x) * std::log1p(static_cast<long double>(y)));
}

// torch.round(x, decimals=d) exactly as PyTorch computes it, in the dtype's
// own arithmetic T (compute type of 16-bit floats: float): nearbyint (half
// to even) of x * 10^d, divided by 10^d; for d < 0 x / 10^-d is rounded and
// multiplied back. 10^d overflows to inf beyond the dtype's range (d > 308 in
// double gives nan, as in torch).
template <class T>
T round_decimals(T x, long long decimals) {
  const bool negative = decimals < 0;
  const T ten_pow = static_cast<T>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals)));
  return negative ? std::nearbyint(x / ten_pow) * ten_pow : std::nearbyint(x * ten_pow) / ten_pow;
}

}  // namespace ember::special_math
