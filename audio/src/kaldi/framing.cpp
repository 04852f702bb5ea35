// Kaldi framing and windowing, as torchaudio 0.13's compliance/kaldi.py (framing.h).
#include "framing.h"

#include "frame_kernel.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace ember::audio::kaldi::detail {
namespace {

int64_t next_power_of_2(int64_t x) {
  int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

// The samples frames are cut from, and their count m: frame i is
// source[i * window_shift, i * window_shift + window_size). snip_edges: the
// frames that fit; otherwise (n + shift / 2) / shift frames over the waveform
// reflected at both ends (sample order [2, 1, 0, 0, 1, 2] at the start, as Kaldi's).
Tensor frame_source(const Tensor& waveform, int64_t window_size, int64_t window_shift, bool snip_edges,
                    int64_t& m) {
  const int64_t n = waveform.size(0);
  if (snip_edges) {
    m = 1 + (n - window_size) / window_shift;
    return waveform.contiguous();
  }
  const Tensor reversed = waveform.flip({0});
  m = (n + window_shift / 2) / window_shift;
  const int64_t pad = window_size / 2 - window_shift / 2;
  if (pad > 0) return cat({reversed.narrow(0, n - pad, pad), waveform, reversed});
  return cat({waveform.narrow(0, -pad, n + pad), reversed});
}

Tensor feature_window(const std::string& type, int64_t size, double blackman_coeff, const TensorOptions& options) {
  if (type == "hanning") return hann_window(size, false, options);
  if (type == "hamming") return hamming_window(size, false, 0.54, 0.46, options);
  if (type == "povey") return hann_window(size, false, options).pow(0.85);
  if (type == "rectangular") return ones({size}, options);
  // blackman (checked by make_frames): Kaldi's generalized form, not torch.blackman_window.
  const double a = 2 * std::numbers::pi / static_cast<double>(size - 1);
  const Tensor n = arange(size, options);
  return blackman_coeff - (n * a).cos() * 0.5 + (n * (2 * a)).cos() * (0.5 - blackman_coeff);
}

}  // namespace

Tensor epsilon_like(const Tensor& t) {
  return scalar_tensor(static_cast<double>(std::numeric_limits<float>::epsilon()),
                       TensorOptions(t.dtype()).device(t.device()));
}

Tensor subtract_column_mean(const Tensor& t, bool subtract_mean) {
  if (!subtract_mean) return t;
  return t - t.mean({0}).unsqueeze(0);
}

Frames make_frames(const char* fn, const Tensor& waveform, const FrameSettings& s) {
  EMBER_CHECK(waveform.defined(), fn, ": waveform is undefined");
  EMBER_CHECK(waveform.dtype() == kFloat32 || waveform.dtype() == kFloat64, fn,
              ": expected a float32 or float64 waveform, got ", waveform.dtype());
  EMBER_CHECK(waveform.dim() == 2, fn, ": expected a waveform of shape [channels, time], got ", waveform.sizes());
  const int64_t channel = std::max<int64_t>(s.channel, 0);
  EMBER_CHECK(channel < waveform.size(0), fn, ": invalid channel ", s.channel, " for a waveform of ",
              waveform.size(0), " channels");
  EMBER_CHECK(std::isfinite(s.sample_frequency) && s.sample_frequency > 0, fn,
              ": sample_frequency must be positive, got ", s.sample_frequency);
  EMBER_CHECK(std::isfinite(s.frame_length) && std::isfinite(s.frame_shift), fn,
              ": frame_length and frame_shift must be finite, got ", s.frame_length, " and ", s.frame_shift);
  EMBER_CHECK(s.preemphasis_coefficient >= 0.0 && s.preemphasis_coefficient <= 1.0, fn,
              ": preemphasis_coefficient must be in [0, 1], got ", s.preemphasis_coefficient);
  EMBER_CHECK(std::isfinite(s.dither), fn, ": dither must be finite, got ", s.dither);
  EMBER_CHECK(s.energy_floor >= 0.0 && std::isfinite(s.energy_floor), fn,
              ": energy_floor must be non-negative and finite, got ", s.energy_floor);
  EMBER_CHECK(std::isfinite(s.blackman_coeff), fn, ": blackman_coeff must be finite, got ", s.blackman_coeff);
  EMBER_CHECK(s.window_type == "povey" || s.window_type == "hanning" || s.window_type == "hamming" ||
                  s.window_type == "rectangular" || s.window_type == "blackman",
              fn, ": window_type must be povey, hanning, hamming, rectangular or blackman, got \"", s.window_type,
              "\"");

  Frames f;
  f.waveform = waveform[channel];
  const int64_t n = f.waveform.size(0);
  // Python's int() of sample_frequency * frame_shift * 0.001, in that order.
  const double shift = s.sample_frequency * s.frame_shift * 0.001;
  const double size = s.sample_frequency * s.frame_length * 0.001;
  EMBER_CHECK(size >= 2 && size < static_cast<double>(n) + 1, fn, ": choose a window size ", std::trunc(size),
              " (frame_length ", s.frame_length, " ms) that is in [2, ", n, "]");
  EMBER_CHECK(shift >= 1, fn, ": the window shift must be positive, got ", std::trunc(shift),
              " samples (frame_shift ", s.frame_shift, " ms)");
  f.window_shift = static_cast<int64_t>(shift);
  f.window_size = static_cast<int64_t>(size);
  f.padded_window_size = s.round_to_power_of_two ? next_power_of_2(f.window_size) : f.window_size;
  EMBER_CHECK(f.padded_window_size % 2 == 0, fn, ": the padded window size ", f.padded_window_size,
              " must be even; use round_to_power_of_two or change frame_length");
  if (static_cast<double>(n) < s.min_duration * s.sample_frequency) {
    f.too_short = true;
    return f;
  }

  const TensorOptions options = TensorOptions(waveform.dtype()).device(waveform.device());
  const Tensor epsilon = epsilon_like(waveform);
  int64_t m = 0;
  const Tensor source = frame_source(f.waveform, f.window_size, f.window_shift, s.snip_edges, m);
  const Tensor window = feature_window(s.window_type, f.window_size, s.blackman_coeff, options).contiguous();
  const Tensor noise = s.dither != 0.0 ? randn({m, f.window_size}, options) : Tensor();
  auto floor_energy = [&](const Tensor& sum_of_squares) {
    Tensor energy = sum_of_squares.maximum(epsilon).log();
    if (s.energy_floor == 0.0) return energy;
    return energy.maximum(scalar_tensor(std::log(s.energy_floor), options));
  };

  if (waveform.device().is_cpu() && !(is_grad_enabled() && waveform.requires_grad())) {
    Tensor sum_of_squares;
    f.strided = process_frames(source, window, {.frames = m,
                                                .window_size = f.window_size,
                                                .window_shift = f.window_shift,
                                                .padded_window_size = f.padded_window_size,
                                                .noise = noise.defined() ? &noise : nullptr,
                                                .dither = s.dither,
                                                .remove_dc_offset = s.remove_dc_offset,
                                                .preemphasis_coefficient = s.preemphasis_coefficient,
                                                .raw_energy = s.raw_energy},
                               sum_of_squares);
    f.signal_log_energy = floor_energy(sum_of_squares);
    return f;
  }

  // The same steps as tensor ops, which autograd records (and other devices run).
  Tensor x = source.unfold(0, f.window_size, f.window_shift).narrow(0, 0, m);
  if (noise.defined()) x = x + noise * s.dither;
  if (s.remove_dc_offset) x = x - x.mean({1}).unsqueeze(1);
  // x * x: the values of torchaudio's pow(x, 2), faster.
  if (s.raw_energy) f.signal_log_energy = floor_energy((x * x).sum({1}));
  if (s.preemphasis_coefficient != 0.0) {
    // x[i, j] -= coeff * x[i, max(0, j - 1)]
    const Tensor previous = cat({x.narrow(1, 0, 1), x.narrow(1, 0, f.window_size - 1)}, 1);
    x = x - previous * s.preemphasis_coefficient;
  }
  x = x * window.unsqueeze(0);
  if (f.padded_window_size != f.window_size) x = pad(x, {0, f.padded_window_size - f.window_size});
  if (!s.raw_energy) f.signal_log_energy = floor_energy((x * x).sum({1}));
  f.strided = x;
  return f;
}

}  // namespace ember::audio::kaldi::detail
