// melscale_fbanks and linear_fbanks, as torchaudio 0.13's functional.py (float32, as torchaudio builds it).
#include <cmath>

#include <ember/audio/functional.h>

namespace ember::audio::functional {
namespace {

constexpr double kSlaneyFSp = 200.0 / 3;     // Hz per mel below 1 kHz
constexpr double kSlaneyMinLogHz = 1000.0;   // where the log part starts
const double kSlaneyLogStep = std::log(6.4) / 27.0;

double hz_to_mel(double freq, const std::string& scale) {
  if (scale == "htk") return 2595.0 * std::log10(1.0 + freq / 700.0);
  const double min_log_mel = kSlaneyMinLogHz / kSlaneyFSp;
  if (freq >= kSlaneyMinLogHz) return min_log_mel + std::log(freq / kSlaneyMinLogHz) / kSlaneyLogStep;
  return freq / kSlaneyFSp;
}

Tensor mel_to_hz(const Tensor& mels, const std::string& scale) {
  if (scale == "htk") return (ember::pow(10.0, mels / 2595.0) - 1.0) * 700.0;
  const double min_log_mel = kSlaneyMinLogHz / kSlaneyFSp;
  const Tensor linear = mels * kSlaneyFSp;
  const Tensor logarithmic = ((mels - min_log_mel) * kSlaneyLogStep).exp() * kSlaneyMinLogHz;
  return where(mels >= min_log_mel, logarithmic, linear);
}

// Triangular filters between consecutive f_pts, sampled at all_freqs
// (librosa's construction, as torchaudio adopts it): [n_freqs, n_filter].
Tensor triangular_filterbank(const Tensor& all_freqs, const Tensor& f_pts) {
  const int64_t n_filter = f_pts.size(0) - 2;
  const Tensor f_diff = f_pts.narrow(0, 1, n_filter + 1) - f_pts.narrow(0, 0, n_filter + 1);
  const Tensor slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1);  // [n_freqs, n_filter + 2]
  const Tensor down = (slopes.narrow(1, 0, n_filter) * -1.0) / f_diff.narrow(0, 0, n_filter);
  const Tensor up = slopes.narrow(1, 2, n_filter) / f_diff.narrow(0, 1, n_filter);
  return down.minimum(up).clamp_min(0.0);
}

}  // namespace

Tensor melscale_fbanks(int64_t n_freqs, double f_min, double f_max, int64_t n_mels, int64_t sample_rate,
                       std::optional<std::string> norm, const std::string& mel_scale) {
  EMBER_CHECK(!norm || *norm == "slaney", "melscale_fbanks: norm must be \"slaney\" or none, got \"",
              norm.value_or(""), "\"");
  EMBER_CHECK(mel_scale == "htk" || mel_scale == "slaney",
              "melscale_fbanks: mel_scale must be \"htk\" or \"slaney\", got \"", mel_scale, "\"");
  EMBER_CHECK(n_freqs > 0 && n_mels > 0 && sample_rate > 0,
              "melscale_fbanks: n_freqs, n_mels and sample_rate must be positive, got ", n_freqs, ", ", n_mels,
              ", ", sample_rate);
  const auto f32 = TensorOptions().dtype(kFloat32);
  const Tensor all_freqs = linspace(0, sample_rate / 2, n_freqs, f32);
  const Tensor m_pts = linspace(hz_to_mel(f_min, mel_scale), hz_to_mel(f_max, mel_scale), n_mels + 2, f32);
  const Tensor f_pts = mel_to_hz(m_pts, mel_scale);
  Tensor fb = triangular_filterbank(all_freqs, f_pts);
  if (norm) fb = fb * (2.0 / (f_pts.narrow(0, 2, n_mels) - f_pts.narrow(0, 0, n_mels))).unsqueeze(0);
  if ((fb.amax({0}) == 0.0).any().item<bool>()) {
    EMBER_WARN("melscale_fbanks: At least one mel filterbank has all zero values. The value for `n_mels` (", n_mels,
               ") may be set too high. Or, the value for `n_freqs` (", n_freqs, ") may be set too low.");
  }
  return fb;
}

Tensor linear_fbanks(int64_t n_freqs, double f_min, double f_max, int64_t n_filter, int64_t sample_rate) {
  EMBER_CHECK(n_freqs > 0 && n_filter > 0 && sample_rate > 0,
              "linear_fbanks: n_freqs, n_filter and sample_rate must be positive, got ", n_freqs, ", ", n_filter,
              ", ", sample_rate);
  const auto f32 = TensorOptions().dtype(kFloat32);
  return triangular_filterbank(linspace(0, sample_rate / 2, n_freqs, f32), linspace(f_min, f_max, n_filter + 2, f32));
}

}  // namespace ember::audio::functional
