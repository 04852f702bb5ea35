// contrast, dcshift and gain: functions of each sample, composed of core ops
// (so differentiable and device-generic), in torchaudio 0.13's order of
// operations (filtering.py), each Python float rounded to the waveform's dtype.
#include <cmath>
#include <numbers>

#include <ember/audio/functional/effects.h>
#include <ember/ops/elementwise.h>

#include "effects/effect_checks.h"

namespace ember::audio::functional {

Tensor contrast(const Tensor& waveform, double enhancement_amount) {
  audio::effects::check_waveform(waveform, "contrast");
  audio::effects::check_range(enhancement_amount, 0.0, 100.0, "contrast", "enhancement_amount");
  const double amount = enhancement_amount / 750.0;
  const Tensor temp1 = waveform * (std::numbers::pi / 2);
  const Tensor temp2 = amount * (temp1 * 4).sin();
  return (temp1 + temp2).sin();
}

// torchaudio writes the limited and the shifted samples into the input through
// masks (modifying it in place); the same values come from a where() here,
// which leaves the input alone and keeps the result differentiable.
Tensor dcshift(const Tensor& waveform, double shift, std::optional<double> limiter_gain) {
  audio::effects::check_waveform(waveform, "dcshift");
  audio::effects::check_finite(shift, "dcshift", "shift");
  const Tensor shifted = (waveform + shift).clamp(-1.0, 1.0);
  if (!limiter_gain || shift == 0) return shifted;
  const double gain = *limiter_gain;
  audio::effects::check_finite(gain, "dcshift", "limiter_gain");
  const double threshold = 1.0 - (std::abs(shift) - gain);
  if (shift > 0) {
    const Tensor limited = ((waveform - threshold) * gain / (1 - threshold) + threshold + shift).clamp_max(threshold);
    return where(waveform > threshold, limited, shifted);
  }
  const Tensor limited = ((waveform + threshold) * gain / (1 - threshold) - threshold + shift).clamp_min(-threshold);
  return where(waveform < -threshold, limited, shifted);
}

Tensor gain(const Tensor& waveform, double gain_db) {
  audio::effects::check_waveform(waveform, "gain");
  audio::effects::check_finite(gain_db, "gain", "gain_db");
  if (gain_db == 0) return waveform;
  return waveform * std::pow(10.0, gain_db / 20);
}

}  // namespace ember::audio::functional
