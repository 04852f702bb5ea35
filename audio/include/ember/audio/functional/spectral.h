#pragma once
// ember::audio::functional, spectral part: torchaudio 0.13's spectrogram,
// inverse_spectrogram, griffinlim, phase_vocoder, spectral_centroid,
// detect_pitch_frequency, compute_deltas, sliding_window_cmn and the
// SpecAugment masks, with torchaudio's names, argument order and defaults.
// Every function takes any leading batch shape, float32 or float64 (complex64/
// complex128 for complex spectrograms), and differentiates through autograd
// where torchaudio does (docs/audio.md, "Spectral").
//
//   Tensor w = ember::hann_window(400, true, ember::kFloat64);
//   Tensor power = spectrogram(audio, 0, w, 400, 160, 400, 2.0, false);   // [..., 201, frames]
//   Tensor back = griffinlim(power, w, 400, 160, 400, 2.0, 32, 0.99, audio.size(-1), false);
#include <cstdint>
#include <optional>
#include <string>

#include <ember/core/tensor.h>

namespace ember::audio::functional {

// torchaudio's `normalized` argument (bool or str): false; true or "window"
// (divide by the window's L2 norm after the stft); "frame_length" (the stft's
// own 1 / sqrt(n_fft)). Any other string is rejected by the function using it.
class SpectrogramNorm {
 public:
  SpectrogramNorm(bool normalized) : mode_(normalized ? "window" : "") {}  // NOLINT: implicit, as in Python
  SpectrogramNorm(const char* mode) : mode_(mode ? mode : "(null)") {}     // NOLINT
  SpectrogramNorm(std::string mode) : mode_(std::move(mode)) {}            // NOLINT
  // "" (none), "window", "frame_length" or whatever string was passed.
  const std::string& mode() const { return mode_; }

 private:
  std::string mode_;
};

// Spectrogram of waveform [..., time]: zero-pads `pad` samples on both sides,
// runs stft (window: win_length entries, or undefined for a rectangular one)
// and returns |X|^power [..., freq, frames], or the complex X when power is
// nullopt. return_complex is deprecated in torchaudio 0.13 and has no effect:
// passing it warns, as torchaudio does.
Tensor spectrogram(const Tensor& waveform, int64_t pad, const Tensor& window, int64_t n_fft, int64_t hop_length,
                   int64_t win_length, std::optional<double> power, const SpectrogramNorm& normalized,
                   bool center = true, const std::string& pad_mode = "reflect", bool onesided = true,
                   std::optional<bool> return_complex = std::nullopt);

// Least-squares waveform [..., time] of a complex spectrogram [..., freq, frames]
// made by spectrogram(power = nullopt) with the same arguments. With `length`,
// the output has `length` samples and `pad` samples are cut from both ends
// (pad only applies with a length, as in torchaudio). pad_mode is unused, kept
// for the argument order.
Tensor inverse_spectrogram(const Tensor& spectrogram, std::optional<int64_t> length, int64_t pad,
                           const Tensor& window, int64_t n_fft, int64_t hop_length, int64_t win_length,
                           const SpectrogramNorm& normalized, bool center = true,
                           const std::string& pad_mode = "reflect", bool onesided = true);

// Waveform [..., time] from a magnitude spectrogram |X|^power [..., n_fft/2+1,
// frames] by (fast) Griffin-Lim: n_iter rounds of istft/stft with momentum in
// [0, 1). rand_init draws the initial phases (real and imaginary parts uniform in
// [0, 1), as torch.rand does for complex dtypes) from the default generator;
// otherwise they start at 1.
Tensor griffinlim(const Tensor& specgram, const Tensor& window, int64_t n_fft, int64_t hop_length,
                  int64_t win_length, double power, int64_t n_iter, double momentum, std::optional<int64_t> length,
                  bool rand_init);

// Time-stretches a complex spectrogram [..., freq, frames] by `rate` (> 1 is
// faster) keeping the pitch: ceil(frames / rate) frames. phase_advance [freq, 1]
// is the expected phase advance per hop of each bin.
Tensor phase_vocoder(const Tensor& complex_specgrams, double rate, const Tensor& phase_advance);

// Magnitude-weighted mean frequency of each frame: [..., frames].
Tensor spectral_centroid(const Tensor& waveform, int64_t sample_rate, int64_t pad, const Tensor& window,
                         int64_t n_fft, int64_t hop_length, int64_t win_length);

// Pitch of waveform [..., time] per frame of frame_time seconds by normalized
// cross-correlation and median smoothing over win_length frames: float32 Hz
// [..., frames], frames = ceil(time / frame size) + (win_length - 1) / 2 - win_length + 1
// (torchaudio's smoothing pads only the left and trims the rest).
Tensor detect_pitch_frequency(const Tensor& waveform, int64_t sample_rate, double frame_time = 1e-2,
                              int64_t win_length = 30, int64_t freq_low = 85, int64_t freq_high = 3400);

// Delta coefficients along the last dim of [..., freq, time]:
// d_t = sum_{n=1..N} n (c_{t+n} - c_{t-n}) / (2 sum n^2), N = (win_length - 1) / 2,
// the edges padded with `mode` ("replicate", "reflect", "constant", "circular").
Tensor compute_deltas(const Tensor& specgram, int64_t win_length = 5, const std::string& mode = "replicate");

// Sliding-window cepstral mean (and, with norm_vars, variance) normalization of
// specgram [..., time, freq] (Kaldi's apply-cmvn-sliding), per utterance.
Tensor sliding_window_cmn(const Tensor& specgram, int64_t cmn_window = 600, int64_t min_cmn_window = 100,
                          bool center = false, bool norm_vars = false);

// SpecAugment masks of [batch, channel, freq, time] spectrograms: each
// (batch, channel) item gets its own band [v0, v0 + v) on axis 2 (freq) or 3
// (time) set to mask_value, v uniform in [0, max_v), v0 uniform in [0, size - v),
// max_v = mask_param (p = 1) or min(mask_param, floor(size * p)). Draws from the
// default generator in the input's dtype.
Tensor mask_along_axis_iid(const Tensor& specgrams, int64_t mask_param, double mask_value, int64_t axis,
                           double p = 1.0);
// The same band for every item of specgram [..., freq, time] packed to
// [batch, freq, time]: axis 1 (freq) or 2 (time). Draws two float32 numbers
// from the default generator.
Tensor mask_along_axis(const Tensor& specgram, int64_t mask_param, double mask_value, int64_t axis,
                       double p = 1.0);

}  // namespace ember::audio::functional
