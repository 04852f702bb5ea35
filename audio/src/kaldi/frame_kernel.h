#pragma once
// One pass over each frame for make_frames on the CPU when nothing records a
// gradient: copy (with dither noise), remove the DC offset, take the raw
// energy, pre-emphasize, window, zero-pad and take the windowed energy, where
// the tensor-op form (framing.cpp) makes a full pass over all frames for each
// step. Same arithmetic per element; sums are accumulated in double.
#include <cstdint>

#include <ember/ember.h>

namespace ember::audio::kaldi::detail {

struct FrameKernelArgs {
  int64_t frames = 0;              // m
  int64_t window_size = 0;
  int64_t window_shift = 0;
  int64_t padded_window_size = 0;
  const Tensor* noise = nullptr;   // [m, window_size] standard normal draws, or none
  double dither = 0.0;
  bool remove_dc_offset = true;
  double preemphasis_coefficient = 0.0;
  bool raw_energy = true;
};

// source: contiguous [n'] waveform (already reflected for snip_edges = false),
// frame i starting at i * window_shift; window: contiguous [window_size].
// Returns the frames [m, padded_window_size]; energy gets the sums of squares
// [m] (before pre-emphasis when raw_energy, of the windowed frame otherwise).
Tensor process_frames(const Tensor& source, const Tensor& window, const FrameKernelArgs& args, Tensor& energy);

}  // namespace ember::audio::kaldi::detail
