#pragma once
// torchaudio.transforms that change time or pitch: Resample, TimeStretch,
// PitchShift, and SpeedPerturbation (torchaudio 2.0's random speed).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ember/transforms/transform.h>

#include "ember/audio/transforms/level.h"
#include "ember/audio/transforms/window.h"

namespace ember::audio::transforms {

struct ResampleOptions {
  int64_t orig_freq = 16000;
  int64_t new_freq = 16000;
  std::string resampling_method = "sinc_interpolation";  // or "kaiser_window"
  int64_t lowpass_filter_width = 6;
  double rolloff = 0.99;
  std::optional<double> beta = std::nullopt;
};

// Resamples [..., time] with a sinc kernel precomputed at construction
// (buffer `kernel`, float32 as torchaudio's; cast with the module for float64).
// Rates that share almost no factor (44100 -> 44099, whose buffer would be
// 44099 x 1 x 44114) keep no `kernel`: the taps are computed on the fly with
// the float32 buffer's values, applied in the waveform's dtype.
class ResampleImpl : public TransformImpl {
 public:
  using Options = ResampleOptions;
  explicit ResampleImpl(Options options = {});
  ResampleImpl(int64_t orig_freq, int64_t new_freq) : ResampleImpl(Options{.orig_freq = orig_freq, .new_freq = new_freq}) {}
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;
  Tensor kernel;  // undefined when orig_freq == new_freq or the kernel would be large

 private:
  Options options_;
  int64_t gcd_ = 1;
  int64_t width_ = 0;
  bool kernel_is_large_ = false;  // resample on the fly, without `kernel`
};
EMBER_TRANSFORM(Resample);

struct TimeStretchOptions {
  std::optional<int64_t> hop_length = std::nullopt;  // default n_fft / 2
  int64_t n_freq = 201;
  std::optional<double> fixed_rate = std::nullopt;
};

// Stretches a complex spectrogram [..., n_freq, frames] in time by a rate
// (phase vocoder; buffer phase_advance [n_freq, 1]).
class TimeStretchImpl : public TransformImpl {
 public:
  using Options = TimeStretchOptions;
  explicit TimeStretchImpl(Options options = {});
  // With fixed_rate; without one, an ember::Error (pass the rate).
  Tensor forward(const Tensor& complex_specgrams) override { return forward(complex_specgrams, std::nullopt); }
  Tensor forward(const Tensor& complex_specgrams, std::optional<double> overriding_rate);
  Params params() const override;
  Tensor phase_advance;

 private:
  Options options_;
};
EMBER_TRANSFORM(TimeStretch);

struct PitchShiftOptions {
  int64_t sample_rate = 16000;
  int64_t n_steps = 0;
  int64_t bins_per_octave = 12;
  int64_t n_fft = 512;
  std::optional<int64_t> win_length = std::nullopt;
  std::optional<int64_t> hop_length = std::nullopt;  // default win_length / 4
  WindowOptions window = {};
};

// Shifts the pitch of [..., time] by n_steps / bins_per_octave octaves, keeping
// the length: phase-vocoder stretch, then resampling (buffer `kernel`, built
// on the first forward in the input's dtype, as torchaudio's lazy module).
// Where the rates share almost no factor the kernel would be large (16000 Hz
// and 3 steps: 19027 -> 16000 Hz, torchaudio's buffer is 16000 x 1 x 19043,
// 1.2 GB in float32): then `kernel` stays undefined and the taps are computed
// on the fly, with the same values.
class PitchShiftImpl : public TransformImpl {
 public:
  using Options = PitchShiftOptions;
  explicit PitchShiftImpl(Options options);
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;
  Tensor window;
  Tensor kernel;

 private:
  Options options_;
  int64_t orig_freq_ = 0;
  int64_t gcd_ = 1;
  int64_t width_ = -1;
  bool kernel_is_large_ = false;  // resample on the fly, without `kernel`
};
EMBER_TRANSFORM(PitchShift);

// torchaudio 2.0's SpeedPerturbation: each call plays [..., time] at a speed
// factor drawn uniformly from `factors` (default generator), by resampling.
class SpeedPerturbationImpl : public TransformImpl {
 public:
  SpeedPerturbationImpl(int64_t orig_freq, std::vector<double> factors);
  Tensor forward(const Tensor& waveform) override;
  Params params() const override;

 private:
  int64_t orig_freq_;
  std::vector<double> factors_;
};
EMBER_TRANSFORM(SpeedPerturbation);

}  // namespace ember::audio::transforms
