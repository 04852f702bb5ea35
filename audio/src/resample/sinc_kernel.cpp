// sinc_resample_kernel: torchaudio 0.13's _get_sinc_resample_kernel, op for
// op, so that float32 kernels round as torchaudio's do.
#include <cmath>
#include <limits>
#include <numbers>

#include <ember/audio/functional/resample.h>
#include <ember/special/bessel.h>

#include "resample_checks.h"
#include "torch_float_i0.h"

namespace ember::audio::functional {

SincResampleKernel sinc_resample_kernel(int64_t orig_freq, int64_t new_freq, int64_t gcd,
                                        int64_t lowpass_filter_width, double rolloff,
                                        const std::string& resampling_method, std::optional<double> beta,
                                        std::optional<DType> dtype, Device device) {
  detail::check_resample_rates("sinc_resample_kernel", orig_freq, new_freq, gcd);
  detail::check_resample_parameters("sinc_resample_kernel", lowpass_filter_width, rolloff, resampling_method, beta);
  EMBER_CHECK(!dtype || *dtype == kFloat32 || *dtype == kFloat64,
              "sinc_resample_kernel: dtype must be float32 or float64, got ", *dtype);
  const int64_t orig = orig_freq / gcd;
  const int64_t next = new_freq / gcd;
  detail::check_resample_width("sinc_resample_kernel", orig, next, lowpass_filter_width, rolloff);
  const int64_t width = detail::resample_kernel_width(orig, next, lowpass_filter_width, rolloff);
  detail::check_resample_kernel_size("sinc_resample_kernel", orig, next, width);
  const double base_freq = static_cast<double>(std::min(orig, next)) * rolloff;
  const double lpw = static_cast<double>(lowpass_filter_width);

  // Sample offsets of the taps (in input periods) seen from each output phase.
  // Without a dtype torchaudio divides an int64 arange, which yields float32.
  const TensorOptions idx_options = TensorOptions(dtype.value_or(kFloat64)).device(device);
  const TensorOptions phase_options = TensorOptions(dtype.value_or(kInt64)).device(device);
  Tensor idx = arange(-width, width + orig, idx_options).view({1, 1, -1}) / orig;
  Tensor t = arange(0, -next, -1, phase_options).view({-1, 1, 1}) / next + idx;
  t.mul_(base_freq);
  t.clamp_(-lpw, lpw);

  Tensor window;
  if (resampling_method == "sinc_interpolation") {
    window = (t * std::numbers::pi / lpw / 2).cos().pow(2);
  } else {
    // Note [Kaiser window denominator]: beta and I0(beta) are float32 in torchaudio.
    const float beta32 = static_cast<float>(beta.value_or(14.769656459379492));
    const Tensor beta_tensor = scalar_tensor(beta32, TensorOptions(kFloat32).device(device));
    const Tensor i0_beta = scalar_tensor(detail::torch_float_i0(beta32), TensorOptions(kFloat32).device(device));
    window = special::i0(beta_tensor * (1 - (t / lpw).pow(2)).sqrt()) / i0_beta;
  }
  t.mul_(std::numbers::pi);
  const double scale = base_freq / static_cast<double>(orig);
  Tensor kernels = where(t == 0, scalar_tensor(1.0, TensorOptions(t.dtype()).device(device)), t.sin() / t);
  kernels.mul_(window * scale);
  if (!dtype) kernels = kernels.to(kFloat32);
  return {kernels, width};
}

}  // namespace ember::audio::functional
