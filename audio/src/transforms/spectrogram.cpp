// Spectrogram, InverseSpectrogram, GriffinLim, SpectralCentroid (torchaudio 0.13).
#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "ember/audio/transforms/spectral.h"
#include "transforms/transform_params.h"

namespace ember::audio::transforms {
namespace F = ember::audio::functional;

using detail::add_window_params;
using detail::fill_lengths;
using detail::optional_value;

SpectrogramImpl::SpectrogramImpl(Options options) : TransformImpl("Spectrogram"), options_(std::move(options)) {
  fill_lengths(options_, "Spectrogram");
  EMBER_CHECK(options_.pad >= 0, "Spectrogram: pad must be >= 0, got ", options_.pad);
  register_buffer("window", make_window(options_.window, *options_.win_length, "Spectrogram"), &window);
}

Tensor SpectrogramImpl::forward(const Tensor& waveform) {
  return F::spectrogram(waveform, options_.pad, window, options_.n_fft, *options_.hop_length, *options_.win_length,
                        options_.power, F::SpectrogramNorm(options_.normalized), options_.center, options_.pad_mode,
                        options_.onesided);
}

Params SpectrogramImpl::params() const {
  Params p{{"n_fft", options_.n_fft},
           {"win_length", *options_.win_length},
           {"hop_length", *options_.hop_length},
           {"pad", options_.pad},
           {"power", optional_value(options_.power)},
           {"normalized", options_.normalized},
           {"center", options_.center},
           {"pad_mode", options_.pad_mode},
           {"onesided", options_.onesided}};
  add_window_params(p, options_.window);
  return p;
}

InverseSpectrogramImpl::InverseSpectrogramImpl(Options options)
    : TransformImpl("InverseSpectrogram"), options_(std::move(options)) {
  fill_lengths(options_, "InverseSpectrogram");
  register_buffer("window", make_window(options_.window, *options_.win_length, "InverseSpectrogram"), &window);
}

Tensor InverseSpectrogramImpl::forward(const Tensor& spectrogram, std::optional<int64_t> length) {
  return F::inverse_spectrogram(spectrogram, length, options_.pad, window, options_.n_fft, *options_.hop_length,
                                *options_.win_length, F::SpectrogramNorm(options_.normalized), options_.center,
                                options_.pad_mode, options_.onesided);
}

Params InverseSpectrogramImpl::params() const {
  Params p{{"n_fft", options_.n_fft},
           {"win_length", *options_.win_length},
           {"hop_length", *options_.hop_length},
           {"pad", options_.pad},
           {"normalized", options_.normalized},
           {"center", options_.center},
           {"pad_mode", options_.pad_mode},
           {"onesided", options_.onesided}};
  add_window_params(p, options_.window);
  return p;
}

GriffinLimImpl::GriffinLimImpl(Options options) : TransformImpl("GriffinLim"), options_(std::move(options)) {
  EMBER_CHECK(options_.momentum >= 0 && options_.momentum < 1, "GriffinLim: momentum must be in [0, 1), got ",
              options_.momentum);
  EMBER_CHECK(options_.n_iter > 0, "GriffinLim: n_iter must be positive, got ", options_.n_iter);
  fill_lengths(options_, "GriffinLim");
  register_buffer("window", make_window(options_.window, *options_.win_length, "GriffinLim"), &window);
}

Tensor GriffinLimImpl::forward(const Tensor& specgram) {
  return F::griffinlim(specgram, window, options_.n_fft, *options_.hop_length, *options_.win_length, options_.power,
                       options_.n_iter, options_.momentum, options_.length, options_.rand_init);
}

Params GriffinLimImpl::params() const {
  Params p{{"n_fft", options_.n_fft},
           {"n_iter", options_.n_iter},
           {"win_length", *options_.win_length},
           {"hop_length", *options_.hop_length},
           {"power", options_.power},
           {"momentum", options_.momentum},
           {"length", optional_value(options_.length)},
           {"rand_init", options_.rand_init}};
  add_window_params(p, options_.window);
  return p;
}

SpectralCentroidImpl::SpectralCentroidImpl(Options options)
    : TransformImpl("SpectralCentroid"), options_(std::move(options)) {
  EMBER_CHECK(options_.sample_rate > 0, "SpectralCentroid: sample_rate must be positive, got ", options_.sample_rate);
  fill_lengths(options_, "SpectralCentroid");
  register_buffer("window", make_window(options_.window, *options_.win_length, "SpectralCentroid"), &window);
}

Tensor SpectralCentroidImpl::forward(const Tensor& waveform) {
  return F::spectral_centroid(waveform, options_.sample_rate, options_.pad, window, options_.n_fft,
                              *options_.hop_length, *options_.win_length);
}

Params SpectralCentroidImpl::params() const {
  Params p{{"sample_rate", options_.sample_rate},
           {"n_fft", options_.n_fft},
           {"win_length", *options_.win_length},
           {"hop_length", *options_.hop_length},
           {"pad", options_.pad}};
  add_window_params(p, options_.window);
  return p;
}

}  // namespace ember::audio::transforms
