#pragma once
// Argument checks and parameter tensors shared by the biquad designs.
#include <cmath>

#include <ember/audio/functional/filtering.h>

namespace ember::audio::detail {

// The waveform's dtype, which the design arithmetic runs in (float32 or float64).
inline DType design_dtype(const char* fn, const Tensor& waveform) {
  EMBER_CHECK(waveform.defined(), fn, ": undefined waveform");
  EMBER_CHECK(waveform.dtype() == kFloat32 || waveform.dtype() == kFloat64, fn,
              ": expected a float32 or float64 waveform, got ", waveform.dtype());
  return waveform.dtype();
}

inline void check_sample_rate(const char* fn, int64_t sample_rate) {
  EMBER_CHECK(sample_rate > 0, fn, ": sample_rate must be positive, got ", sample_rate);
}

// A frequency or Q: positive and finite.
inline void check_positive(const char* fn, const char* name, const functional::FilterParam& p) {
  const double v = p.value(fn, name);
  EMBER_CHECK(std::isfinite(v) && v > 0, fn, ": ", name, " must be positive and finite, got ", v);
}

// A gain in dB: finite.
inline void check_finite(const char* fn, const char* name, const functional::FilterParam& p) {
  const double v = p.value(fn, name);
  EMBER_CHECK(std::isfinite(v), fn, ": ", name, " must be finite, got ", v);
}

// torch.as_tensor(p, dtype=waveform.dtype, device=waveform.device).
inline Tensor design_tensor(const Tensor& waveform, const functional::FilterParam& p, const char* fn,
                            const char* name) {
  return p.as_tensor(waveform.dtype(), waveform.device(), fn, name);
}

}  // namespace ember::audio::detail
