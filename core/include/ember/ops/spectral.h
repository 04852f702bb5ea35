#pragma once
// Short-time Fourier transform and its inverse, as torch.stft / torch.istft
// (PyTorch 1.13 semantics), differentiable:
//
//   Tensor w = ember::hann_window(400);
//   Tensor spec = ember::stft(audio, 400, {.hop_length = 160, .window = w});  // [201, frames] complex
//   Tensor back = ember::istft(spec, 400, {.hop_length = 160, .window = w, .length = audio.size(-1)});
#include <cstdint>
#include <optional>
#include <string>

#include "ember/core/tensor.h"

namespace ember {

struct StftOptions {
  // Distance between frames; default n_fft / 4.
  std::optional<int64_t> hop_length = std::nullopt;
  // Window size; default n_fft. The window is zero-padded on both sides to n_fft.
  std::optional<int64_t> win_length = std::nullopt;
  // 1-D, win_length entries; undefined means a rectangular window (all ones).
  Tensor window = {};
  // Pads the signal by n_fft / 2 on both sides so frame t is centred at t * hop.
  bool center = true;
  // "reflect", "constant" (zeros), "replicate" or "circular".
  std::string pad_mode = "reflect";
  // Scales the frames' transforms by 1 / sqrt(n_fft).
  bool normalized = false;
  // Keep only the n_fft / 2 + 1 non-negative frequencies. Default: true for a
  // real signal and window; must be false when either is complex.
  std::optional<bool> onesided = std::nullopt;
  // true: a complex [..., freq, frames] result; false: the deprecated real
  // [..., freq, frames, 2] layout (view_as_real of the complex result).
  // PyTorch requires the argument for real inputs; Ember defaults to true.
  bool return_complex = true;
};

// input: [length] or [batch, length], real or complex. Result:
// [batch?, n_freq, n_frames], n_freq = onesided ? n_fft / 2 + 1 : n_fft,
// n_frames = 1 + (padded length - n_fft) / hop_length.
Tensor stft(const Tensor& input, int64_t n_fft, const StftOptions& options = {});

struct IstftOptions {
  std::optional<int64_t> hop_length = std::nullopt;
  std::optional<int64_t> win_length = std::nullopt;
  Tensor window = {};
  // Whether the stft that made the input was centred (its padding is removed).
  bool center = true;
  bool normalized = false;
  // Whether the input is one-sided; default: its frequency count != n_fft.
  std::optional<bool> onesided = std::nullopt;
  // Output length: trims, or zero-pads the tail when longer than the overlap-add.
  std::optional<int64_t> length = std::nullopt;
  // true: a complex signal (two-sided input only); false: a real signal.
  bool return_complex = false;
};

// input: complex [n_freq, n_frames] or [batch, n_freq, n_frames]. Inverts stft
// by inverse FFT of each frame, windowing, overlap-add and division by the
// overlap-added squared window, which must be non-zero everywhere in the
// output (the NOLA condition; otherwise an ember::Error).
Tensor istft(const Tensor& input, int64_t n_fft, const IstftOptions& options = {});

}  // namespace ember
