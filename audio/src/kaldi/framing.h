#pragma once
// The framing shared by kaldi::spectrogram, fbank and mfcc: torchaudio's
// _get_waveform_and_window_properties, _get_strided, _feature_window_function
// and _get_window, op for op.
#include <cstdint>
#include <string>

#include <ember/ember.h>

namespace ember::audio::kaldi::detail {

// What the three features share of their options.
struct FrameSettings {
  double blackman_coeff;
  int64_t channel;
  double dither;
  double energy_floor;
  double frame_length;
  double frame_shift;
  double min_duration;
  double preemphasis_coefficient;
  bool raw_energy;
  bool remove_dc_offset;
  bool round_to_power_of_two;
  double sample_frequency;
  bool snip_edges;
  std::string window_type;
};

struct Frames {
  Tensor waveform;              // the selected channel [n]
  int64_t window_shift = 0;     // samples
  int64_t window_size = 0;      // samples
  int64_t padded_window_size = 0;
  bool too_short = false;       // shorter than min_duration: the feature is empty
  Tensor strided;               // [m, padded_window_size], processed frames
  Tensor signal_log_energy;     // [m]
};

// Checks the waveform and settings (errors name `fn`), selects the channel
// and, unless it is shorter than min_duration, frames, dithers, removes the
// DC offset, pre-emphasizes, windows and zero-pads it, with its log energy.
Frames make_frames(const char* fn, const Tensor& waveform, const FrameSettings& s);

// float32 epsilon (Kaldi's floor on log arguments) as a 0-dim tensor of dtype.
Tensor epsilon_like(const Tensor& t);

// Subtracts each column's mean when subtract_mean.
Tensor subtract_column_mean(const Tensor& t, bool subtract_mean);

}  // namespace ember::audio::kaldi::detail
