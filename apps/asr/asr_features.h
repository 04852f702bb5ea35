#pragma once
// ember-asr's acoustic features: MFCC or a log power spectrum of a mono
// waveform, each feature normalised over the utterance (zero mean, unit
// variance), as Wav2Letter's "mfcc" and "power_spectrum" input types take
// them. The spec travels in checkpoints, so --transcribe computes the
// features the model was trained on.
#include <cstdint>
#include <memory>
#include <string>

#include <ember/core/ordered_dict.h>
#include <ember/core/tensor.h>

namespace ember::apps::asr_app {

struct FeatureSpec {
  std::string input_type = "mfcc";  // or power_spectrum
  int64_t sample_rate = 16000;
  int64_t n_fft = 400;
  int64_t hop_length = 320;
  int64_t n_mfcc = 40;              // mfcc only

  // The model's input channels: n_mfcc, or n_fft / 2 + 1 spectrum bins.
  int64_t num_features() const;
  // Argument checks, naming the flag at fault.
  void check() const;
  void write(Metadata& meta) const;
  static FeatureSpec read(const Metadata& meta, const std::string& path);
};

class FeatureExtractor {
 public:
  explicit FeatureExtractor(const FeatureSpec& spec);
  ~FeatureExtractor();
  FeatureExtractor(FeatureExtractor&&) noexcept;
  FeatureExtractor& operator=(FeatureExtractor&&) noexcept;

  // waveform: float [samples] or [1, samples] at spec.sample_rate ->
  // float32 [num_features, frames] (frames = samples / hop_length + 1).
  Tensor operator()(const Tensor& waveform) const;
  const FeatureSpec& spec() const { return spec_; }

 private:
  struct Transforms;
  FeatureSpec spec_;
  std::unique_ptr<Transforms> transforms_;
};

// Wav2Letter's output frames for `frames` input frames (its first
// convolution halves them, its 32-wide one adds one).
int64_t wav2letter_output_frames(int64_t frames);

}  // namespace ember::apps::asr_app
