#pragma once
// Argument checks and helpers shared by the spectral functionals (audio/src/spectral/).
#include <cstdint>

#include <ember/audio/functional/spectral.h>

namespace ember::audio::functional::detail {

// torchaudio's _get_spec_norms: which of the two normalizations `normalized` asks for.
struct SpectrogramNorms {
  bool frame_length = false;  // stft(normalized = true): 1 / sqrt(n_fft)
  bool window = false;        // divide by the window's L2 norm
};
SpectrogramNorms spectrogram_norms(const SpectrogramNorm& normalized, const char* op);

// n_fft, hop_length, win_length and the window (undefined, or 1-D with
// win_length real entries) as stft needs them, checked under `op`'s name.
void check_stft_args(const char* op, int64_t n_fft, int64_t hop_length, int64_t win_length, const Tensor& window);

// t ** exponent as torch computes a tensor to a number power: the exponents
// torch special-cases (2: t * t, 0.5: sqrt, -0.5: rsqrt, 1: t) take its exact
// formulas, which are also several times faster than pow.
Tensor pow_scalar(const Tensor& t, double exponent);

// sqrt(sum(window^2)), the "window" normalization; win_length ones for an undefined window.
Tensor window_l2_norm(const Tensor& window, int64_t win_length, DType dtype);

}  // namespace ember::audio::functional::detail
