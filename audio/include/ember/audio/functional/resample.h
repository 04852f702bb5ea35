#pragma once
// ember::audio::functional resampling: torchaudio 0.13's resample (windowed
// sinc interpolation, hann or kaiser window) and torchaudio 2.0's speed.
//
//   Tensor y = resample(x, 44100, 16000);                      // [..., time]
//   Tensor z = resample(x, 48000, 16000, 16, 0.85, "kaiser_window", 8.555);
//   auto [kernel, width] = sinc_resample_kernel(48000, 16000, 16000);   // a Resample module's buffer
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <ember/ember.h>

namespace ember::audio::functional {

// The polyphase filter bank of a resampling: kernel [new_freq/gcd, 1, 2*width + orig_freq/gcd]
// and the zero padding `width` applied on each side of the waveform.
struct SincResampleKernel {
  Tensor kernel;
  int64_t width = 0;
};

// torchaudio's _get_sinc_resample_kernel: the windowed sinc filters for
// orig_freq -> new_freq (both divided by gcd), cut off at rolloff times the
// lower Nyquist frequency, lowpass_filter_width zero crossings on each side.
// resampling_method "sinc_interpolation" (squared-cosine, i.e. hann, window)
// or "kaiser_window" (beta defaults to 14.769656459379492). dtype: the
// arithmetic and result dtype; std::nullopt computes in float64 and returns
// float32, as torchaudio does for the Resample transform.
SincResampleKernel sinc_resample_kernel(int64_t orig_freq, int64_t new_freq, int64_t gcd,
                                        int64_t lowpass_filter_width = 6, double rolloff = 0.99,
                                        const std::string& resampling_method = "sinc_interpolation",
                                        std::optional<double> beta = std::nullopt,
                                        std::optional<DType> dtype = std::nullopt, Device device = kCPU);

// torchaudio's _apply_sinc_resample_kernel: pads [..., time] by `width` zeros
// (plus orig_freq/gcd on the right), runs the strided polyphase convolution and
// keeps ceil(new_freq * time / orig_freq) samples (frequencies divided by gcd).
// kernel must have the waveform's dtype and device.
Tensor apply_sinc_resample_kernel(const Tensor& waveform, int64_t orig_freq, int64_t new_freq, int64_t gcd,
                                  const Tensor& kernel, int64_t width);

// Resamples [..., time] from orig_freq to new_freq (positive integers; the
// waveform itself when they are equal). The kernel is built in the waveform's
// dtype, as torchaudio does, and cached per (rates, parameters, dtype, device);
// rates that share almost no factor (19027 -> 16000, 44100 -> 44099: a reduced
// kernel of more than 2^22 elements) are resampled without one, each output's
// taps computed with the kernel's values when needed (docs/audio.md).
// Differentiable with respect to the waveform.
Tensor resample(const Tensor& waveform, int64_t orig_freq, int64_t new_freq, int64_t lowpass_filter_width = 6,
                double rolloff = 0.99, const std::string& resampling_method = "sinc_interpolation",
                std::optional<double> beta = std::nullopt);

// torchaudio 2.0's speed: plays [..., time] `factor` times faster by resampling
// from int(factor * orig_freq) to orig_freq (after gcd reduction). lengths
// (valid lengths per batch item) become ceil(lengths * new / orig) in their dtype.
std::pair<Tensor, std::optional<Tensor>> speed(const Tensor& waveform, int64_t orig_freq, double factor,
                                               const std::optional<Tensor>& lengths = std::nullopt);

}  // namespace ember::audio::functional
