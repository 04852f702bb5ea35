#include "asr_features.h"

#include <ember/audio/transforms/spectral.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>

#include "asr_checkpoint.h"

namespace ember::apps::asr_app {

// Note [ASR feature rate]
// Wav2Letter's widths are torchaudio's (250, 2000 channels; 21M parameters),
// so its cost is about 23M multiply-adds per output frame, and the frame rate
// is the lever that keeps a run short. Its first convolution has stride 2: 10
// ms hops (torchaudio's recipes) give 50 output frames per second of speech,
// 20 ms hops (the default here) 25. CTC needs at least one frame per character
// plus one between doubled letters; the spoken digits of the default corpus
// run at 11-14 characters per second (espeak-ng at 130-170 words per minute),
// so 25 frames per second leave about two frames per character, and the run
// costs half of what 10 ms hops would. Longer hops (30 ms: 17 frames/s) fall
// below what fast speakers need. The window stays 25 ms (n_fft 400).

namespace {

constexpr double kLogFloor = 1e-6;

}  // namespace

int64_t FeatureSpec::num_features() const { return input_type == "mfcc" ? n_mfcc : n_fft / 2 + 1; }

void FeatureSpec::check() const {
  EMBER_CHECK(input_type == "mfcc" || input_type == "power_spectrum", "ember-asr: unknown --input-type '", input_type,
              "' (expected mfcc or power_spectrum)");
  EMBER_CHECK(sample_rate > 0, "ember-asr: the sample rate must be positive, got ", sample_rate);
  EMBER_CHECK(n_fft >= 16, "ember-asr: --n-fft must be at least 16, got ", n_fft);
  EMBER_CHECK(hop_length >= 1, "ember-asr: --hop-length must be positive, got ", hop_length);
  EMBER_CHECK(input_type != "mfcc" || (n_mfcc >= 1 && n_mfcc <= 128), "ember-asr: --n-mfcc must be in [1, 128], got ",
              n_mfcc);
}

void FeatureSpec::write(Metadata& meta) const {
  meta["asr.input_type"] = input_type;
  meta["asr.sample_rate"] = std::to_string(sample_rate);
  meta["asr.n_fft"] = std::to_string(n_fft);
  meta["asr.hop_length"] = std::to_string(hop_length);
  meta["asr.n_mfcc"] = std::to_string(n_mfcc);
}

FeatureSpec FeatureSpec::read(const Metadata& meta, const std::string& path) {
  const CheckpointFormat& f = asr_checkpoint_format();
  FeatureSpec s{.input_type = f.entry(meta, "asr.input_type", path),
                .sample_rate = f.integer(meta, "asr.sample_rate", path),
                .n_fft = f.integer(meta, "asr.n_fft", path),
                .hop_length = f.integer(meta, "asr.hop_length", path),
                .n_mfcc = f.integer(meta, "asr.n_mfcc", path)};
  s.check();
  return s;
}

struct FeatureExtractor::Transforms {
  std::optional<audio::transforms::MFCC> mfcc;
  std::optional<audio::transforms::Spectrogram> spectrogram;
};

FeatureExtractor::FeatureExtractor(const FeatureSpec& spec) : spec_(spec), transforms_(std::make_unique<Transforms>()) {
  spec_.check();
  if (spec_.input_type == "mfcc") {
    // log(mel + 1e-6) rather than decibels clipped 80 dB below each
    // utterance's peak: the same scale for every utterance.
    transforms_->mfcc.emplace(audio::transforms::MFCCOptions{
        .sample_rate = spec_.sample_rate,
        .n_mfcc = spec_.n_mfcc,
        .log_mels = true,
        .melkwargs = {.n_fft = spec_.n_fft, .hop_length = spec_.hop_length, .n_mels = std::max<int64_t>(40, spec_.n_mfcc)}});
  } else {
    transforms_->spectrogram.emplace(
        audio::transforms::SpectrogramOptions{.n_fft = spec_.n_fft, .hop_length = spec_.hop_length});
  }
}

FeatureExtractor::~FeatureExtractor() = default;
FeatureExtractor::FeatureExtractor(FeatureExtractor&&) noexcept = default;
FeatureExtractor& FeatureExtractor::operator=(FeatureExtractor&&) noexcept = default;

Tensor FeatureExtractor::operator()(const Tensor& waveform) const {
  EMBER_CHECK(waveform.dim() == 1 || (waveform.dim() == 2 && waveform.size(0) == 1),
              "ember-asr: features take a mono waveform [samples] or [1, samples], got ", waveform.sizes());
  // Wav2Letter needs two input frames at least.
  EMBER_CHECK(waveform.size(-1) >= spec_.hop_length, "ember-asr: a waveform of ", waveform.size(-1),
              " samples is too short (at least ", spec_.hop_length, ", one hop, are needed)");
  NoGradGuard no_grad;
  const Tensor w = waveform.reshape({-1}).to(kFloat32);
  Tensor f = transforms_->mfcc ? (*transforms_->mfcc)(w) : ((*transforms_->spectrogram)(w) + kLogFloor).log();
  // Per-utterance normalisation of each feature over time; a constant feature
  // (digital silence) becomes zeros.
  const Tensor mean = f.mean({1}, /*keepdim=*/true);
  const Tensor std = f.std({1}, /*correction=*/0, /*keepdim=*/true);
  return ((f - mean) / (std + 1e-5)).contiguous();
}

int64_t wav2letter_output_frames(int64_t frames) { return (frames + 2 * 23 - 48) / 2 + 1 + 1; }

}  // namespace ember::apps::asr_app
