// filtfilt, as torchaudio 0.13's filtering.py: lfilter forward (unclamped),
// then over the time-reversed result, reversed back.
#include <ember/audio/functional/filtering.h>

#include "filters/lfilter_ops.h"

namespace ember::audio::functional {

Tensor filtfilt(const Tensor& waveform, const Tensor& a_coeffs, const Tensor& b_coeffs, bool clamp) {
  const Tensor forward = detail::lfilter_impl("filtfilt", waveform, a_coeffs, b_coeffs, false, true);
  return detail::lfilter_impl("filtfilt", forward.flip({-1}), a_coeffs, b_coeffs, clamp, true).flip({-1});
}

}  // namespace ember::audio::functional
