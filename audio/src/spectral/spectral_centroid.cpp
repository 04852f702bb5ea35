// spectral_centroid, as torchaudio 0.13's functional.py.
#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

namespace ember::audio::functional {

Tensor spectral_centroid(const Tensor& waveform, int64_t sample_rate, int64_t pad, const Tensor& window,
                         int64_t n_fft, int64_t hop_length, int64_t win_length) {
  EMBER_CHECK(sample_rate > 0, "spectral_centroid: sample_rate must be positive, got ", sample_rate);
  EMBER_CHECK(waveform.defined() && waveform.is_floating_point(),
              "spectral_centroid: expected a real floating-point waveform [..., time]");
  const Tensor specgram = spectrogram(waveform, pad, window, n_fft, hop_length, win_length, 1.0, false);
  // torchaudio builds the bin frequencies in the default float32 (then promoted).
  const Tensor freqs = linspace(0, sample_rate / 2, 1 + n_fft / 2, TensorOptions().dtype(kFloat32).device(
                                                                          specgram.device()))
                           .reshape({-1, 1});
  return (freqs * specgram).sum({-2}) / specgram.sum({-2});
}

}  // namespace ember::audio::functional
