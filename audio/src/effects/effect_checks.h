#pragma once
// Argument checks shared by the effects: each error names the function and
// the offending value.
#include <cmath>
#include <cstdint>

#include <ember/core/error.h>
#include <ember/core/tensor.h>

namespace ember::audio::effects {

// A float32 or float64 waveform with at least min_dim dims ([..., time]).
inline void check_waveform(const Tensor& waveform, const char* op, int64_t min_dim = 1) {
  EMBER_CHECK(waveform.defined(), op, ": waveform is an undefined tensor");
  EMBER_CHECK(waveform.dtype() == kFloat32 || waveform.dtype() == kFloat64, op,
              ": expected a float32 or float64 waveform, got ", waveform.dtype());
  EMBER_CHECK(waveform.dim() >= min_dim, op, ": expected a waveform of at least ", min_dim,
              min_dim == 1 ? " dim (..., time)" : " dims (..., channel, time)", ", got ", waveform.dim(), " dims");
}

inline void check_finite(double value, const char* op, const char* name) {
  EMBER_CHECK(std::isfinite(value), op, ": ", name, " must be finite, got ", value);
}

inline void check_positive(double value, const char* op, const char* name) {
  EMBER_CHECK(std::isfinite(value) && value > 0, op, ": ", name, " must be positive, got ", value);
}

inline void check_range(double value, double lo, double hi, const char* op, const char* name) {
  EMBER_CHECK(value >= lo && value <= hi, op, ": ", name, " must be in [", lo, ", ", hi, "], got ", value);
}

// The kernel of an effect slot (effect_kernels.h) for t's device and dtype,
// or an error naming the function, the dtype and the device.
template <class Slot>
auto kernel_for(const Slot& slot, const Tensor& t, const char* op) {
  EMBER_CHECK(slot.supports(t.device(), t.dtype()), op, ": no ", slot.name(), " kernel for ", t.dtype(), " on ",
              t.device());
  return slot(t.device());
}

}  // namespace ember::audio::effects
