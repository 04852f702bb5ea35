// MFCC and LFCC (torchaudio 0.13).
#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "ember/audio/transforms/spectral.h"
#include "transforms/transform_params.h"

namespace ember::audio::transforms {
namespace F = ember::audio::functional;
using detail::add_window_params;
using detail::optional_value;

namespace {

constexpr double kTopDb = 80.0;       // torchaudio's MFCC / LFCC top_db
constexpr double kLogOffset = 1e-6;   // their log_mels / log_lf offset

// [..., n, time] -> [..., m, time] through a [n, m] matrix: torchaudio's
// matmul(x.transpose(-1, -2), matrix).transpose(-1, -2) as matrix^T @ x
// (the same dot products, no transposed copies).
Tensor along_rows(const Tensor& x, const Tensor& matrix) { return matmul(matrix.t(), x); }

}  // namespace

MFCCImpl::MFCCImpl(Options options) : TransformImpl("MFCC"), options_(std::move(options)) {
  EMBER_CHECK(options_.dct_type == 2, "MFCC: DCT type not supported: ", options_.dct_type);
  options_.melkwargs.sample_rate = options_.sample_rate;
  amplitude_to_DB = register_module("amplitude_to_DB", std::make_shared<AmplitudeToDBImpl>("power", kTopDb));
  mel_spectrogram = register_module("MelSpectrogram", std::make_shared<MelSpectrogramImpl>(options_.melkwargs));
  EMBER_CHECK(options_.n_mfcc <= options_.melkwargs.n_mels, "MFCC: cannot select more MFCC coefficients (",
              options_.n_mfcc, ") than mel bins (", options_.melkwargs.n_mels, ")");
  register_buffer("dct_mat", F::create_dct(options_.n_mfcc, options_.melkwargs.n_mels, options_.norm), &dct_mat);
}

Tensor MFCCImpl::forward(const Tensor& waveform) {
  Tensor mel = mel_spectrogram->forward(waveform);
  mel = options_.log_mels ? log(mel + kLogOffset) : amplitude_to_DB->forward(mel);
  return along_rows(mel, dct_mat);
}

Params MFCCImpl::params() const {
  const MelSpectrogramOptions& m = options_.melkwargs;
  Params p{{"sample_rate", options_.sample_rate},
           {"n_mfcc", options_.n_mfcc},
           {"dct_type", options_.dct_type},
           {"norm", options_.norm},
           {"log_mels", options_.log_mels},
           {"mel_n_fft", m.n_fft},
           {"mel_win_length", optional_value(m.win_length)},
           {"mel_hop_length", optional_value(m.hop_length)},
           {"mel_f_min", m.f_min},
           {"mel_f_max", optional_value(m.f_max)},
           {"mel_pad", m.pad},
           {"mel_n_mels", m.n_mels},
           {"mel_power", m.power},
           {"mel_normalized", m.normalized},
           {"mel_center", m.center},
           {"mel_pad_mode", m.pad_mode},
           {"mel_onesided", m.onesided},
           {"mel_norm", optional_value(m.norm)},
           {"mel_mel_scale", m.mel_scale}};
  add_window_params(p, m.window);
  return p;
}

LFCCImpl::LFCCImpl(Options options) : TransformImpl("LFCC"), options_(std::move(options)) {
  EMBER_CHECK(options_.dct_type == 2, "LFCC: DCT type not supported: ", options_.dct_type);
  EMBER_CHECK(options_.sample_rate > 0, "LFCC: sample_rate must be positive, got ", options_.sample_rate);
  const double f_max = options_.f_max.value_or(static_cast<double>(options_.sample_rate / 2));
  amplitude_to_DB = register_module("amplitude_to_DB", std::make_shared<AmplitudeToDBImpl>("power", kTopDb));
  spectrogram = register_module("Spectrogram", std::make_shared<SpectrogramImpl>(options_.speckwargs));
  EMBER_CHECK(options_.n_lfcc <= options_.speckwargs.n_fft, "LFCC: cannot select more LFCC coefficients (",
              options_.n_lfcc, ") than fft bins (", options_.speckwargs.n_fft, ")");
  register_buffer("filter_mat",
                  F::linear_fbanks(options_.speckwargs.n_fft / 2 + 1, options_.f_min, f_max, options_.n_filter,
                                   options_.sample_rate),
                  &filter_mat);
  register_buffer("dct_mat", F::create_dct(options_.n_lfcc, options_.n_filter, options_.norm), &dct_mat);
}

Tensor LFCCImpl::forward(const Tensor& waveform) {
  Tensor spec = along_rows(spectrogram->forward(waveform), filter_mat);
  spec = options_.log_lf ? log(spec + kLogOffset) : amplitude_to_DB->forward(spec);
  return along_rows(spec, dct_mat);
}

Params LFCCImpl::params() const {
  const SpectrogramOptions& s = options_.speckwargs;
  Params p{{"sample_rate", options_.sample_rate},
           {"n_filter", options_.n_filter},
           {"f_min", options_.f_min},
           {"f_max", optional_value(options_.f_max)},
           {"n_lfcc", options_.n_lfcc},
           {"dct_type", options_.dct_type},
           {"norm", options_.norm},
           {"log_lf", options_.log_lf},
           {"spec_n_fft", s.n_fft},
           {"spec_win_length", optional_value(s.win_length)},
           {"spec_hop_length", optional_value(s.hop_length)},
           {"spec_pad", s.pad},
           {"spec_power", optional_value(s.power)},
           {"spec_normalized", s.normalized},
           {"spec_center", s.center},
           {"spec_pad_mode", s.pad_mode},
           {"spec_onesided", s.onesided}};
  add_window_params(p, s.window);
  return p;
}

}  // namespace ember::audio::transforms
