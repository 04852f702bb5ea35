// vad (torchaudio 0.13's filtering.py, after SoX's vad effect): the op file
// derives the detector's sizes, windows and time constants once (VadPlan) and
// slices the waveform where vad_slot's detector says.
#include <algorithm>
#include <cmath>

#include <ember/audio/functional/effects.h>
#include <ember/core/warning.h>
#include <ember/ops/windows.h>

#include "effects/effect_checks.h"
#include "effects/effect_kernels.h"

namespace ember::audio {

EMBER_DEFINE_SLOT(vad_slot, VadFn, "audio.vad");

namespace {

// scale * hann_window(n) in float32, as torchaudio builds its windows
// (a float32 tensor filled with scale, times torch.hann_window(n, float32)).
std::vector<float> scaled_hann(int64_t n, double scale) {
  const Tensor hann = hann_window(n, true, kFloat32).contiguous();
  const float* h = hann.data_ptr<float>();
  std::vector<float> w(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = static_cast<float>(scale) * h[i];
  return w;
}

}  // namespace

namespace functional {

// Note [vad slicing]
// torchaudio returns waveform[..., pos - samplesLen_ns + flushedLen_ns:], pos
// being where the detector stopped (the end when nothing triggered). That
// start is negative when the detector stops before it has seen samplesLen_ns
// samples, and Python then counts it from the end: -k keeps the last k
// samples, and a start before -T keeps everything. Ember reproduces that
// slice exactly (a silent clip shorter than samplesLen_ns is returned whole;
// a longer silent clip is cut to its last samplesLen_ns samples); the result
// is a view of the input, as torchaudio's.
Tensor vad(const Tensor& waveform, int64_t sample_rate, double trigger_level, double trigger_time,
           double search_time, double allowed_gap, double pre_trigger_time, double boot_time, double noise_up_time,
           double noise_down_time, double noise_reduction_amount, double measure_freq,
           std::optional<double> measure_duration, double measure_smooth_time, double hp_filter_freq,
           double lp_filter_freq, double hp_lifter_freq, double lp_lifter_freq) {
  const char* op = "vad";
  namespace d = audio::effects;
  d::check_waveform(waveform, op);
  if (waveform.dim() > 2)
    EMBER_WARN("vad: expected a waveform of 1 dim (time) or 2 (channel, time), got ", waveform.dim(),
               " dims; all leading dims are treated as channels of one recording, trimmed together");
  EMBER_CHECK(sample_rate > 0, op, ": sample_rate must be positive, got ", sample_rate);
  d::check_finite(trigger_level, op, "trigger_level");
  d::check_positive(trigger_time, op, "trigger_time");
  d::check_positive(search_time, op, "search_time");
  EMBER_CHECK(std::isfinite(allowed_gap) && allowed_gap >= 0, op, ": allowed_gap must be non-negative, got ",
              allowed_gap);
  EMBER_CHECK(std::isfinite(pre_trigger_time) && pre_trigger_time >= 0, op,
              ": pre_trigger_time must be non-negative, got ", pre_trigger_time);
  EMBER_CHECK(std::isfinite(boot_time) && boot_time >= 0, op, ": boot_time must be non-negative, got ", boot_time);
  d::check_positive(noise_up_time, op, "noise_up_time");
  d::check_positive(noise_down_time, op, "noise_down_time");
  d::check_finite(noise_reduction_amount, op, "noise_reduction_amount");
  d::check_positive(measure_freq, op, "measure_freq");
  d::check_positive(measure_smooth_time, op, "measure_smooth_time");
  d::check_finite(hp_filter_freq, op, "hp_filter_freq");
  d::check_finite(lp_filter_freq, op, "lp_filter_freq");
  d::check_positive(hp_lifter_freq, op, "hp_lifter_freq");
  d::check_positive(lp_lifter_freq, op, "lp_lifter_freq");
  const double sr = static_cast<double>(sample_rate);
  const double duration = measure_duration ? *measure_duration : 2.0 / measure_freq;
  d::check_positive(duration, op, "measure_duration");
  // Keep every length an int64 can count and a buffer can hold.
  constexpr double kMaxSamples = 1e9;
  EMBER_CHECK(sr * duration < kMaxSamples && sr / measure_freq < kMaxSamples && search_time * measure_freq < 1e6 &&
                  pre_trigger_time * sr < kMaxSamples && allowed_gap * measure_freq < 1e9 &&
                  boot_time * measure_freq < 1e9,
              op, ": the times and frequencies ask for buffers beyond ", kMaxSamples, " samples");

  VadPlan p;
  p.measure_len_ws = static_cast<int64_t>(sr * duration + 0.5);
  EMBER_CHECK(p.measure_len_ws >= 1, op, ": measure_duration = ", duration, " s is under half a sample at ",
              sample_rate, " Hz");
  p.measure_len_ns = p.measure_len_ws;
  p.dft_len_ws = 16;
  while (p.dft_len_ws < p.measure_len_ws) p.dft_len_ws *= 2;
  p.measure_period_ns = static_cast<int64_t>(sr / measure_freq + 0.5);
  EMBER_CHECK(p.measure_period_ns >= 1, op, ": measure_freq = ", measure_freq, " Hz is above the sample rate ",
              sample_rate);
  p.measures_len = static_cast<int64_t>(std::ceil(search_time * measure_freq));
  const int64_t search_pre_trigger_len_ns = p.measures_len * p.measure_period_ns;
  p.gap_len = static_cast<int64_t>(allowed_gap * measure_freq + 0.5);
  const auto fixed_pre_trigger_len_ns = static_cast<int64_t>(pre_trigger_time * sr + 0.5);
  p.samples_len_ns = fixed_pre_trigger_len_ns + search_pre_trigger_len_ns + p.measure_len_ns;

  const double dft = static_cast<double>(p.dft_len_ws);
  // int(x) of Python, with x clamped first to where the result no longer
  // changes (a bin past the DFT) so that no cast overflows.
  const auto bin = [&](double x) { return static_cast<int64_t>(std::clamp(x, -1.0, dft + 1)); };
  p.spectrum_start = std::max<int64_t>(bin(hp_filter_freq / sr * dft + 0.5), 1);
  p.spectrum_end = std::min<int64_t>(bin(lp_filter_freq / sr * dft + 0.5), p.dft_len_ws / 2);
  EMBER_CHECK(p.spectrum_end > p.spectrum_start, op, ": hp_filter_freq = ", hp_filter_freq,
              " and lp_filter_freq = ", lp_filter_freq, " leave no frequency bin of the ", p.dft_len_ws,
              "-point measurement at ", sample_rate, " Hz");
  p.spectrum_window = scaled_hann(p.measure_len_ws, 2.0 / std::sqrt(static_cast<double>(p.measure_len_ws)));
  const int64_t bins = p.spectrum_end - p.spectrum_start;
  p.cepstrum_window = scaled_hann(bins, 2.0 / std::sqrt(static_cast<double>(p.spectrum_end) - p.spectrum_start));
  p.cepstrum_start = bin(std::ceil(sr * 0.5 / lp_lifter_freq));
  p.cepstrum_end = std::min<int64_t>(bin(std::floor(sr * 0.5 / hp_lifter_freq)), p.dft_len_ws / 4);
  EMBER_CHECK(p.cepstrum_end > p.cepstrum_start, op, ": expected cepstrum_start < cepstrum_end, got ",
              p.cepstrum_start, " and ", p.cepstrum_end, " (hp_lifter_freq = ", hp_lifter_freq,
              ", lp_lifter_freq = ", lp_lifter_freq, ")");

  p.noise_up_time_mult = std::exp(-1.0 / (noise_up_time * measure_freq));
  p.noise_down_time_mult = std::exp(-1.0 / (noise_down_time * measure_freq));
  p.measure_smooth_time_mult = std::exp(-1.0 / (measure_smooth_time * measure_freq));
  p.trigger_meas_time_mult = std::exp(-1.0 / (trigger_time * measure_freq));
  p.boot_count_max = static_cast<int64_t>(boot_time * measure_freq - 0.5);
  p.trigger_level = trigger_level;
  p.noise_reduction_amount = noise_reduction_amount;

  const int64_t time = waveform.size(-1);
  // With no samples the detector never measures: it stops at the end.
  int64_t start = time - p.samples_len_ns;
  if (waveform.numel() > 0) {
    const Tensor channels = waveform.reshape({-1, time}).contiguous();
    start = audio::effects::kernel_for(vad_slot, channels, op)(channels, p);
  }
  if (start < 0) start = std::max<int64_t>(start + time, 0);  // Note [vad slicing]
  return waveform.narrow(-1, start, time - start);
}

}  // namespace functional
}  // namespace ember::audio
