// MelScale, InverseMelScale, MelSpectrogram (torchaudio 0.13).
#include <cmath>
#include <limits>

#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "ember/audio/transforms/spectral.h"
#include "transforms/transform_params.h"

namespace ember::audio::transforms {
namespace F = ember::audio::functional;
using detail::add_window_params;
using detail::optional_value;

namespace {

// torchaudio: f_max defaults to float(sample_rate // 2); f_min <= f_max.
double resolve_f_max(std::optional<double> f_max, int64_t sample_rate, double f_min, const char* transform) {
  EMBER_CHECK(sample_rate > 0, transform, ": sample_rate must be positive, got ", sample_rate);
  const double top = f_max.value_or(static_cast<double>(sample_rate / 2));
  EMBER_CHECK(f_min <= top, transform, ": require f_min (", f_min, ") <= f_max (", top, ")");
  return top;
}

// [..., freq, time] x [freq, n] -> [..., n, time]: torchaudio's
// matmul(specgram.transpose(-1, -2), fb).transpose(-1, -2), computed as
// fb^T @ specgram (the same dot products), which writes [..., n, time]
// directly instead of transposing in and out (1.5x faster for a batch).
Tensor apply_filter_bank(const Tensor& specgram, const Tensor& fb, int64_t expected_freqs, const char* transform) {
  EMBER_CHECK(specgram.defined() && specgram.dim() >= 2, transform, ": expected a spectrogram [..., freq, time], got ",
              specgram.defined() ? specgram.dim() : 0, " dims");
  EMBER_CHECK(specgram.size(-2) == expected_freqs, transform, ": expected ", expected_freqs,
              " frequency bins, got ", specgram.size(-2));
  return matmul(fb.t(), specgram);
}

}  // namespace

MelScaleImpl::MelScaleImpl(Options options) : TransformImpl("MelScale"), options_(std::move(options)) {
  const double f_max = resolve_f_max(options_.f_max, options_.sample_rate, options_.f_min, "MelScale");
  register_buffer("fb",
                  F::melscale_fbanks(options_.n_stft, options_.f_min, f_max, options_.n_mels, options_.sample_rate,
                                     options_.norm, options_.mel_scale),
                  &fb);
}

Tensor MelScaleImpl::forward(const Tensor& specgram) {
  return apply_filter_bank(specgram, fb, fb.size(0), "MelScale");
}

Params MelScaleImpl::params() const {
  return {{"n_mels", options_.n_mels},         {"sample_rate", options_.sample_rate},
          {"f_min", options_.f_min},           {"f_max", optional_value(options_.f_max)},
          {"n_stft", options_.n_stft},         {"norm", optional_value(options_.norm)},
          {"mel_scale", options_.mel_scale}};
}

InverseMelScaleImpl::InverseMelScaleImpl(Options options)
    : TransformImpl("InverseMelScale"), options_(std::move(options)) {
  // torchaudio: `f_max or float(sample_rate // 2)`, so f_max = 0 also means the default.
  if (options_.f_max && *options_.f_max == 0) options_.f_max = std::nullopt;
  const double f_max = resolve_f_max(options_.f_max, options_.sample_rate, options_.f_min, "InverseMelScale");
  EMBER_CHECK(options_.max_iter >= 0, "InverseMelScale: max_iter must be >= 0, got ", options_.max_iter);
  register_buffer("fb",
                  F::melscale_fbanks(options_.n_stft, options_.f_min, f_max, options_.n_mels, options_.sample_rate,
                                     options_.norm, options_.mel_scale),
                  &fb);
}

// torchaudio's loop, with the gradient written out instead of autograd:
//   loss = mean over (batch, time) of sum over mels (melspec - S fb)^2
//   dloss/dS = -2 / (batch * time) * (melspec - S fb) fb^T
// and torch.optim.SGD's momentum update (buf = momentum * buf + grad, the
// first buf = grad; S -= lr * buf), S clamped at 0 after each step.
Tensor InverseMelScaleImpl::forward(const Tensor& melspec) {
  EMBER_CHECK(melspec.defined() && melspec.dim() >= 2, "InverseMelScale: expected a mel spectrogram [..., n_mels, time]");
  EMBER_CHECK(melspec.size(-2) == options_.n_mels, "InverseMelScale: expected an input with ", options_.n_mels,
              " mel bins, got ", melspec.size(-2));
  EMBER_CHECK(is_floating_point(melspec.dtype()), "InverseMelScale: expected a floating-point input, got ",
              dtype_name(melspec.dtype()));
  const std::vector<int64_t> shape = melspec.sizes().vec();
  const int64_t n_mels = shape[shape.size() - 2], time = shape.back(), freq = fb.size(0);
  const Tensor target = melspec.reshape({-1, n_mels, time}).transpose(-1, -2);  // [batch, time, n_mels]
  const Tensor bank = fb.to(melspec.dtype());
  const Tensor bank_t = bank.t();
  NoGradGuard no_grad;
  Tensor specgram = rand({target.size(0), time, freq}, TensorOptions().dtype(melspec.dtype()).device(melspec.device()));
  Tensor momentum_buffer;
  const double scale = -2.0 / static_cast<double>(target.size(0) * time);
  double loss = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < options_.max_iter; ++i) {
    const Tensor diff = target - matmul(specgram, bank);
    const double new_loss = diff.pow(2).sum(-1).mean().item<double>();
    const Tensor grad = matmul(diff, bank_t) * scale;
    if (momentum_buffer.defined()) momentum_buffer.mul_(options_.momentum).add_(grad);
    else momentum_buffer = grad.clone();
    specgram.sub_(momentum_buffer * options_.lr);
    specgram.clamp_(0);
    if (new_loss < options_.tolerance_loss || std::abs(loss - new_loss) < options_.tolerance_change) break;
    loss = new_loss;
  }
  std::vector<int64_t> out_shape(shape.begin(), shape.end() - 2);
  out_shape.push_back(freq);
  out_shape.push_back(time);
  return specgram.clamp_min(0).transpose(-1, -2).reshape(out_shape);
}

Params InverseMelScaleImpl::params() const {
  return {{"n_stft", options_.n_stft},
          {"n_mels", options_.n_mels},
          {"sample_rate", options_.sample_rate},
          {"f_min", options_.f_min},
          {"f_max", optional_value(options_.f_max)},
          {"max_iter", options_.max_iter},
          {"tolerance_loss", options_.tolerance_loss},
          {"tolerance_change", options_.tolerance_change},
          {"lr", options_.lr},
          {"momentum", options_.momentum},
          {"norm", optional_value(options_.norm)},
          {"mel_scale", options_.mel_scale}};
}

MelSpectrogramImpl::MelSpectrogramImpl(Options options)
    : TransformImpl("MelSpectrogram"), options_(std::move(options)) {
  if (!options_.win_length) options_.win_length = options_.n_fft;
  if (!options_.hop_length) options_.hop_length = *options_.win_length / 2;
  spectrogram = register_module("spectrogram", std::make_shared<SpectrogramImpl>(SpectrogramOptions{
                                                   .n_fft = options_.n_fft,
                                                   .win_length = options_.win_length,
                                                   .hop_length = options_.hop_length,
                                                   .pad = options_.pad,
                                                   .window = options_.window,
                                                   .power = options_.power,
                                                   .normalized = options_.normalized ? "window" : "",
                                                   .center = options_.center,
                                                   .pad_mode = options_.pad_mode,
                                                   .onesided = options_.onesided}));
  mel_scale = register_module("mel_scale", std::make_shared<MelScaleImpl>(MelScaleOptions{
                                               .n_mels = options_.n_mels,
                                               .sample_rate = options_.sample_rate,
                                               .f_min = options_.f_min,
                                               .f_max = options_.f_max,
                                               .n_stft = options_.n_fft / 2 + 1,
                                               .norm = options_.norm,
                                               .mel_scale = options_.mel_scale}));
}

Tensor MelSpectrogramImpl::forward(const Tensor& waveform) { return mel_scale->forward(spectrogram->forward(waveform)); }

Params MelSpectrogramImpl::params() const {
  Params p{{"sample_rate", options_.sample_rate},
           {"n_fft", options_.n_fft},
           {"win_length", *options_.win_length},
           {"hop_length", *options_.hop_length},
           {"f_min", options_.f_min},
           {"f_max", optional_value(options_.f_max)},
           {"pad", options_.pad},
           {"n_mels", options_.n_mels},
           {"power", options_.power},
           {"normalized", options_.normalized},
           {"center", options_.center},
           {"pad_mode", options_.pad_mode},
           {"onesided", options_.onesided},
           {"norm", optional_value(options_.norm)},
           {"mel_scale", options_.mel_scale}};
  add_window_params(p, options_.window);
  return p;
}

}  // namespace ember::audio::transforms
