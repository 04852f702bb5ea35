// AmplitudeToDB, MuLawEncoding, MuLawDecoding, Vol, Fade (torchaudio 0.13).
#include "ember/audio/transforms/level.h"

#include <cmath>

#include <ember/audio/functional.h>
#include <ember/ember.h>

namespace ember::audio::transforms {
namespace F = ember::audio::functional;

AmplitudeToDBImpl::AmplitudeToDBImpl(std::string stype, std::optional<double> top_db)
    : TransformImpl("AmplitudeToDB"), stype_(std::move(stype)), top_db_(top_db) {
  EMBER_CHECK(!top_db_ || *top_db_ >= 0, "AmplitudeToDB: top_db must be >= 0, got ", *top_db_);
  // torchaudio treats every stype other than "power" as an amplitude.
  multiplier_ = stype_ == "power" ? 10.0 : 20.0;
}

Tensor AmplitudeToDBImpl::forward(const Tensor& x) {
  constexpr double kAmin = 1e-10, kRef = 1.0;
  return F::amplitude_to_DB(x, multiplier_, kAmin, std::log10(std::max(kAmin, kRef)), top_db_);
}

Params AmplitudeToDBImpl::params() const {
  return {{"stype", stype_}, {"top_db", top_db_ ? IValue(*top_db_) : IValue()}};
}

MuLawEncodingImpl::MuLawEncodingImpl(int64_t quantization_channels)
    : TransformImpl("MuLawEncoding"), quantization_channels_(quantization_channels) {
  EMBER_CHECK(quantization_channels >= 2, "MuLawEncoding: quantization_channels must be >= 2, got ",
              quantization_channels);
}

Tensor MuLawEncodingImpl::forward(const Tensor& x) { return F::mu_law_encoding(x, quantization_channels_); }

MuLawDecodingImpl::MuLawDecodingImpl(int64_t quantization_channels)
    : TransformImpl("MuLawDecoding"), quantization_channels_(quantization_channels) {
  EMBER_CHECK(quantization_channels >= 2, "MuLawDecoding: quantization_channels must be >= 2, got ",
              quantization_channels);
}

Tensor MuLawDecodingImpl::forward(const Tensor& x_mu) { return F::mu_law_decoding(x_mu, quantization_channels_); }

VolImpl::VolImpl(double gain, std::string gain_type) : TransformImpl("Vol"), gain_(gain), gain_type_(std::move(gain_type)) {
  EMBER_CHECK(gain_type_ == "amplitude" || gain_type_ == "power" || gain_type_ == "db",
              "Vol: gain_type must be amplitude, power or db, got '", gain_type_, "'");
  EMBER_CHECK(gain_type_ == "db" || gain_ >= 0, "Vol: with gain_type ", gain_type_, " the gain must be >= 0, got ",
              gain_);
}

Tensor VolImpl::forward(const Tensor& waveform) {
  Tensor out;
  if (gain_type_ == "amplitude") out = waveform * gain_;
  else if (gain_type_ == "db") out = F::gain(waveform, gain_);
  else out = F::gain(waveform, 10 * std::log10(gain_));
  return clamp(out, -1, 1);
}

FadeImpl::FadeImpl(Options options) : TransformImpl("Fade"), options_(std::move(options)) {
  EMBER_CHECK(options_.fade_in_len >= 0 && options_.fade_out_len >= 0,
              "Fade: fade lengths must be >= 0, got fade_in_len ", options_.fade_in_len, ", fade_out_len ",
              options_.fade_out_len);
  const std::string& s = options_.fade_shape;
  EMBER_CHECK(s == "linear" || s == "exponential" || s == "logarithmic" || s == "quarter_sine" || s == "half_sine",
              "Fade: unknown fade_shape '", s, "'");
}

namespace {

// torchaudio's _fade_in / _fade_out: float32 ramps over `fade` points, ones elsewhere.
Tensor fade_curve(const std::string& shape, int64_t fade, int64_t length, bool fade_in, Device device) {
  const TensorOptions opts = TensorOptions().dtype(kFloat32).device(device);
  Tensor f = linspace(0, 1, fade, opts);
  if (fade_in) {
    if (shape == "exponential") f = pow(2.0, f - 1) * f;
    else if (shape == "logarithmic") f = log10(f + 0.1) + 1;
    else if (shape == "quarter_sine") f = sin(f * (M_PI / 2));
    else if (shape == "half_sine") f = sin(f * M_PI - M_PI / 2) / 2 + 0.5;
  } else {
    if (shape == "linear") f = -f + 1;
    else if (shape == "exponential") f = pow(2.0, -f) * (1 - f);
    else if (shape == "logarithmic") f = log10(1.1 - f) + 1;
    else if (shape == "quarter_sine") f = sin(f * (M_PI / 2) + M_PI / 2);
    else if (shape == "half_sine") f = sin(f * M_PI + M_PI / 2) / 2 + 0.5;
  }
  const Tensor rest = ones({length - fade}, opts);
  return clamp(fade_in ? cat({f, rest}) : cat({rest, f}), 0, 1);
}

}  // namespace

Tensor FadeImpl::forward(const Tensor& waveform) {
  EMBER_CHECK(waveform.defined() && waveform.dim() >= 1, "Fade: expected a waveform [..., time]");
  const int64_t length = waveform.size(-1);
  EMBER_CHECK(options_.fade_in_len <= length && options_.fade_out_len <= length, "Fade: fade lengths ",
              options_.fade_in_len, " and ", options_.fade_out_len, " exceed the waveform's ", length, " samples");
  const Tensor in = fade_curve(options_.fade_shape, options_.fade_in_len, length, true, waveform.device());
  const Tensor out = fade_curve(options_.fade_shape, options_.fade_out_len, length, false, waveform.device());
  return in * out * waveform;
}

Params FadeImpl::params() const {
  return {{"fade_in_len", options_.fade_in_len},
          {"fade_out_len", options_.fade_out_len},
          {"fade_shape", options_.fade_shape}};
}

}  // namespace ember::audio::transforms
