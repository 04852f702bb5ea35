#pragma once
// torchaudio.transforms for feature pipelines: FrequencyMasking, TimeMasking
// (SpecAugment), ComputeDeltas, SlidingWindowCmn, Vad.
#include <cstdint>
#include <optional>
#include <string>

#include <ember/transforms/transform.h>

#include "ember/audio/transforms/level.h"

namespace ember::audio::transforms {

// Masks one random band of frequencies ([..., freq, time]); with iid_masks and
// a 4-D batch [batch, channel, freq, time], a band per item.
class FrequencyMaskingImpl : public TransformImpl {
 public:
  explicit FrequencyMaskingImpl(int64_t freq_mask_param, bool iid_masks = false);
  Tensor forward(const Tensor& specgram) override { return forward(specgram, 0.0); }
  Tensor forward(const Tensor& specgram, double mask_value);
  Params params() const override;

 private:
  int64_t mask_param_;
  bool iid_masks_;
};
EMBER_TRANSFORM(FrequencyMasking);

// Masks one random band of time steps of at most min(time_mask_param, p * time) steps.
class TimeMaskingImpl : public TransformImpl {
 public:
  explicit TimeMaskingImpl(int64_t time_mask_param, bool iid_masks = false, double p = 1.0);
  Tensor forward(const Tensor& specgram) override { return forward(specgram, 0.0); }
  Tensor forward(const Tensor& specgram, double mask_value);
  Params params() const override;

 private:
  int64_t mask_param_;
  bool iid_masks_;
  double p_;
};
EMBER_TRANSFORM(TimeMasking);

class ComputeDeltasImpl : public TransformImpl {
 public:
  explicit ComputeDeltasImpl(int64_t win_length = 5, std::string mode = "replicate");
  Tensor forward(const Tensor& specgram) override;
  Params params() const override { return {{"win_length", win_length_}, {"mode", mode_}}; }

 private:
  int64_t win_length_;
  std::string mode_;
};
EMBER_TRANSFORM(ComputeDeltas);

struct SlidingWindowCmnOptions {
  int64_t cmn_window = 600;
  int64_t min_cmn_window = 100;
  bool center = false;
  bool norm_vars = false;
};

class SlidingWindowCmnImpl : public TransformImpl {
 public:
  using Options = SlidingWindowCmnOptions;
  explicit SlidingWindowCmnImpl(Options options = {});
  Tensor forward(const Tensor& specgram) override;
  Params params() const override;

 private:
  Options options_;
};
EMBER_TRANSFORM(SlidingWindowCmn);

struct VadOptions {
  int64_t sample_rate = 16000;
  double trigger_level = 7.0;
  double trigger_time = 0.25;
  double search_time = 1.0;
  double allowed_gap = 0.25;
  double pre_trigger_time = 0.0;
  double boot_time = 0.35;
  double noise_up_time = 0.1;
  double noise_down_time = 0.01;
  double noise_reduction_amount = 1.35;
  double measure_freq = 20.0;
  std::optional<double> measure_duration = std::nullopt;
  double measure_smooth_time = 0.4;
  double hp_filter_freq = 50.0;
  double lp_filter_freq = 6000.0;
  double hp_lifter_freq = 150.0;
  double lp_lifter_freq = 2000.0;
};

// Trims silence before the first voice activity (functional::vad).
class VadImpl : public TransformImpl {
 public:
  using Options = VadOptions;
  explicit VadImpl(Options options);
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;

 private:
  Options options_;
};
EMBER_TRANSFORM(Vad);

}  // namespace ember::audio::transforms
