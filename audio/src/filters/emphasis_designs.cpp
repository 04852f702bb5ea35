// deemph_biquad and riaa_biquad, as torchaudio 0.13's filtering.py: fixed
// designs per sample rate, computed in double (Python floats; compiled with
// -ffp-contract=off so each operation rounds as Python's does), then biquad.
#include <cmath>

#include <ember/audio/functional/filtering.h>

#include "filters/design_params.h"

namespace ember::audio::functional {

Tensor deemph_biquad(const Tensor& waveform, int64_t sample_rate) {
  detail::design_dtype("deemph_biquad", waveform);
  double central_freq = 0, width_slope = 0, gain = 0;
  if (sample_rate == 44100) {
    central_freq = 5283;
    width_slope = 0.4845;
    gain = -9.477;
  } else if (sample_rate == 48000) {
    central_freq = 5356;
    width_slope = 0.479;
    gain = -9.62;
  } else {
    EMBER_FAIL("deemph_biquad: sample_rate must be 44100 (audio CD) or 48000 (DAT), got ", sample_rate);
  }
  const double w0 = 2 * M_PI * central_freq / static_cast<double>(sample_rate);
  const double A = std::exp(gain / 40.0 * std::log(10.0));
  const double alpha = std::sin(w0) / 2 * std::sqrt((A + 1 / A) * (1 / width_slope - 1) + 2);
  const double temp1 = 2 * std::sqrt(A) * alpha;
  const double temp2 = (A - 1) * std::cos(w0);
  const double temp3 = (A + 1) * std::cos(w0);
  const double b0 = A * ((A + 1) + temp2 + temp1);
  const double b1 = -2 * A * ((A - 1) + temp3);
  const double b2 = A * ((A + 1) + temp2 - temp1);
  const double a0 = (A + 1) - temp2 + temp1;
  const double a1 = 2 * ((A - 1) - temp3);
  const double a2 = (A + 1) - temp2 - temp1;
  return biquad(waveform, b0, b1, b2, a0, a1, a2);
}

Tensor riaa_biquad(const Tensor& waveform, int64_t sample_rate) {
  detail::design_dtype("riaa_biquad", waveform);
  double zeros[2], poles[2];
  if (sample_rate == 44100) {
    zeros[0] = -0.2014898, zeros[1] = 0.9233820, poles[0] = 0.7083149, poles[1] = 0.9924091;
  } else if (sample_rate == 48000) {
    zeros[0] = -0.1766069, zeros[1] = 0.9321590, poles[0] = 0.7396325, poles[1] = 0.9931330;
  } else if (sample_rate == 88200) {
    zeros[0] = -0.1168735, zeros[1] = 0.9648312, poles[0] = 0.8590646, poles[1] = 0.9964002;
  } else if (sample_rate == 96000) {
    zeros[0] = -0.1141486, zeros[1] = 0.9676817, poles[0] = 0.8699137, poles[1] = 0.9966946;
  } else {
    EMBER_FAIL("riaa_biquad: sample_rate must be 44100, 48000, 88200 or 96000, got ", sample_rate);
  }
  // The polynomials with those roots, normalized to 0 dB at 1 kHz.
  double b0 = 1.0, b1 = -(zeros[0] + zeros[1]), b2 = zeros[0] * zeros[1];
  const double a0 = 1.0, a1 = -(poles[0] + poles[1]), a2 = poles[0] * poles[1];
  const double y = 2 * M_PI * 1000 / static_cast<double>(sample_rate);
  const double b_re = b0 + b1 * std::cos(-y) + b2 * std::cos(-2 * y);
  const double a_re = a0 + a1 * std::cos(-y) + a2 * std::cos(-2 * y);
  const double b_im = b1 * std::sin(-y) + b2 * std::sin(-2 * y);
  const double a_im = a1 * std::sin(-y) + a2 * std::sin(-2 * y);
  const double g = 1 / std::sqrt((b_re * b_re + b_im * b_im) / (a_re * a_re + a_im * a_im));
  b0 *= g;
  b1 *= g;
  b2 *= g;
  return biquad(waveform, b0, b1, b2, a0, a1, a2);
}

}  // namespace ember::audio::functional
