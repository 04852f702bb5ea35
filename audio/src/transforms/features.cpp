// FrequencyMasking, TimeMasking, ComputeDeltas, SlidingWindowCmn, Vad (torchaudio 0.13).
#include "ember/audio/transforms/features.h"

#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "transforms/transform_params.h"

namespace ember::audio::transforms {
namespace F = ember::audio::functional;
using detail::optional_value;

namespace {

// torchaudio's _AxisMasking.forward: axis counts from the spectrogram's
// [channel, freq, time] (1 = freq, 2 = time); a 4-D batch with iid_masks gets
// a band per item (axis + 1 of [batch, channel, freq, time]).
Tensor mask_axis(const Tensor& specgram, int64_t mask_param, double mask_value, int64_t axis, bool iid_masks,
                 double p) {
  if (iid_masks && specgram.dim() == 4) return F::mask_along_axis_iid(specgram, mask_param, mask_value, axis + 1, p);
  return F::mask_along_axis(specgram, mask_param, mask_value, axis, p);
}

}  // namespace

FrequencyMaskingImpl::FrequencyMaskingImpl(int64_t freq_mask_param, bool iid_masks)
    : TransformImpl("FrequencyMasking"), mask_param_(freq_mask_param), iid_masks_(iid_masks) {
  EMBER_CHECK(mask_param_ >= 0, "FrequencyMasking: freq_mask_param must be >= 0, got ", mask_param_);
}

Tensor FrequencyMaskingImpl::forward(const Tensor& specgram, double mask_value) {
  return mask_axis(specgram, mask_param_, mask_value, 1, iid_masks_, 1.0);
}

Params FrequencyMaskingImpl::params() const {
  return {{"freq_mask_param", mask_param_}, {"iid_masks", iid_masks_}};
}

TimeMaskingImpl::TimeMaskingImpl(int64_t time_mask_param, bool iid_masks, double p)
    : TransformImpl("TimeMasking"), mask_param_(time_mask_param), iid_masks_(iid_masks), p_(p) {
  EMBER_CHECK(p >= 0 && p <= 1, "TimeMasking: p must be between 0.0 and 1.0, got ", p);
  EMBER_CHECK(mask_param_ >= 0, "TimeMasking: time_mask_param must be >= 0, got ", mask_param_);
}

Tensor TimeMaskingImpl::forward(const Tensor& specgram, double mask_value) {
  return mask_axis(specgram, mask_param_, mask_value, 2, iid_masks_, p_);
}

Params TimeMaskingImpl::params() const {
  return {{"time_mask_param", mask_param_}, {"iid_masks", iid_masks_}, {"p", p_}};
}

ComputeDeltasImpl::ComputeDeltasImpl(int64_t win_length, std::string mode)
    : TransformImpl("ComputeDeltas"), win_length_(win_length), mode_(std::move(mode)) {
  EMBER_CHECK(win_length_ >= 3, "ComputeDeltas: win_length must be >= 3, got ", win_length_);
}

Tensor ComputeDeltasImpl::forward(const Tensor& specgram) { return F::compute_deltas(specgram, win_length_, mode_); }

SlidingWindowCmnImpl::SlidingWindowCmnImpl(Options options) : TransformImpl("SlidingWindowCmn"), options_(options) {}

Tensor SlidingWindowCmnImpl::forward(const Tensor& specgram) {
  return F::sliding_window_cmn(specgram, options_.cmn_window, options_.min_cmn_window, options_.center,
                               options_.norm_vars);
}

Params SlidingWindowCmnImpl::params() const {
  return {{"cmn_window", options_.cmn_window},
          {"min_cmn_window", options_.min_cmn_window},
          {"center", options_.center},
          {"norm_vars", options_.norm_vars}};
}

VadImpl::VadImpl(Options options) : TransformImpl("Vad"), options_(options) {
  EMBER_CHECK(options_.sample_rate > 0, "Vad: sample_rate must be positive, got ", options_.sample_rate);
}

Tensor VadImpl::forward(const Tensor& waveform) {
  const Options& o = options_;
  return F::vad(waveform, o.sample_rate, o.trigger_level, o.trigger_time, o.search_time, o.allowed_gap,
                o.pre_trigger_time, o.boot_time, o.noise_up_time, o.noise_down_time, o.noise_reduction_amount,
                o.measure_freq, o.measure_duration, o.measure_smooth_time, o.hp_filter_freq, o.lp_filter_freq,
                o.hp_lifter_freq, o.lp_lifter_freq);
}

Params VadImpl::params() const {
  const Options& o = options_;
  return {{"sample_rate", o.sample_rate},
          {"trigger_level", o.trigger_level},
          {"trigger_time", o.trigger_time},
          {"search_time", o.search_time},
          {"allowed_gap", o.allowed_gap},
          {"pre_trigger_time", o.pre_trigger_time},
          {"boot_time", o.boot_time},
          {"noise_up_time", o.noise_up_time},
          {"noise_down_time", o.noise_down_time},
          {"noise_reduction_amount", o.noise_reduction_amount},
          {"measure_freq", o.measure_freq},
          {"measure_duration", optional_value(o.measure_duration)},
          {"measure_smooth_time", o.measure_smooth_time},
          {"hp_filter_freq", o.hp_filter_freq},
          {"lp_filter_freq", o.lp_filter_freq},
          {"hp_lifter_freq", o.hp_lifter_freq},
          {"lp_lifter_freq", o.lp_lifter_freq}};
}

}  // namespace ember::audio::transforms
