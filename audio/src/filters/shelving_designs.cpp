// The tone controls and the peaking equalizer of torchaudio 0.13's
// filtering.py: bass_biquad, treble_biquad (shelving) and equalizer_biquad,
// with torchaudio's operand order on tensors of the waveform's dtype.
#include <cmath>

#include <ember/audio/functional/filtering.h>

#include "filters/design_params.h"

namespace ember::audio::functional {
namespace {

using detail::check_finite;
using detail::check_positive;
using detail::check_sample_rate;
using detail::design_dtype;
using detail::design_tensor;

// What the three designs share: w0 = 2 pi f / sample_rate, alpha = sin(w0) / 2 / Q,
// and the amplitude A = 10^(gain / 40).
struct Peak {
  Tensor w0, alpha, A;
};

Peak peak_terms(const char* fn, const Tensor& waveform, int64_t sample_rate, const char* freq_name,
                const FilterParam& freq, const FilterParam& gain, const FilterParam& Q, double gain_divisor) {
  design_dtype(fn, waveform);
  check_sample_rate(fn, sample_rate);
  check_positive(fn, freq_name, freq);
  check_positive(fn, "Q", Q);
  check_finite(fn, "gain", gain);
  Peak p;
  p.w0 = 2 * M_PI * design_tensor(waveform, freq, fn, freq_name) / sample_rate;
  p.alpha = p.w0.sin() / 2 / design_tensor(waveform, Q, fn, "Q");
  // torchaudio writes gain / 40 (bass, treble) and gain / 40.0 (equalizer): the same value.
  p.A = (design_tensor(waveform, gain, fn, "gain") / gain_divisor * std::log(10.0)).exp();
  return p;
}

}  // namespace

Tensor bass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& gain,
                   const FilterParam& central_freq, const FilterParam& Q) {
  const Peak p = peak_terms("bass_biquad", waveform, sample_rate, "central_freq", central_freq, gain, Q, 40);
  const Tensor& A = p.A;
  const Tensor temp1 = 2 * A.sqrt() * p.alpha;
  const Tensor temp2 = (A - 1) * p.w0.cos();
  const Tensor temp3 = (A + 1) * p.w0.cos();
  const Tensor b0 = A * ((A + 1) - temp2 + temp1);
  const Tensor b1 = 2 * A * ((A - 1) - temp3);
  const Tensor b2 = A * ((A + 1) - temp2 - temp1);
  const Tensor a0 = (A + 1) + temp2 + temp1;
  const Tensor a1 = -2 * ((A - 1) + temp3);
  const Tensor a2 = (A + 1) + temp2 - temp1;
  return biquad(waveform, b0 / a0, b1 / a0, b2 / a0, a0 / a0, a1 / a0, a2 / a0);
}

Tensor treble_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& gain,
                     const FilterParam& central_freq, const FilterParam& Q) {
  const Peak p = peak_terms("treble_biquad", waveform, sample_rate, "central_freq", central_freq, gain, Q, 40);
  const Tensor& A = p.A;
  const Tensor temp1 = 2 * A.sqrt() * p.alpha;
  const Tensor temp2 = (A - 1) * p.w0.cos();
  const Tensor temp3 = (A + 1) * p.w0.cos();
  const Tensor b0 = A * ((A + 1) + temp2 + temp1);
  const Tensor b1 = -2 * A * ((A - 1) + temp3);
  const Tensor b2 = A * ((A + 1) + temp2 - temp1);
  const Tensor a0 = (A + 1) - temp2 + temp1;
  const Tensor a1 = 2 * ((A - 1) - temp3);
  const Tensor a2 = (A + 1) - temp2 - temp1;
  return biquad(waveform, b0, b1, b2, a0, a1, a2);
}

Tensor equalizer_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& center_freq,
                        const FilterParam& gain, const FilterParam& Q) {
  const Peak p = peak_terms("equalizer_biquad", waveform, sample_rate, "center_freq", center_freq, gain, Q, 40.0);
  const Tensor& A = p.A;
  const Tensor b0 = 1 + p.alpha * A;
  const Tensor b1 = -2 * p.w0.cos();
  const Tensor b2 = 1 - p.alpha * A;
  const Tensor a0 = 1 + p.alpha / A;
  const Tensor a2 = 1 - p.alpha / A;
  return biquad(waveform, b0, b1, b2, a0, b1, a2);
}

}  // namespace ember::audio::functional
