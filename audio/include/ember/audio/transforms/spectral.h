#pragma once
// torchaudio.transforms over spectrograms: Spectrogram, InverseSpectrogram,
// GriffinLim, MelScale, InverseMelScale, MelSpectrogram, MFCC, LFCC,
// SpectralCentroid. Each holds torchaudio's buffers under torchaudio's names
// (window, fb, dct_mat, filter_mat; submodules spectrogram / mel_scale /
// MelSpectrogram / Spectrogram / amplitude_to_DB), so state dicts match.
#include <cstdint>
#include <optional>
#include <string>

#include <ember/audio/functional/spectral.h>
#include <ember/transforms/transform.h>

#include "ember/audio/transforms/level.h"
#include "ember/audio/transforms/window.h"

namespace ember::audio::transforms {

struct SpectrogramOptions {
  int64_t n_fft = 400;
  std::optional<int64_t> win_length = std::nullopt;  // default n_fft
  std::optional<int64_t> hop_length = std::nullopt;  // default win_length / 2
  int64_t pad = 0;
  WindowOptions window = {};
  std::optional<double> power = 2.0;  // nullopt: the complex spectrogram
  std::string normalized = "";        // "" (false), "window" (true) or "frame_length"
  bool center = true;
  std::string pad_mode = "reflect";
  bool onesided = true;
};

// Waveform [..., time] to |STFT|^power [..., n_fft/2+1, frames] (complex without power).
class SpectrogramImpl : public TransformImpl {
 public:
  using Options = SpectrogramOptions;
  explicit SpectrogramImpl(Options options = {});
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;
  const Options& options() const { return options_; }  // win/hop lengths filled in
  Tensor window;

 private:
  Options options_;
};
EMBER_TRANSFORM(Spectrogram);

struct InverseSpectrogramOptions {
  int64_t n_fft = 400;
  std::optional<int64_t> win_length = std::nullopt;
  std::optional<int64_t> hop_length = std::nullopt;
  int64_t pad = 0;
  WindowOptions window = {};
  std::string normalized = "";
  bool center = true;
  std::string pad_mode = "reflect";
  bool onesided = true;
};

// Complex spectrogram [..., freq, frames] back to a waveform [..., time].
class InverseSpectrogramImpl : public TransformImpl {
 public:
  using Options = InverseSpectrogramOptions;
  explicit InverseSpectrogramImpl(Options options = {});
  Tensor forward(const Tensor& spectrogram) override { return forward(spectrogram, std::nullopt); }
  Tensor forward(const Tensor& spectrogram, std::optional<int64_t> length);
  Params params() const override;
  Tensor window;

 private:
  Options options_;
};
EMBER_TRANSFORM(InverseSpectrogram);

struct GriffinLimOptions {
  int64_t n_fft = 400;
  int64_t n_iter = 32;
  std::optional<int64_t> win_length = std::nullopt;
  std::optional<int64_t> hop_length = std::nullopt;
  WindowOptions window = {};
  double power = 2.0;
  double momentum = 0.99;  // in [0, 1)
  std::optional<int64_t> length = std::nullopt;
  bool rand_init = true;
};

// A waveform [..., time] from a magnitude spectrogram by Griffin-Lim.
class GriffinLimImpl : public TransformImpl {
 public:
  using Options = GriffinLimOptions;
  explicit GriffinLimImpl(Options options = {});
  Tensor forward(const Tensor& specgram) override;
  Params params() const override;
  Tensor window;

 private:
  Options options_;
};
EMBER_TRANSFORM(GriffinLim);

struct MelScaleOptions {
  int64_t n_mels = 128;
  int64_t sample_rate = 16000;
  double f_min = 0.0;
  std::optional<double> f_max = std::nullopt;  // default sample_rate / 2 (integer division)
  int64_t n_stft = 201;
  std::optional<std::string> norm = std::nullopt;  // "slaney" or none
  std::string mel_scale = "htk";
};

// Spectrogram [..., n_stft, time] to mel spectrogram [..., n_mels, time]
// through the filter bank buffer `fb` [n_stft, n_mels].
class MelScaleImpl : public TransformImpl {
 public:
  using Options = MelScaleOptions;
  explicit MelScaleImpl(Options options = {});
  Tensor forward(const Tensor& specgram) override;
  Params params() const override;
  Tensor fb;

 private:
  Options options_;
};
EMBER_TRANSFORM(MelScale);

struct InverseMelScaleOptions {
  int64_t n_stft = 201;
  int64_t n_mels = 128;
  int64_t sample_rate = 16000;
  double f_min = 0.0;
  std::optional<double> f_max = std::nullopt;
  int64_t max_iter = 100000;
  double tolerance_loss = 1e-5;
  double tolerance_change = 1e-8;
  double lr = 0.1;        // torchaudio's sgdargs
  double momentum = 0.9;
  std::optional<std::string> norm = std::nullopt;
  std::string mel_scale = "htk";
};

// Mel spectrogram [..., n_mels, time] back to a non-negative spectrogram
// [..., n_stft, time] minimising |melspec - specgram^T fb|^2 with
// torchaudio's method: SGD with momentum from a random start (the default
// generator), clamped to >= 0 after each step, until the loss or its change
// falls below the tolerances. Not a direct solve: with n_stft > n_mels the
// system is underdetermined, so torchaudio's answer is the one its descent
// reaches, and a least-squares solve would return another (docs/audio.md).
class InverseMelScaleImpl : public TransformImpl {
 public:
  using Options = InverseMelScaleOptions;
  explicit InverseMelScaleImpl(Options options = {});
  Tensor forward(const Tensor& melspec) override;
  Params params() const override;
  Tensor fb;

 private:
  Options options_;
};
EMBER_TRANSFORM(InverseMelScale);

struct MelSpectrogramOptions {
  int64_t sample_rate = 16000;
  int64_t n_fft = 400;
  std::optional<int64_t> win_length = std::nullopt;
  std::optional<int64_t> hop_length = std::nullopt;
  double f_min = 0.0;
  std::optional<double> f_max = std::nullopt;
  int64_t pad = 0;
  int64_t n_mels = 128;
  WindowOptions window = {};
  double power = 2.0;
  bool normalized = false;
  bool center = true;
  std::string pad_mode = "reflect";
  bool onesided = true;
  std::optional<std::string> norm = std::nullopt;
  std::string mel_scale = "htk";
};

// Spectrogram then MelScale (submodules `spectrogram` and `mel_scale`).
class MelSpectrogramImpl : public TransformImpl {
 public:
  using Options = MelSpectrogramOptions;
  explicit MelSpectrogramImpl(Options options = {});
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;
  const Options& options() const { return options_; }
  std::shared_ptr<SpectrogramImpl> spectrogram;
  std::shared_ptr<MelScaleImpl> mel_scale;

 private:
  Options options_;
};
EMBER_TRANSFORM(MelSpectrogram);

struct MFCCOptions {
  int64_t sample_rate = 16000;
  int64_t n_mfcc = 40;
  int64_t dct_type = 2;  // the only type torchaudio supports
  std::string norm = "ortho";
  bool log_mels = false;
  MelSpectrogramOptions melkwargs = {};  // its sample_rate is replaced by sample_rate above
};

// MelSpectrogram, then dB (top_db 80) or log(x + 1e-6), then a DCT-II
// (buffer dct_mat): [..., n_mfcc, time].
class MFCCImpl : public TransformImpl {
 public:
  using Options = MFCCOptions;
  explicit MFCCImpl(Options options = {});
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;
  Tensor dct_mat;
  std::shared_ptr<AmplitudeToDBImpl> amplitude_to_DB;
  std::shared_ptr<MelSpectrogramImpl> mel_spectrogram;  // registered as torchaudio's "MelSpectrogram"

 private:
  Options options_;
};
EMBER_TRANSFORM(MFCC);

struct LFCCOptions {
  int64_t sample_rate = 16000;
  int64_t n_filter = 128;
  double f_min = 0.0;
  std::optional<double> f_max = std::nullopt;
  int64_t n_lfcc = 40;
  int64_t dct_type = 2;
  std::string norm = "ortho";
  bool log_lf = false;
  SpectrogramOptions speckwargs = {};
};

// Spectrogram, linear filter bank (buffer filter_mat), dB or log, DCT-II
// (buffer dct_mat): [..., n_lfcc, time].
class LFCCImpl : public TransformImpl {
 public:
  using Options = LFCCOptions;
  explicit LFCCImpl(Options options = {});
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;
  Tensor filter_mat;
  Tensor dct_mat;
  std::shared_ptr<AmplitudeToDBImpl> amplitude_to_DB;
  std::shared_ptr<SpectrogramImpl> spectrogram;  // registered as torchaudio's "Spectrogram"

 private:
  Options options_;
};
EMBER_TRANSFORM(LFCC);

struct SpectralCentroidOptions {
  int64_t sample_rate = 16000;
  int64_t n_fft = 400;
  std::optional<int64_t> win_length = std::nullopt;
  std::optional<int64_t> hop_length = std::nullopt;
  int64_t pad = 0;
  WindowOptions window = {};
};

// The spectral centroid of each frame, [..., frames].
class SpectralCentroidImpl : public TransformImpl {
 public:
  using Options = SpectralCentroidOptions;
  explicit SpectralCentroidImpl(Options options);
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;
  Tensor window;

 private:
  Options options_;
};
EMBER_TRANSFORM(SpectralCentroid);

}  // namespace ember::audio::transforms
