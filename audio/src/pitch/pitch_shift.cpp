// pitch_shift: stretch by the phase vocoder, then resample (torchaudio 0.13).
#include "ember/audio/functional/pitch_shift.h"

#include <cmath>

#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "spectral/spectral_args.h"

namespace ember::audio::functional {
namespace detail {

Tensor stretch_waveform(const Tensor& waveform, int64_t n_steps, int64_t bins_per_octave, int64_t n_fft,
                        int64_t win_length, int64_t hop_length, const Tensor& window) {
  const Tensor packed = waveform.reshape({-1, waveform.size(-1)});
  const int64_t length = waveform.size(-1);
  const double rate = std::pow(2.0, -static_cast<double>(n_steps) / static_cast<double>(bins_per_octave));
  const Tensor spec = stft(packed, n_fft,
                           {.hop_length = hop_length, .win_length = win_length, .window = window, .center = true,
                            .pad_mode = "reflect", .normalized = false, .onesided = true});
  // float32 as torchaudio's torch.linspace(...) makes it, cast to the spectrogram's real dtype.
  const Tensor phase_advance =
      linspace(0, M_PI * static_cast<double>(hop_length), spec.size(-2), TensorOptions().dtype(kFloat32).device(spec.device()))
          .unsqueeze(-1);
  const Tensor stretched = phase_vocoder(spec, rate, phase_advance);
  const auto stretched_length = static_cast<int64_t>(std::nearbyint(static_cast<double>(length) / rate));
  return istft(stretched, n_fft,
               {.hop_length = hop_length, .win_length = win_length, .window = window, .length = stretched_length});
}

Tensor fix_waveform_shape(const Tensor& shifted, IntArrayRef shape) {
  const int64_t length = shape.back(), have = shifted.size(-1);
  const Tensor fitted = have > length ? shifted.slice(-1, 0, length) : pad(shifted, {0, length - have});
  std::vector<int64_t> out(shape.begin(), shape.end() - 1);
  out.push_back(fitted.size(-1));
  return fitted.reshape(out);
}

}  // namespace detail

Tensor pitch_shift(const Tensor& waveform, int64_t sample_rate, int64_t n_steps, int64_t bins_per_octave, int64_t n_fft,
                   std::optional<int64_t> win_length, std::optional<int64_t> hop_length, const Tensor& window) {
  constexpr const char* op = "pitch_shift";
  EMBER_CHECK(waveform.defined() && waveform.dim() >= 1, op, ": expected a waveform [..., time]");
  EMBER_CHECK(is_floating_point(waveform.dtype()), op, ": expected a floating-point waveform, got ",
              dtype_name(waveform.dtype()));
  EMBER_CHECK(sample_rate > 0, op, ": sample_rate must be positive, got ", sample_rate);
  EMBER_CHECK(bins_per_octave > 0, op, ": bins_per_octave must be positive, got ", bins_per_octave);
  const int64_t win = win_length.value_or(n_fft);
  const int64_t hop = hop_length.value_or(n_fft / 4);
  detail::check_stft_args(op, n_fft, hop, win, window);
  const int64_t length = waveform.size(-1);
  EMBER_CHECK(length > n_fft / 2, op, ": reflect padding by n_fft / 2 = ", n_fft / 2,
              " needs more samples than that, got ", length);
  const double rate = std::pow(2.0, -static_cast<double>(n_steps) / static_cast<double>(bins_per_octave));
  const double stretched_rate = static_cast<double>(sample_rate) / rate;
  EMBER_CHECK(stretched_rate >= 1 && stretched_rate < 9.2e18, op, ": n_steps = ", n_steps, " shifts sample_rate ",
              sample_rate, " to ", stretched_rate, " Hz, outside [1 Hz, int64]");
  // torchaudio's default window is torch.hann_window(win_length): float32.
  const Tensor w = window.defined()
                       ? window
                       : hann_window(win, true, TensorOptions().dtype(kFloat32).device(waveform.device())).to(waveform.dtype());
  const Tensor stretched = detail::stretch_waveform(waveform, n_steps, bins_per_octave, n_fft, win, hop, w);
  const Tensor shifted = resample(stretched, static_cast<int64_t>(stretched_rate), sample_rate);
  return detail::fix_waveform_shape(shifted, waveform.sizes());
}

}  // namespace ember::audio::functional
