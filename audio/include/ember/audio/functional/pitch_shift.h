#pragma once
// ember::audio::functional::pitch_shift (torchaudio 0.13): shifts the pitch of
// a waveform by n_steps / bins_per_octave octaves, keeping its length.
#include <cstdint>
#include <optional>

#include <ember/core/tensor.h>

namespace ember::audio::functional {

// Phase-vocoder stretch of waveform [..., time] by 2^(-n_steps / bins_per_octave)
// (stft with n_fft, win_length = n_fft, hop_length = win_length / 4, a Hann
// window by default), then resampling from int(sample_rate / rate) to
// sample_rate, trimmed or zero-padded back to the input's length.
// Differentiable with respect to the waveform.
Tensor pitch_shift(const Tensor& waveform, int64_t sample_rate, int64_t n_steps, int64_t bins_per_octave = 12,
                   int64_t n_fft = 512, std::optional<int64_t> win_length = std::nullopt,
                   std::optional<int64_t> hop_length = std::nullopt, const Tensor& window = {});

namespace detail {
// The stretch step alone (torchaudio's _stretch_waveform): [batch, time'] for
// the input packed to [batch, time].
Tensor stretch_waveform(const Tensor& waveform, int64_t n_steps, int64_t bins_per_octave, int64_t n_fft,
                        int64_t win_length, int64_t hop_length, const Tensor& window);
// Trims or zero-pads the last dim to `shape`'s and unpacks the batch (torchaudio's _fix_waveform_shape).
Tensor fix_waveform_shape(const Tensor& shifted, IntArrayRef shape);
}  // namespace detail

}  // namespace ember::audio::functional
