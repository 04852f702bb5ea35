// detect_pitch_frequency, as torchaudio 0.13's functional.py: normalized
// cross-correlation (NCCF) per frame and lag, the best lag per frame (preferring
// the first half of the lags when nearly as good), median smoothing, lag -> Hz.
#include <cmath>

#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

namespace ember::audio::functional {
namespace {

constexpr double kEpsilon = 1e-9;

// NCCF [batch, frames, lags] of waveform [batch, time]: for lag m = 1..lags,
// sum(w(n) w(n + m)) / (eps + |frame|)^2 / (eps + |frame shifted by m|)^2.
Tensor compute_nccf(const Tensor& waveform, int64_t sample_rate, double frame_time, int64_t freq_low) {
  const auto lags = static_cast<int64_t>(std::ceil(static_cast<double>(sample_rate) / freq_low));
  const auto frame_size = static_cast<int64_t>(std::ceil(sample_rate * frame_time));
  const int64_t length = waveform.size(-1);
  const int64_t num_frames = (length + frame_size - 1) / frame_size;
  const Tensor padded = ember::pad(waveform, {0, lags + num_frames * frame_size - length});
  // Every lag's first operand is the same frames of the unshifted signal.
  const Tensor s1 = padded.narrow(-1, 0, num_frames * frame_size).unfold(-1, frame_size, frame_size);
  const Tensor s1_energy = (s1.norm(2, {-1}) + kEpsilon).pow(2);
  std::vector<Tensor> per_lag;
  per_lag.reserve(lags);
  for (int64_t lag = 1; lag <= lags; ++lag) {
    const Tensor s2 = padded.narrow(-1, lag, num_frames * frame_size).unfold(-1, frame_size, frame_size);
    per_lag.push_back(((s1 * s2).sum({-1}) / s1_energy / (s2.norm(2, {-1}) + kEpsilon).pow(2)).unsqueeze(-1));
  }
  return cat(per_lag, -1);
}

// Lag index (1-based, calibrated as torchaudio) of the NCCF maximum per frame;
// a maximum among the first half of the lags wins when within 1% of the best.
Tensor find_max_per_frame(const Tensor& nccf, int64_t lag_min) {
  const int64_t half_size = nccf.size(-1) / 2;
  const auto [best_value, best_index] = nccf.narrow(-1, lag_min, nccf.size(-1) - lag_min).max(-1);
  const auto [half_value, half_index] = nccf.narrow(-1, lag_min, half_size - lag_min).max(-1);
  const Tensor prefer_half = half_value > best_value * 0.99;
  return where(prefer_half, half_index, best_index) + (lag_min + 1);
}

// Median over win_length frames after repeating the first frame (win_length - 1) / 2
// times on the left (torchaudio's centred window, without right padding).
Tensor median_smoothing(const Tensor& indices, int64_t win_length) {
  const int64_t pad_length = (win_length - 1) / 2;
  const Tensor first = indices.narrow(-1, 0, 1).expand({indices.size(0), pad_length});
  return cat({first, indices}, -1).unfold(-1, win_length, 1).median(-1).first;
}

}  // namespace

Tensor detect_pitch_frequency(const Tensor& waveform, int64_t sample_rate, double frame_time, int64_t win_length,
                              int64_t freq_low, int64_t freq_high) {
  constexpr const char* op = "detect_pitch_frequency";
  EMBER_CHECK(waveform.defined() && waveform.dim() >= 1, op, ": expected a waveform [..., time]");
  EMBER_CHECK(waveform.is_floating_point(), op, ": expected a floating-point waveform, got ", waveform.dtype());
  EMBER_CHECK(sample_rate > 0, op, ": sample_rate must be positive, got ", sample_rate);
  EMBER_CHECK(std::isfinite(frame_time) && frame_time > 0, op, ": frame_time must be positive, got ", frame_time);
  EMBER_CHECK(win_length >= 1, op, ": win_length must be at least 1, got ", win_length);
  EMBER_CHECK(freq_low > 0 && freq_high > 0, op, ": freq_low and freq_high must be positive, got ", freq_low, " and ",
              freq_high);
  const auto lags = static_cast<int64_t>(std::ceil(static_cast<double>(sample_rate) / freq_low));
  const auto lag_min = static_cast<int64_t>(std::ceil(static_cast<double>(sample_rate) / freq_high));
  EMBER_CHECK(lag_min < lags / 2, op, ": freq_high = ", freq_high, " Hz leaves no lags below half of the ", lags,
              " lags of freq_low = ", freq_low, " Hz at sample_rate ", sample_rate,
              " (needs ceil(sample_rate / freq_high) < ceil(sample_rate / freq_low) / 2)");
  const int64_t length = waveform.size(-1);
  EMBER_CHECK(length > 0, op, ": the waveform is empty");
  const auto frame_size = static_cast<int64_t>(std::ceil(sample_rate * frame_time));
  const int64_t num_frames = (length + frame_size - 1) / frame_size;
  EMBER_CHECK(num_frames + (win_length - 1) / 2 >= win_length, op, ": ", num_frames, " frames of ", frame_size,
              " samples are too few for median smoothing over win_length = ", win_length, " frames");

  std::vector<int64_t> shape = waveform.sizes().vec();
  const Tensor packed = waveform.reshape({-1, length});
  const Tensor nccf = compute_nccf(packed, sample_rate, frame_time, freq_low);
  const Tensor indices = median_smoothing(find_max_per_frame(nccf, lag_min), win_length);
  // torchaudio: sample_rate / (EPSILON + indices.to(torch.float)), float32.
  const Tensor freq = (indices.to(kFloat32) + kEpsilon).reciprocal() * static_cast<double>(sample_rate);
  shape.back() = freq.size(-1);
  return freq.reshape(shape);
}

}  // namespace ember::audio::functional
