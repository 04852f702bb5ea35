// Window functions (ember/ops/windows.h). Each window is a function of
// t = n / (N - 1) on the symmetric grid; periodic windows use N + 1 points and
// drop the last (PyTorch's definition). Computed in double, rounded once.
#include "ember/ops/windows.h"

#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

#include "ember/core/error.h"
#include "ember/ops/factories.h"

namespace ember {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// f(n, M) gives point n of the symmetric window of M points (M >= 2).
Tensor make_window(const char* op, int64_t window_length, bool periodic, const TensorOptions& options,
                   const std::function<double(double n, double m)>& f) {
  EMBER_CHECK(window_length >= 0, op, ": window_length must be non-negative, got ", window_length);
  EMBER_CHECK(is_floating_point(options.dtype()), op, ": expected a floating point dtype, got ",
              dtype_name(options.dtype()));
  if (window_length <= 1) return ones({window_length}, options);
  const int64_t m = periodic ? window_length + 1 : window_length;
  std::vector<double> values(static_cast<size_t>(window_length));
  for (int64_t n = 0; n < window_length; ++n) values[n] = f(static_cast<double>(n), static_cast<double>(m));
  return from_blob(values.data(), {window_length}, TensorOptions(kFloat64)).to(options.device(), options.dtype(), /*copy=*/true);
}

// Modified Bessel function of the first kind, order 0, by its power series
// sum_k ((x/2)^k / k!)^2: every term is positive, so it converges without
// cancellation for the arguments a window needs (|x| <= beta).
double bessel_i0(double x) {
  const double q = 0.25 * x * x;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 100000 && term > sum * 1e-17; ++k) {
    term *= q / (static_cast<double>(k) * k);
    sum += term;
  }
  return sum;
}

}  // namespace

Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta,
                      const TensorOptions& options) {
  return make_window("hamming_window", window_length, periodic, options, [=](double n, double m) {
    return alpha - beta * std::cos(kTwoPi * n / (m - 1));
  });
}

Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return make_window("hann_window", window_length, periodic, options, [](double n, double m) {
    return 0.5 - 0.5 * std::cos(kTwoPi * n / (m - 1));
  });
}

Tensor blackman_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return make_window("blackman_window", window_length, periodic, options, [](double n, double m) {
    const double a = kTwoPi * n / (m - 1);
    return 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a);
  });
}

Tensor bartlett_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return make_window("bartlett_window", window_length, periodic, options, [](double n, double m) {
    return 1.0 - std::abs(2.0 * n / (m - 1) - 1.0);
  });
}

Tensor kaiser_window(int64_t window_length, bool periodic, double beta, const TensorOptions& options) {
  EMBER_CHECK(beta >= 0 && std::isfinite(beta), "kaiser_window: beta must be finite and non-negative, got ",
              beta);
  const double i0_beta = bessel_i0(beta);
  return make_window("kaiser_window", window_length, periodic, options, [=](double n, double m) {
    const double a = (m - 1) / 2;
    const double r = (n - a) / a;
    return bessel_i0(beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / i0_beta;
  });
}

}  // namespace ember
