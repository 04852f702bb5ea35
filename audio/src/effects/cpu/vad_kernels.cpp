// CPU kernel of vad_slot (effect_kernels.h): torchaudio 0.13's vad loop and
// its _measure, on raw buffers. torchaudio keeps every buffer of the
// detector in float32 (torch.zeros' default dtype) whatever the waveform's
// dtype, so these do too, with one rounding per tensor op in torchaudio's
// order (compiled without fused multiply-adds, audio/CMakeLists.txt); only
// the FFTs run in double (their results rounded to float32 as torch's float32
// rfft rounds them).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "effects/cpu/radix2_fft.h"
#include "effects/cpu/row_loops.h"
#include "effects/effect_kernels.h"

namespace ember::audio {
namespace {

// torchaudio's _measure: a windowed spectrum of the last measure_len_ws
// samples, smoothed, minus the adaptive noise estimate, then the power of a
// band of its cepstrum.
class Measurer {
 public:
  explicit Measurer(const VadPlan& plan)
      : p_(plan), dft_(plan.dft_len_ws), half_dft_(plan.dft_len_ws / 2),
        buffer_(static_cast<size_t>(plan.dft_len_ws)), cepstrum_(static_cast<size_t>(plan.dft_len_ws / 2)) {}

  double measure(const float* samples, float* spectrum, float* noise, int64_t index_ns, int64_t boot_count) {
    const VadPlan& p = p_;
    for (int64_t j = 0; j < p.dft_len_ws; ++j) {
      float v = 0;
      if (j < p.measure_len_ws)
        v = samples[(index_ns + j) % p.samples_len_ns] * p.spectrum_window[static_cast<size_t>(j)];
      buffer_[static_cast<size_t>(j)] = {static_cast<double>(v), 0.0};
    }
    dft_.forward(buffer_);

    const double mult = boot_count >= 0 ? static_cast<double>(boot_count) / (1.0 + static_cast<double>(boot_count))
                                        : p.measure_smooth_time_mult;
    const auto mult_f = static_cast<float>(mult), keep_f = static_cast<float>(1 - mult);
    const auto up = static_cast<float>(p.noise_up_time_mult), down = static_cast<float>(p.noise_down_time_mult);
    const auto reduction = static_cast<float>(p.noise_reduction_amount);
    std::fill(cepstrum_.begin(), cepstrum_.end(), std::complex<double>(0.0, 0.0));
    for (int64_t k = p.spectrum_start; k < p.spectrum_end; ++k) {
      const auto magnitude = static_cast<float>(std::abs(buffer_[static_cast<size_t>(k)]));
      spectrum[k] = spectrum[k] * mult_f;
      spectrum[k] = spectrum[k] + magnitude * keep_f;
      const float power = spectrum[k] * spectrum[k];
      const float noise_mult = boot_count >= 0 ? 0.0f : (power > noise[k] ? up : down);
      noise[k] = noise[k] * noise_mult;
      noise[k] = noise[k] + power * (1.0f - noise_mult);
      const float cleaned = std::sqrt(std::max(0.0f, power - reduction * noise[k]));
      const float windowed = cleaned * p.cepstrum_window[static_cast<size_t>(k - p.spectrum_start)];
      cepstrum_[static_cast<size_t>(k)] = {static_cast<double>(windowed), 0.0};
    }
    half_dft_.forward(cepstrum_);

    double total = 0;
    for (int64_t k = p.cepstrum_start; k < p.cepstrum_end; ++k) {
      const auto magnitude = static_cast<float>(std::abs(cepstrum_[static_cast<size_t>(k)]));
      total += static_cast<double>(magnitude * magnitude);
    }
    const double result = total > 0 ? std::log(total / static_cast<double>(p.cepstrum_end - p.cepstrum_start))
                                    : -std::numeric_limits<double>::infinity();
    return std::max(0.0, 21 + result);
  }

 private:
  const VadPlan& p_;
  effects::cpu::Radix2Fft dft_, half_dft_;
  std::vector<std::complex<double>> buffer_, cepstrum_;
};

template <class T>
int64_t vad_loop(const T* waveform, int64_t n_channels, int64_t ilen, const VadPlan& p) {
  const int64_t samples_len = p.samples_len_ns, n_measures = p.measures_len;
  std::vector<float> samples(static_cast<size_t>(n_channels * samples_len), 0.0f);
  const auto channel_samples = [&](int64_t i) { return samples.data() + i * samples_len; };
  std::vector<float> spectrum(static_cast<size_t>(n_channels * p.dft_len_ws), 0.0f);
  std::vector<float> noise(spectrum.size(), 0.0f);
  std::vector<float> measures(static_cast<size_t>(n_channels * n_measures), 0.0f);
  std::vector<float> mean_meas(static_cast<size_t>(n_channels), 0.0f);
  Measurer measurer(p);
  const auto trigger_level = static_cast<float>(p.trigger_level);
  const auto trigger_mult = static_cast<float>(p.trigger_meas_time_mult);

  int64_t measure_timer_ns = p.measure_len_ns;
  int64_t boot_count = 0, measures_index = 0, flushed_len_ns = 0, samples_index_ns = 0;
  bool has_triggered = false;
  int64_t num_measures_to_flush = 0;
  int64_t pos = 0;
  while (pos < ilen && !has_triggered) {
    measure_timer_ns -= 1;
    for (int64_t i = 0; i < n_channels; ++i) {
      samples[static_cast<size_t>(i * samples_len + samples_index_ns)] = static_cast<float>(waveform[i * ilen + pos]);
      if (measure_timer_ns != 0) continue;
      const int64_t index_ns = (samples_index_ns + samples_len - p.measure_len_ns) % samples_len;
      const double meas = measurer.measure(channel_samples(i), spectrum.data() + i * p.dft_len_ws,
                                           noise.data() + i * p.dft_len_ws, index_ns, boot_count);
      float* channel_measures = measures.data() + i * n_measures;
      channel_measures[measures_index] = static_cast<float>(meas);
      float& mean = mean_meas[static_cast<size_t>(i)];
      mean = mean * trigger_mult + static_cast<float>(meas * (1.0 - p.trigger_meas_time_mult));
      has_triggered = has_triggered || mean >= trigger_level;
      if (!has_triggered) continue;
      // Walk back over the measures: the earliest one above the trigger
      // level within allowed gaps of the next, stopping at a silent one.
      int64_t k = measures_index, j_trigger = n_measures, j_zero = n_measures;
      for (int64_t j = 0; j < n_measures; ++j) {
        if (channel_measures[k] >= trigger_level && j <= j_trigger + p.gap_len) {
          j_zero = j_trigger = j;
        } else if (channel_measures[k] == 0 && j_trigger >= j_zero) {
          j_zero = j;
        }
        k = (k + n_measures - 1) % n_measures;
      }
      // torchaudio's `j` is its Python loop variable: n - 1 after the loop.
      const int64_t j = std::min(n_measures - 1, j_zero);
      num_measures_to_flush = std::min(std::max(num_measures_to_flush, j), n_measures);
    }
    samples_index_ns += 1;
    pos += 1;
    if (samples_index_ns == samples_len) samples_index_ns = 0;
    if (measure_timer_ns == 0) {
      measure_timer_ns = p.measure_period_ns;
      measures_index = (measures_index + 1) % n_measures;
      if (boot_count >= 0) boot_count = boot_count == p.boot_count_max ? -1 : boot_count + 1;
    }
    if (has_triggered) {
      flushed_len_ns = (n_measures - num_measures_to_flush) * p.measure_period_ns;
      samples_index_ns = (samples_index_ns + flushed_len_ns) % samples_len;
    }
  }
  return pos - samples_len + flushed_len_ns;
}

int64_t vad_kernel(const Tensor& waveform, const VadPlan& plan) {
  return effects::cpu::dispatch_float(waveform.dtype(), "vad", [&](auto tag) {
    using T = decltype(tag);
    return vad_loop<T>(waveform.data_ptr<T>(), waveform.size(0), waveform.size(1), plan);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(vad_slot, CPU, vad_kernel, kMaskFloat);

}  // namespace ember::audio
