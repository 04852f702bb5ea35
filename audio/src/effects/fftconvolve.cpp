// fftconvolve (torchaudio 2.0's functional.py): irfft(rfft(x, n) * rfft(y, n), n)
// with n = N + M - 1, then the mode's cut; core's FFT ops, so differentiable
// and device-generic.
#include <ember/audio/functional/effects.h>
#include <ember/fft.h>

#include "effects/convolve_mode.h"

namespace ember::audio::functional {

Tensor fftconvolve(const Tensor& x, const Tensor& y, const std::string& mode) {
  const char* op = "fftconvolve";
  audio::detail::check_convolve_operands(x, y, op);
  const auto cut = audio::detail::parse_convolve_mode(mode, op);
  const int64_t n = x.size(-1) + y.size(-1) - 1;
  const Tensor product = fft::rfft(x, n) * fft::rfft(y, n);
  return audio::detail::apply_convolve_mode(fft::irfft(product, n), x.size(-1), y.size(-1), cut);
}

}  // namespace ember::audio::functional
