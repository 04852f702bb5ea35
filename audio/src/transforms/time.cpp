// Resample, TimeStretch, PitchShift, SpeedPerturbation.
#include "ember/audio/transforms/time.h"

#include <cmath>
#include <numeric>

#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "resample/on_the_fly.h"
#include "resample/resample_checks.h"
#include "transforms/transform_params.h"

namespace ember::audio::transforms {
namespace F = ember::audio::functional;
using detail::add_window_params;
using detail::optional_value;

ResampleImpl::ResampleImpl(Options options) : TransformImpl("Resample"), options_(std::move(options)) {
  EMBER_CHECK(options_.orig_freq > 0 && options_.new_freq > 0,
              "Resample: frequencies must be positive, got orig_freq ", options_.orig_freq, ", new_freq ",
              options_.new_freq);
  gcd_ = std::gcd(options_.orig_freq, options_.new_freq);
  if (options_.orig_freq == options_.new_freq) return;
  const int64_t orig = options_.orig_freq / gcd_, next = options_.new_freq / gcd_;
  F::detail::check_resample_parameters("Resample", options_.lowpass_filter_width, options_.rolloff,
                                       options_.resampling_method, options_.beta);
  F::detail::check_resample_width("Resample", orig, next, options_.lowpass_filter_width, options_.rolloff);
  // Rates that share almost no factor (44100 -> 44099: torchaudio's buffer
  // would be 44099 x 1 x 44114, 7.8 GB) keep no kernel: their taps are
  // computed on the fly with the buffer's values (Note [On-the-fly resampling]).
  if (F::detail::resample_kernel_is_large(
          orig, next, F::detail::resample_kernel_width(orig, next, options_.lowpass_filter_width, options_.rolloff))) {
    kernel_is_large_ = true;
    return;
  }
  // float32, as torchaudio's Resample (dtype=None) builds it: float64 arithmetic, float32 result.
  F::SincResampleKernel k =
      F::sinc_resample_kernel(options_.orig_freq, options_.new_freq, gcd_, options_.lowpass_filter_width,
                              options_.rolloff, options_.resampling_method, options_.beta);
  width_ = k.width;
  register_buffer("kernel", std::move(k.kernel), &kernel);
}

Tensor ResampleImpl::forward(const Tensor& waveform) {
  if (options_.orig_freq == options_.new_freq) return waveform;
  if (kernel_is_large_) {
    EMBER_CHECK(waveform.defined() && waveform.dim() >= 1 &&
                    (waveform.dtype() == kFloat32 || waveform.dtype() == kFloat64),
                "Resample: expected a float32 or float64 waveform [..., time]");
    F::detail::SincTapSpec spec =
        F::detail::make_sinc_tap_spec(options_.orig_freq / gcd_, options_.new_freq / gcd_,
                                      options_.lowpass_filter_width, options_.rolloff, options_.resampling_method,
                                      options_.beta);
    spec.float32_kernel = true;  // the values of torchaudio's float32 buffer
    return F::detail::resample_waveform_on_the_fly("Resample", waveform, spec);
  }
  return F::apply_sinc_resample_kernel(waveform, options_.orig_freq, options_.new_freq, gcd_, kernel, width_);
}

Params ResampleImpl::params() const {
  return {{"orig_freq", options_.orig_freq},
          {"new_freq", options_.new_freq},
          {"resampling_method", options_.resampling_method},
          {"lowpass_filter_width", options_.lowpass_filter_width},
          {"rolloff", options_.rolloff},
          {"beta", optional_value(options_.beta)}};
}

TimeStretchImpl::TimeStretchImpl(Options options) : TransformImpl("TimeStretch"), options_(std::move(options)) {
  EMBER_CHECK(options_.n_freq > 0, "TimeStretch: n_freq must be positive, got ", options_.n_freq);
  const int64_t n_fft = (options_.n_freq - 1) * 2;
  const int64_t hop = options_.hop_length.value_or(n_fft / 2);
  EMBER_CHECK(hop > 0, "TimeStretch: hop_length must be positive, got ", hop);
  EMBER_CHECK(!options_.fixed_rate || *options_.fixed_rate > 0, "TimeStretch: fixed_rate must be positive, got ",
              *options_.fixed_rate);
  register_buffer("phase_advance",
                  linspace(0, M_PI * static_cast<double>(hop), options_.n_freq, TensorOptions().dtype(kFloat32))
                      .unsqueeze(-1),
                  &phase_advance);
}

Tensor TimeStretchImpl::forward(const Tensor& complex_specgrams, std::optional<double> overriding_rate) {
  const std::optional<double> rate = overriding_rate ? overriding_rate : options_.fixed_rate;
  EMBER_CHECK(rate.has_value(), "TimeStretch: no fixed_rate was given, so forward needs a rate");
  return F::phase_vocoder(complex_specgrams, *rate, phase_advance);
}

Params TimeStretchImpl::params() const {
  return {{"hop_length", optional_value(options_.hop_length)},
          {"n_freq", options_.n_freq},
          {"fixed_rate", optional_value(options_.fixed_rate)}};
}

PitchShiftImpl::PitchShiftImpl(Options options) : TransformImpl("PitchShift"), options_(std::move(options)) {
  EMBER_CHECK(options_.sample_rate > 0, "PitchShift: sample_rate must be positive, got ", options_.sample_rate);
  EMBER_CHECK(options_.bins_per_octave > 0, "PitchShift: bins_per_octave must be positive, got ",
              options_.bins_per_octave);
  detail::fill_lengths(options_, "PitchShift", 4);
  register_buffer("window", make_window(options_.window, *options_.win_length, "PitchShift"), &window);
  const double rate =
      std::pow(2.0, -static_cast<double>(options_.n_steps) / static_cast<double>(options_.bins_per_octave));
  const double stretched_rate = static_cast<double>(options_.sample_rate) / rate;
  EMBER_CHECK(stretched_rate >= 1 && stretched_rate < 9.2e18, "PitchShift: n_steps = ", options_.n_steps,
              " shifts sample_rate ", options_.sample_rate, " to ", stretched_rate, " Hz, outside [1 Hz, int64]");
  orig_freq_ = static_cast<int64_t>(stretched_rate);
  gcd_ = std::gcd(orig_freq_, options_.sample_rate);
  if (orig_freq_ == options_.sample_rate) return;
  const int64_t orig = orig_freq_ / gcd_, next = options_.sample_rate / gcd_;
  F::detail::check_resample_width("PitchShift", orig, next, 6, 0.99);
  kernel_is_large_ = F::detail::resample_kernel_is_large(orig, next,
                                                         F::detail::resample_kernel_width(orig, next, 6, 0.99));
}

Tensor PitchShiftImpl::forward(const Tensor& waveform) {
  EMBER_CHECK(waveform.defined() && waveform.dim() >= 1, "PitchShift: expected a waveform [..., time]");
  const Tensor stretched = F::detail::stretch_waveform(waveform, options_.n_steps, options_.bins_per_octave,
                                                       options_.n_fft, *options_.win_length, *options_.hop_length,
                                                       window);
  if (orig_freq_ == options_.sample_rate) return F::detail::fix_waveform_shape(stretched, waveform.sizes());
  // torchaudio's kernel for 16000 Hz and 3 steps (19027 -> 16000 Hz) would be
  // 16000 x 19043 (1.2 GB in float32): such rates are resampled on the fly,
  // with the kernel's values and no buffer (Note [On-the-fly resampling]).
  if (kernel_is_large_)
    return F::detail::fix_waveform_shape(F::resample(stretched, orig_freq_, options_.sample_rate), waveform.sizes());
  // Built on the first call in the input's dtype and device, as torchaudio's lazy kernel.
  if (!kernel.defined()) {
    F::SincResampleKernel k = F::sinc_resample_kernel(orig_freq_, options_.sample_rate, gcd_, 6, 0.99,
                                                      "sinc_interpolation", std::nullopt, waveform.dtype(),
                                                      waveform.device());
    width_ = k.width;
    register_buffer("kernel", std::move(k.kernel), &kernel);
  }
  const Tensor shifted =
      F::apply_sinc_resample_kernel(stretched, orig_freq_, options_.sample_rate, gcd_, kernel, width_);
  return F::detail::fix_waveform_shape(shifted, waveform.sizes());
}

Params PitchShiftImpl::params() const {
  Params p{{"sample_rate", options_.sample_rate},
           {"n_steps", options_.n_steps},
           {"bins_per_octave", options_.bins_per_octave},
           {"n_fft", options_.n_fft},
           {"win_length", *options_.win_length},
           {"hop_length", *options_.hop_length}};
  add_window_params(p, options_.window);
  return p;
}

SpeedPerturbationImpl::SpeedPerturbationImpl(int64_t orig_freq, std::vector<double> factors)
    : TransformImpl("SpeedPerturbation"), orig_freq_(orig_freq), factors_(std::move(factors)) {
  EMBER_CHECK(orig_freq_ > 0, "SpeedPerturbation: orig_freq must be positive, got ", orig_freq_);
  EMBER_CHECK(!factors_.empty(), "SpeedPerturbation: needs at least one factor");
  for (double f : factors_)
    EMBER_CHECK(f > 0 && std::isfinite(f), "SpeedPerturbation: factors must be positive, got ", f);
}

Tensor SpeedPerturbationImpl::forward(const Tensor& waveform) {
  const int64_t pick = randint_scalar(0, static_cast<int64_t>(factors_.size()));
  return F::speed(waveform, orig_freq_, factors_[static_cast<size_t>(pick)]).first;
}

Params SpeedPerturbationImpl::params() const { return {{"orig_freq", orig_freq_}, {"factors", factors_}}; }

}  // namespace ember::audio::transforms
