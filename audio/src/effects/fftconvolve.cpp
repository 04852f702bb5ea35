// fftconvolve (torchaudio 2.0's functional.py): irfft(rfft(x, n) * rfft(y, n), n)
// with n = N + M - 1, then the mode's cut; core's FFT ops, so differentiable
// and device-generic.
#include <algorithm>

#include <ember/audio/functional/effects.h>
#include <ember/fft.h>

#include "effects/convolve_mode.h"

namespace ember::audio::functional {
namespace {

// The smallest 2^a 3^b 5^c >= n (scipy.fft.next_fast_len for real input).
int64_t fast_fft_length(int64_t n) {
  int64_t best = int64_t{1} << 62;
  for (int64_t p5 = 1; p5 < 2 * n; p5 *= 5)
    for (int64_t p35 = p5; p35 < 2 * n; p35 *= 3) {
      int64_t m = p35;
      while (m < n) m *= 2;
      best = std::min(best, m);
    }
  return best;
}

}  // namespace

// torchaudio transforms at exactly n = N + M - 1, which for a length with a
// large prime factor takes Bluestein's detour; any length >= n gives the same
// linear convolution (the zero padding leaves no wrap-around), so the FFTs
// run at the next 5-smooth length, as scipy.signal.fftconvolve's do, and the
// result is cut back to n.
Tensor fftconvolve(const Tensor& x, const Tensor& y, const std::string& mode) {
  const char* op = "fftconvolve";
  audio::effects::check_convolve_operands(x, y, op);
  const auto cut = audio::effects::parse_convolve_mode(mode, op);
  const int64_t n = x.size(-1) + y.size(-1) - 1;
  const int64_t fft_length = fast_fft_length(n);
  const Tensor product = fft::rfft(x, fft_length) * fft::rfft(y, fft_length);
  Tensor full = fft::irfft(product, fft_length);
  if (fft_length != n) full = full.narrow(-1, 0, n);
  return audio::effects::apply_convolve_mode(full, x.size(-1), y.size(-1), cut);
}

}  // namespace ember::audio::functional
