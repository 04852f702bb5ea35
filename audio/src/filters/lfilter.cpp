// lfilter, as torchaudio 0.13's filtering.py: argument checks, coefficient
// shapes and batching, normalization by a_0, and the choice between the fused
// kernel (nothing to differentiate) and the differentiable halves.
#include <cmath>
#include <string>
#include <vector>

#include <ember/audio/functional/filtering.h>

#include "filters/lfilter_ops.h"

namespace ember::audio {
namespace detail {
namespace {

// Shapes, dtypes and devices of the three tensors.
void check_arguments(const char* fn, const Tensor& waveform, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(waveform.defined() && a.defined() && b.defined(), fn, ": undefined tensor argument");
  EMBER_CHECK(waveform.dtype() == kFloat32 || waveform.dtype() == kFloat64, fn,
              ": expected a float32 or float64 waveform, got ", waveform.dtype());
  EMBER_CHECK(waveform.dim() >= 1, fn, ": expected a waveform [..., time], got a 0-dim tensor");
  EMBER_CHECK(a.dtype() == waveform.dtype() && b.dtype() == waveform.dtype(), fn, ": a_coeffs (", a.dtype(),
              ") and b_coeffs (", b.dtype(), ") must have the waveform's dtype (", waveform.dtype(), ")");
  EMBER_CHECK(a.device() == waveform.device() && b.device() == waveform.device(), fn, ": a_coeffs (", a.device(),
              ") and b_coeffs (", b.device(), ") must be on the waveform's device (", waveform.device(), ")");
  EMBER_CHECK(a.sizes() == b.sizes(), fn, ": a_coeffs and b_coeffs must have the same shape (pad the shorter with ",
              "zeros), got ", a.sizes(), " and ", b.sizes());
  EMBER_CHECK(a.dim() == 1 || a.dim() == 2, fn,
              ": coefficients must be 1-D [order + 1] or 2-D [num_filters, order + 1], got shape ", a.sizes());
  EMBER_CHECK(a.size(-1) >= 1, fn, ": coefficients need at least a_0 and b_0, got shape ", a.sizes());
}

// Values, read on the host (a few numbers): finite, and a_0 != 0 per filter.
void check_values(const char* fn, const Tensor& a, const Tensor& b) {
  const Tensor a_host = a.detach().to(kCPU, kFloat64).contiguous().reshape({-1, a.size(-1)});
  const Tensor b_host = b.detach().to(kCPU, kFloat64).contiguous().reshape({-1, b.size(-1)});
  const int64_t filters = a_host.size(0), taps = a_host.size(1);
  const double* av = a_host.data_ptr<double>();
  const double* bv = b_host.data_ptr<double>();
  // "[k]" for 1-D coefficients, "[f][k]" for 2-D ones.
  auto at = [&](int64_t f, int64_t k) {
    return a.dim() == 2 ? ember::detail::concat("[", f, "][", k, "]") : ember::detail::concat("[", k, "]");
  };
  for (int64_t f = 0; f < filters; ++f) {
    for (int64_t k = 0; k < taps; ++k) {
      EMBER_CHECK(std::isfinite(av[f * taps + k]), fn, ": coefficients must be finite, got a_coeffs", at(f, k),
                  " = ", av[f * taps + k]);
      EMBER_CHECK(std::isfinite(bv[f * taps + k]), fn, ": coefficients must be finite, got b_coeffs", at(f, k),
                  " = ", bv[f * taps + k]);
    }
    EMBER_CHECK(av[f * taps] != 0.0, fn, ": a_0 must be non-zero (the filter divides by it), got a_coeffs",
                at(f, 0), " = 0");
  }
}

int64_t product(const std::vector<int64_t>& sizes, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= sizes[i];
  return p;
}

}  // namespace

Tensor lfilter_impl(const char* fn, const Tensor& waveform, const Tensor& a_coeffs, const Tensor& b_coeffs,
                    bool clamp, bool batching) {
  check_arguments(fn, waveform, a_coeffs, b_coeffs);
  check_values(fn, a_coeffs, b_coeffs);
  Tensor x = waveform, a = a_coeffs, b = b_coeffs;
  if (a.dim() == 2) {
    const int64_t filters = a.size(0);
    if (batching) {
      EMBER_CHECK(x.dim() >= 2 && x.size(-2) == filters, fn, ": with ", filters,
                  " filters and batching, the waveform must be [..., ", filters, ", time], got shape ", x.sizes());
    } else {
      // Every filter on the whole waveform: [..., time] -> [..., num_filters, time].
      std::vector<int64_t> expanded = x.sizes().vec();
      expanded.insert(expanded.end() - 1, filters);
      x = x.unsqueeze(-2).expand(expanded);
    }
  } else {
    a = a.unsqueeze(0);
    b = b.unsqueeze(0);
  }
  const std::vector<int64_t> shape = x.sizes().vec();
  const int64_t filters = a.size(0), length = shape.back();
  const int64_t batch = product(shape, 0, shape.size() - 1) / (filters == 0 ? 1 : filters);
  const Tensor packed = filters == 0 ? x.reshape({0, 0, length}) : x.reshape({batch, filters, length});

  const Tensor a0 = a.narrow(1, 0, 1);
  const Tensor a_norm = a / a0, b_norm = b / a0;
  Tensor y;
  if (is_grad_enabled() && (x.requires_grad() || a.requires_grad() || b.requires_grad())) {
    y = iir_filter(fn, fir_filter(fn, packed, b_norm), a_norm);
    if (clamp) y = y.clamp(-1.0, 1.0);
  } else {
    y = run_lfilter_kernel(fn, packed, a_norm, b_norm, clamp);
  }
  return y.reshape(shape);
}

}  // namespace detail

namespace functional {

Tensor lfilter(const Tensor& waveform, const Tensor& a_coeffs, const Tensor& b_coeffs, bool clamp, bool batching) {
  return detail::lfilter_impl("lfilter", waveform, a_coeffs, b_coeffs, clamp, batching);
}

}  // namespace functional
}  // namespace ember::audio
