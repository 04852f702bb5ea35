// spectrogram and inverse_spectrogram, as torchaudio 0.13's functional.py: the
// batch is packed to [batch, time] around ember::stft / ember::istft.
#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

#include "spectral/spectral_args.h"

namespace ember::audio::functional {

Tensor spectrogram(const Tensor& waveform, int64_t pad, const Tensor& window, int64_t n_fft, int64_t hop_length,
                   int64_t win_length, std::optional<double> power, const SpectrogramNorm& normalized, bool center,
                   const std::string& pad_mode, bool onesided, std::optional<bool> return_complex) {
  constexpr const char* op = "spectrogram";
  EMBER_CHECK(waveform.defined() && waveform.dim() >= 1, op, ": expected a waveform [..., time]");
  EMBER_CHECK(waveform.is_floating_point() || waveform.is_complex(), op,
              ": expected a floating-point waveform, got ", waveform.dtype());
  EMBER_CHECK(pad >= 0, op, ": pad must be non-negative, got ", pad);
  EMBER_CHECK(!power || *power > 0, op, ": power must be positive (or nullopt for a complex result), got ",
              power.value_or(0.0));
  detail::check_stft_args(op, n_fft, hop_length, win_length, window);
  const detail::SpectrogramNorms norms = detail::spectrogram_norms(normalized, op);
  const int64_t length = waveform.size(-1) + 2 * pad;
  if (center) {
    EMBER_CHECK(pad_mode != "reflect" || length > n_fft / 2, op, ": reflect padding by n_fft / 2 = ", n_fft / 2,
                " needs more samples than that, got ", length, " (time ", waveform.size(-1), " + 2 * pad ", pad, ")");
  } else {
    EMBER_CHECK(length >= n_fft, op, ": n_fft = ", n_fft, " is larger than the signal (", length,
                " samples with padding) and center = false");
  }
  if (return_complex) {
    EMBER_WARN("spectrogram: `return_complex` argument is now deprecated and is not effective. "
               "`spectrogram(power = nullopt)` always returns a tensor with complex dtype. "
               "Please remove the argument in the function call.");
  }

  const Tensor padded = pad > 0 ? ember::pad(waveform, {pad, pad}, "constant") : waveform;
  std::vector<int64_t> shape = padded.sizes().vec();
  StftOptions options;
  options.hop_length = hop_length;
  options.win_length = win_length;
  options.window = window;
  options.center = center;
  options.pad_mode = pad_mode;
  options.normalized = norms.frame_length;
  options.onesided = onesided;
  options.return_complex = true;
  Tensor spec = stft(padded.reshape({-1, shape.back()}), n_fft, options);
  shape.pop_back();
  shape.push_back(spec.size(-2));
  shape.push_back(spec.size(-1));
  spec = spec.reshape(shape);

  if (norms.window) spec = spec / detail::window_l2_norm(window, win_length, to_real_dtype(waveform.dtype()));
  if (!power) return spec;
  return detail::pow_scalar(spec.abs(), *power);
}

Tensor inverse_spectrogram(const Tensor& spectrogram, std::optional<int64_t> length, int64_t pad,
                           const Tensor& window, int64_t n_fft, int64_t hop_length, int64_t win_length,
                           const SpectrogramNorm& normalized, bool center, const std::string& /*pad_mode*/,
                           bool onesided) {
  constexpr const char* op = "inverse_spectrogram";
  const detail::SpectrogramNorms norms = detail::spectrogram_norms(normalized, op);
  EMBER_CHECK(spectrogram.defined(), op, ": expected a complex spectrogram [..., freq, frames], got an undefined tensor");
  EMBER_CHECK(spectrogram.is_complex(), op, ": expected a complex spectrogram [..., freq, frames], got ",
              spectrogram.dtype());
  EMBER_CHECK(spectrogram.dim() >= 2, op, ": expected a spectrogram [..., freq, frames], got ", spectrogram.dim(),
              " dims");
  EMBER_CHECK(pad >= 0, op, ": pad must be non-negative, got ", pad);
  EMBER_CHECK(!length || *length >= 0, op, ": length must be non-negative, got ", length.value_or(0));
  detail::check_stft_args(op, n_fft, hop_length, win_length, window);

  Tensor spec = spectrogram;
  if (norms.window) {
    spec = spec * detail::window_l2_norm(window, win_length, ember::to_real_dtype(spectrogram.dtype()));
  }
  std::vector<int64_t> shape = spec.sizes().vec();
  const int64_t n_freq = shape[shape.size() - 2];
  const int64_t n_frames = shape.back();
  IstftOptions options;
  options.hop_length = hop_length;
  options.win_length = win_length;
  options.window = window;
  options.center = center;
  options.normalized = norms.frame_length;
  options.onesided = onesided;
  if (length) options.length = *length + 2 * pad;
  options.return_complex = false;
  Tensor waveform = istft(spec.reshape({-1, n_freq, n_frames}), n_fft, options);
  if (length && pad > 0) waveform = waveform.narrow(1, pad, *length);
  shape.resize(shape.size() - 2);
  shape.push_back(waveform.size(-1));
  return waveform.reshape(shape);
}

}  // namespace ember::audio::functional
