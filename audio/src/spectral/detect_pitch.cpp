// detect_pitch_frequency, as torchaudio 0.13's functional.py: normalized
// cross-correlation (NCCF) per frame and lag, the best lag per frame (preferring
// the first half of the lags when nearly as good), median smoothing, lag -> Hz.
#include <cmath>

#include <ember/audio/functional/spectral.h>
#include <ember/ember.h>

namespace ember::audio::functional {
namespace {

constexpr double kEpsilon = 1e-9;

// (eps + sqrt(energy))^2: torchaudio's (EPSILON + torch.norm(frame)).pow(2).
Tensor padded_energy(const Tensor& energy) {
  const Tensor norm = energy.sqrt() + kEpsilon;
  return norm * norm;
}

// Note [NCCF energies]
// torchaudio loops over the lags and takes, per lag, the sum of products and
// the norms of both operands (frames of the signal shifted by the lag). The
// loop here keeps only the sum of products per lag. The energies of all the
// shifted frames come at once from one prefix sum per frame over the
// frame_size + lags samples the shifted frames cover, in float64: for lag m,
// E(m) = C(m + frame_size) - C(m). A prefix sum spans a few hundred samples, so
// its rounding is that of the local loudness (relative 1e-13 of it in float64),
// far below float32's rounding in torchaudio's own norms; the lag choice and
// the Hz values match torchaudio (tests/audio/test_spectral_features.cpp).

// NCCF [batch, frames, lags] of waveform [batch, time]: for lag m = 1..lags,
// sum(w(n) w(n + m)) / (eps + |frame|)^2 / (eps + |frame shifted by m|)^2.
Tensor compute_nccf(const Tensor& waveform, int64_t sample_rate, double frame_time, int64_t freq_low) {
  const auto lags = static_cast<int64_t>(std::ceil(static_cast<double>(sample_rate) / freq_low));
  const auto frame_size = static_cast<int64_t>(std::ceil(sample_rate * frame_time));
  const int64_t length = waveform.size(-1);
  const int64_t num_frames = (length + frame_size - 1) / frame_size;
  const Tensor padded = ember::pad(waveform, {0, lags + num_frames * frame_size - length});

  // Energies of the frames shifted by 0 .. lags (Note [NCCF energies]).
  const Tensor spans = padded.unfold(-1, frame_size + lags, frame_size).to(kFloat64);  // [batch, frames, fs + lags]
  const Tensor prefix = cat({zeros({spans.size(0), num_frames, 1}, spans.options()), (spans * spans).cumsum(-1)}, -1);
  const Tensor energies =
      padded_energy(prefix.narrow(-1, frame_size, lags + 1) - prefix.narrow(-1, 0, lags + 1)).to(waveform.dtype());

  // Every lag's first operand is the same frames of the unshifted signal.
  const Tensor s1 = padded.narrow(-1, 0, num_frames * frame_size).unfold(-1, frame_size, frame_size);
  std::vector<Tensor> products;
  products.reserve(lags);
  for (int64_t lag = 1; lag <= lags; ++lag) {
    const Tensor s2 = padded.narrow(-1, lag, num_frames * frame_size).unfold(-1, frame_size, frame_size);
    products.push_back((s1 * s2).sum({-1}));
  }
  return stack(products, -1) / energies.narrow(-1, 0, 1) / energies.narrow(-1, 1, lags);
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
