#include "vocoder_features.h"

#include <cstdlib>
#include <sstream>

#include <ember/audio/functional.h>
#include <ember/core/error.h>

#include "vocoder_checkpoint.h"

namespace ember::apps::vocoder {
namespace {

constexpr double kPowerFloor = 1e-5;  // NormalizeDB's clamp, and the distance's floor

}  // namespace

std::vector<int64_t> parse_scales(const std::string& text) {
  std::vector<int64_t> scales;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    EMBER_CHECK(!item.empty() && end == item.c_str() + item.size() && v >= 1 && v <= 1000,
                "ember-vocoder: --upsample-scales '", text, "' is not a comma-separated list of integers in [1, 1000]");
    scales.push_back(v);
  }
  EMBER_CHECK(!scales.empty(), "ember-vocoder: --upsample-scales is empty (expected e.g. 5,5,4)");
  return scales;
}

std::string format_scales(const std::vector<int64_t>& scales) {
  std::string s;
  for (size_t i = 0; i < scales.size(); ++i) s += (i ? "," : "") + std::to_string(scales[i]);
  return s;
}

int64_t FeatureSpec::hop_length() const {
  int64_t hop = 1;
  for (int64_t s : upsample_scales) hop *= s;
  return hop;
}

void FeatureSpec::validate() const {
  EMBER_CHECK(sample_rate >= 1000 && sample_rate <= 48000, "ember-vocoder: --sample-rate must be in [1000, 48000] (got ",
              sample_rate, ")");
  EMBER_CHECK(!upsample_scales.empty() && upsample_scales.size() <= 8,
              "ember-vocoder: --upsample-scales needs 1 to 8 factors");
  const int64_t hop = hop_length();
  EMBER_CHECK(hop >= 8 && hop <= 2048, "ember-vocoder: the hop length (the product of --upsample-scales ",
              format_scales(upsample_scales), ") is ", hop, "; expected 8 to 2048 samples");
  EMBER_CHECK(n_fft >= 16 && n_fft <= 8192, "ember-vocoder: --n-fft must be in [16, 8192] (got ", n_fft, ")");
  EMBER_CHECK(win_length >= 1 && win_length <= n_fft, "ember-vocoder: --win-length must be in [1, --n-fft = ", n_fft,
              "] (got ", win_length, ")");
  EMBER_CHECK(n_mels >= 4 && n_mels <= 256, "ember-vocoder: --n-mels must be in [4, 256] (got ", n_mels, ")");
  EMBER_CHECK(f_min >= 0 && f_min < sample_rate / 2.0, "ember-vocoder: --f-min must be in [0, sample_rate / 2 = ",
              sample_rate / 2.0, ") (got ", f_min, ")");
  EMBER_CHECK(min_level_db < 0, "ember-vocoder: --min-level-db must be negative (got ", min_level_db, ")");
  EMBER_CHECK(bits >= 2 && bits <= 16, "ember-vocoder: --bits must be in [2, 16] (got ", bits, ")");
}

void FeatureSpec::write(Metadata& meta) const {
  meta["vocoder.sample_rate"] = std::to_string(sample_rate);
  meta["vocoder.n_fft"] = std::to_string(n_fft);
  meta["vocoder.win_length"] = std::to_string(win_length);
  meta["vocoder.upsample_scales"] = format_scales(upsample_scales);
  meta["vocoder.n_mels"] = std::to_string(n_mels);
  meta["vocoder.f_min"] = metadata_number(f_min);
  meta["vocoder.min_level_db"] = metadata_number(min_level_db);
  meta["vocoder.bits"] = std::to_string(bits);
}

FeatureSpec FeatureSpec::read(const Metadata& meta, const std::string& path) {
  const CheckpointFormat& f = vocoder_checkpoint_format();
  FeatureSpec s;
  s.sample_rate = f.integer(meta, "vocoder.sample_rate", path);
  s.n_fft = f.integer(meta, "vocoder.n_fft", path);
  s.win_length = f.integer(meta, "vocoder.win_length", path);
  s.upsample_scales = parse_scales(f.entry(meta, "vocoder.upsample_scales", path));
  s.n_mels = f.integer(meta, "vocoder.n_mels", path);
  s.f_min = f.number(meta, "vocoder.f_min", path);
  s.min_level_db = f.number(meta, "vocoder.min_level_db", path);
  s.bits = f.integer(meta, "vocoder.bits", path);
  s.validate();
  return s;
}

Features::Features(const FeatureSpec& spec) : spec_(spec) {
  spec_.validate();
  mel_ = audio::transforms::MelSpectrogram(audio::transforms::MelSpectrogramOptions{.sample_rate = spec.sample_rate,
                                                                                    .n_fft = spec.n_fft,
                                                                                    .win_length = spec.win_length,
                                                                                    .hop_length = spec.hop_length(),
                                                                                    .f_min = spec.f_min,
                                                                                    .n_mels = spec.n_mels});
}

Tensor Features::power_mel(const Tensor& waveform) { return mel_(waveform); }

Tensor Features::conditioning(const Tensor& waveform) {
  const Tensor db = power_mel(waveform).clamp_min(kPowerFloor).log10() * 20.0;
  return ((db - spec_.min_level_db) / -spec_.min_level_db).clamp(0.0, 1.0);
}

// Note [The log-mel L1 distance]: the mean over frames and mel bins of
// |ln max(M_a, 1e-5) - ln max(M_b, 1e-5)|, M the power mel spectrogram the
// model is conditioned on. It is a spectral-envelope distance: blind to phase
// (a vocoder cannot be asked to reproduce the original's), sensitive to level
// and to where the energy sits in frequency and time. The floor (NormalizeDB's
// 1e-5, -50 dB) makes near-silence compare equal to silence, so quiet hiss in
// pauses does not dominate; a unit of distance is a factor e in power.
double Features::log_mel_distance(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1 && a.size(0) == b.size(0), "ember-vocoder: log_mel_distance needs two "
              "waveforms [L] of one length (got ", a.sizes(), " and ", b.sizes(), ")");
  const Tensor la = power_mel(a).clamp_min(kPowerFloor).log();
  const Tensor lb = power_mel(b).clamp_min(kPowerFloor).log();
  return (la - lb).abs().mean().item<double>();
}

Tensor mu_law_classes(const Tensor& waveform, int64_t bits) {
  return audio::functional::mu_law_encoding(waveform.clamp(-1.0, 1.0), int64_t{1} << bits);
}

Tensor classes_to_input(const Tensor& classes, int64_t bits) {
  const double top = static_cast<double>((int64_t{1} << bits) - 1);
  return classes.to(kFloat32) * (2.0 / top) - 1.0;
}

Tensor decode_generated(const Tensor& generated, int64_t bits) {
  const double top = static_cast<double>((int64_t{1} << bits) - 1);
  const Tensor classes = ((generated + 1.0) * (top / 2.0)).round().clamp(0.0, top).to(kInt64);
  return audio::functional::mu_law_decoding(classes, int64_t{1} << bits);
}

}  // namespace ember::apps::vocoder
