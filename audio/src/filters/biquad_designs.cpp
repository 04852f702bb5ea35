// The second-order designs of torchaudio 0.13's filtering.py (SoX's, after the
// Audio EQ Cookbook): lowpass, highpass, bandpass, bandreject, allpass, band.
// Each expression keeps torchaudio's operand order, on 0-dim tensors of the
// waveform's dtype (Python floats become wrapped numbers, as in torch), so
// float32 coefficients round as torchaudio's do.
#include <cmath>

#include <ember/audio/functional/filtering.h>

#include "filters/design_params.h"

namespace ember::audio::functional {
namespace {

using detail::check_positive;
using detail::check_sample_rate;
using detail::design_dtype;
using detail::design_tensor;

// w0 = 2 pi f / sample_rate, the design's centre in radians per sample.
Tensor angular_frequency(const Tensor& freq, int64_t sample_rate) { return 2 * M_PI * freq / sample_rate; }

// Checks shared by the designs with a frequency and a Q.
void check_frequency_and_q(const char* fn, const Tensor& waveform, int64_t sample_rate, const char* freq_name,
                           const FilterParam& freq, const FilterParam& Q) {
  design_dtype(fn, waveform);
  check_sample_rate(fn, sample_rate);
  check_positive(fn, freq_name, freq);
  check_positive(fn, "Q", Q);
}

}  // namespace

Tensor lowpass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& cutoff_freq, const FilterParam& Q) {
  const char* fn = "lowpass_biquad";
  check_frequency_and_q(fn, waveform, sample_rate, "cutoff_freq", cutoff_freq, Q);
  const Tensor w0 = angular_frequency(design_tensor(waveform, cutoff_freq, fn, "cutoff_freq"), sample_rate);
  const Tensor q = design_tensor(waveform, Q, fn, "Q");
  const Tensor alpha = w0.sin() / 2 / q;
  const Tensor b0 = (1 - w0.cos()) / 2;
  const Tensor b1 = 1 - w0.cos();
  return biquad(waveform, b0, b1, b0, 1 + alpha, -2 * w0.cos(), 1 - alpha);
}

Tensor highpass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& cutoff_freq,
                       const FilterParam& Q) {
  const char* fn = "highpass_biquad";
  check_frequency_and_q(fn, waveform, sample_rate, "cutoff_freq", cutoff_freq, Q);
  const Tensor w0 = angular_frequency(design_tensor(waveform, cutoff_freq, fn, "cutoff_freq"), sample_rate);
  const Tensor q = design_tensor(waveform, Q, fn, "Q");
  const Tensor alpha = w0.sin() / 2.0 / q;
  const Tensor b0 = (1 + w0.cos()) / 2;
  const Tensor b1 = -1 - w0.cos();
  return biquad(waveform, b0, b1, b0, 1 + alpha, -2 * w0.cos(), 1 - alpha);
}

Tensor bandpass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& central_freq,
                       const FilterParam& Q, bool const_skirt_gain) {
  const char* fn = "bandpass_biquad";
  check_frequency_and_q(fn, waveform, sample_rate, "central_freq", central_freq, Q);
  const Tensor w0 = angular_frequency(design_tensor(waveform, central_freq, fn, "central_freq"), sample_rate);
  const Tensor q = design_tensor(waveform, Q, fn, "Q");
  const Tensor alpha = w0.sin() / 2 / q;
  const Tensor temp = const_skirt_gain ? w0.sin() / 2 : alpha;
  return biquad(waveform, temp, 0.0, -temp, 1 + alpha, -2 * w0.cos(), 1 - alpha);
}

Tensor bandreject_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& central_freq,
                         const FilterParam& Q) {
  const char* fn = "bandreject_biquad";
  check_frequency_and_q(fn, waveform, sample_rate, "central_freq", central_freq, Q);
  const Tensor w0 = angular_frequency(design_tensor(waveform, central_freq, fn, "central_freq"), sample_rate);
  const Tensor q = design_tensor(waveform, Q, fn, "Q");
  const Tensor alpha = w0.sin() / 2 / q;
  return biquad(waveform, 1.0, -2 * w0.cos(), 1.0, 1 + alpha, -2 * w0.cos(), 1 - alpha);
}

Tensor allpass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& central_freq,
                      const FilterParam& Q) {
  const char* fn = "allpass_biquad";
  check_frequency_and_q(fn, waveform, sample_rate, "central_freq", central_freq, Q);
  const Tensor w0 = angular_frequency(design_tensor(waveform, central_freq, fn, "central_freq"), sample_rate);
  const Tensor q = design_tensor(waveform, Q, fn, "Q");
  const Tensor alpha = w0.sin() / 2 / q;
  return biquad(waveform, 1 - alpha, -2 * w0.cos(), 1 + alpha, 1 + alpha, -2 * w0.cos(), 1 - alpha);
}

Tensor band_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& central_freq, const FilterParam& Q,
                   bool noise) {
  const char* fn = "band_biquad";
  check_frequency_and_q(fn, waveform, sample_rate, "central_freq", central_freq, Q);
  const Tensor freq = design_tensor(waveform, central_freq, fn, "central_freq");
  const Tensor q = design_tensor(waveform, Q, fn, "Q");
  const Tensor w0 = angular_frequency(freq, sample_rate);
  const Tensor bw_hz = freq / q;
  const Tensor a2 = (-2 * M_PI * bw_hz / sample_rate).exp();
  const Tensor a1 = -4 * a2 / (1 + a2) * w0.cos();
  Tensor b0 = (1 - a1 * a1 / (4 * a2)).sqrt() * (1 - a2);
  if (noise) {
    const Tensor mult = (((1 + a2) * (1 + a2) - a1 * a1) * (1 - a2) / (1 + a2)).sqrt() / b0;
    b0 = mult * b0;
  }
  return biquad(waveform, b0, 0.0, 0.0, 1.0, a1, a2);
}

}  // namespace ember::audio::functional
