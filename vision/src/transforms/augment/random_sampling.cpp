// Gamma and Dirichlet sampling (random_sampling.h).
#include "ember/vision/transforms/random_sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>

namespace ember::vision::transforms {
namespace {

// Uniform on (0, 1]: torch draws 1 - uniform[0, 1) where a logarithm or a
// power of it follows.
double uniform_open_zero(Generator* generator) { return 1.0 - uniform_scalar(0.0, 1.0, generator); }

// A standard normal draw (Box-Muller; the second value is not kept).
double standard_normal(Generator* generator) {
  const double u1 = uniform_open_zero(generator);
  const double u2 = uniform_scalar(0.0, 1.0, generator);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace

double sample_gamma(double alpha, Generator* generator) {
  EMBER_CHECK(std::isfinite(alpha) && alpha > 0, "sample_gamma: alpha must be positive and finite, got ", alpha);
  Generator& g = generator ? *generator : default_generator();
  double scale = 1.0;
  // Gamma(alpha) = Gamma(alpha + 1) * U^(1 / alpha): Marsaglia and Tsang's
  // method needs alpha >= 1 (torch's sample_gamma does the same).
  if (alpha < 1.0) {
    scale = std::pow(uniform_open_zero(&g), 1.0 / alpha);
    alpha += 1.0;
  }
  const double d = alpha - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, y;
    do {
      x = standard_normal(&g);
      y = 1.0 + c * x;
    } while (y <= 0);
    const double v = y * y * y;
    const double u = uniform_open_zero(&g);
    const double xx = x * x;
    if (u < 1.0 - 0.0331 * xx * xx) return scale * d * v;
    if (std::log(u) < 0.5 * xx + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

Tensor sample_dirichlet(const Tensor& concentration, Generator* generator) {
  EMBER_CHECK(concentration.defined() && concentration.dim() >= 1 && concentration.size(-1) >= 1,
              "sample_dirichlet: expected a concentration [..., K] with K >= 1, got ",
              concentration.defined() ? concentration.sizes() : IntArrayRef{});
  const DType dtype = concentration.dtype();
  EMBER_CHECK(dtype == DType::Float32 || dtype == DType::Float64,
              "sample_dirichlet: concentration must be float32 or float64, got ", dtype);
  Generator& g = generator ? *generator : default_generator();
  // Sampled on the host (a Generator's stream), returned on concentration's device.
  const Tensor alpha = concentration.to(kCPU, DType::Float64).contiguous();
  const double* a = alpha.data_ptr<double>();
  const int64_t k = concentration.size(-1);
  const int64_t rows = concentration.numel() / k;
  for (int64_t i = 0; i < rows * k; ++i)
    EMBER_CHECK(std::isfinite(a[i]) && a[i] > 0, "sample_dirichlet: concentrations must be positive and finite, got ",
                a[i]);
  Tensor out = empty(concentration.sizes(), DType::Float64);
  double* o = out.data_ptr<double>();
  // torch clamps each Gamma draw below at the smallest normal double, then
  // normalizes and clamps the result into (0, 1) in the output dtype.
  for (int64_t i = 0; i < rows * k; ++i) o[i] = std::max(std::numeric_limits<double>::min(), sample_gamma(a[i], &g));
  const bool f32 = dtype == DType::Float32;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < k; ++j) sum += o[r * k + j];
    for (int64_t j = 0; j < k; ++j) {
      const double v = o[r * k + j] / sum;
      o[r * k + j] = f32 ? std::clamp(static_cast<double>(static_cast<float>(v)),
                                      static_cast<double>(std::numeric_limits<float>::min()),
                                      static_cast<double>(std::nextafter(1.0f, 0.0f)))
                         : std::clamp(v, std::numeric_limits<double>::min(), std::nextafter(1.0, 0.0));
    }
  }
  return out.to(concentration.device(), dtype);
}

}  // namespace ember::vision::transforms
