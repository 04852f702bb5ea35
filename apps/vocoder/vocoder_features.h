#pragma once
// ember-vocoder's features and its quality measure.
//
// Conditioning features are torchaudio's pipeline_wavernn ones: a power
// MelSpectrogram, then NormalizeDB (20 log10(max(x, 1e-5)) mapped from
// [min_level_db, 0] dB to [0, 1] and clamped). The spectral distance is the
// log-mel L1 distance: the mean over frames and mel bins of
// |ln max(M_a, 1e-5) - ln max(M_b, 1e-5)|, M the power mel spectrogram of the
// same parameters (Note [The log-mel L1 distance] in vocoder_features.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/audio/transforms/spectral.h>
#include <ember/core/ordered_dict.h>
#include <ember/core/tensor.h>

namespace ember::apps::vocoder {

// Everything that fixes what a checkpoint's model expects and produces.
struct FeatureSpec {
  int64_t sample_rate = 8000;
  int64_t n_fft = 512;
  int64_t win_length = 400;
  std::vector<int64_t> upsample_scales = {5, 5, 4};
  int64_t n_mels = 40;
  double f_min = 40;
  double min_level_db = -100;
  int64_t bits = 8;

  int64_t hop_length() const;  // the product of upsample_scales
  int64_t n_classes() const { return int64_t{1} << bits; }

  // Checks every field, naming the flag of a bad one.
  void validate() const;
  void write(Metadata& meta) const;
  static FeatureSpec read(const Metadata& meta, const std::string& path);
};

// "5,5,4" -> {5, 5, 4}; an ember::Error names the text when it is not a list
// of positive integers.
std::vector<int64_t> parse_scales(const std::string& text);
std::string format_scales(const std::vector<int64_t>& scales);

class Features {
 public:
  explicit Features(const FeatureSpec& spec);

  // The power mel spectrogram of waveforms [..., L]: [..., n_mels, 1 + L / hop].
  Tensor power_mel(const Tensor& waveform);
  // The model's input: NormalizeDB of power_mel, in [0, 1].
  Tensor conditioning(const Tensor& waveform);
  // The log-mel L1 distance between two waveforms [L] of one length.
  double log_mel_distance(const Tensor& a, const Tensor& b);

  const FeatureSpec& spec() const { return spec_; }

 private:
  FeatureSpec spec_;
  audio::transforms::MelSpectrogram mel_{nullptr};
};

// Mu-law helpers with torchaudio's pipeline_wavernn conventions: waveform in
// [-1, 1] -> classes [0, 2^bits); classes -> the network's input
// 2c / (2^bits - 1) - 1 (bits_to_normalized_waveform); generated samples in
// that form -> the decoded waveform.
Tensor mu_law_classes(const Tensor& waveform, int64_t bits);
Tensor classes_to_input(const Tensor& classes, int64_t bits);
Tensor decode_generated(const Tensor& generated, int64_t bits);

}  // namespace ember::apps::vocoder
