// Argument checks shared by the spectral functionals.
#include "spectral/spectral_args.h"

#include <cmath>

#include <ember/ember.h>

namespace ember::audio::functional::detail {

SpectrogramNorms spectrogram_norms(const SpectrogramNorm& normalized, const char* op) {
  const std::string& mode = normalized.mode();
  EMBER_CHECK(mode.empty() || mode == "window" || mode == "frame_length", op,
              ": normalized must be a bool, \"window\" or \"frame_length\", got \"", mode, "\"");
  return {mode == "frame_length", mode == "window"};
}

void check_stft_args(const char* op, int64_t n_fft, int64_t hop_length, int64_t win_length, const Tensor& window) {
  EMBER_CHECK(n_fft > 0, op, ": n_fft must be positive, got ", n_fft);
  EMBER_CHECK(hop_length > 0, op, ": hop_length must be positive, got ", hop_length);
  EMBER_CHECK(win_length > 0 && win_length <= n_fft, op, ": win_length must be in [1, n_fft = ", n_fft, "], got ",
              win_length);
  if (!window.defined()) return;
  EMBER_CHECK(window.dim() == 1 && window.size(0) == win_length, op, ": window must be 1-D with win_length = ",
              win_length, " entries, got shape ", window.sizes());
  EMBER_CHECK(window.is_floating_point(), op, ": window must be a real floating-point tensor, got ", window.dtype());
}

Tensor pow_scalar(const Tensor& t, double exponent) {
  if (exponent == 1.0) return t;
  if (exponent == 2.0) return t * t;
  if (exponent == 0.5) return t.sqrt();
  if (exponent == -0.5) return t.rsqrt();
  return t.pow(exponent);
}

Tensor window_l2_norm(const Tensor& window, int64_t win_length, DType dtype) {
  if (!window.defined()) return scalar_tensor(std::sqrt(static_cast<double>(win_length)), dtype);
  return pow_scalar(window, 2.0).sum().sqrt();
}

}  // namespace ember::audio::functional::detail
