// Audio's transform family: a factory per torchaudio transform, rebuilding it
// from its params() (children, e.g. MFCC's MelSpectrogram, are rebuilt by
// their parent's constructor, so the saved children are not needed).
#include <ember/transforms/serialize.h>

#include "ember/audio/transforms.h"
#include "transforms/transform_params.h"

namespace ember::audio::transforms {
namespace {

using ::ember::transforms::AddTransform;
using Children = std::vector<::ember::transforms::TransformPtr>;

template <class T>
T get(const Params& p, const std::string& key, const std::string& type) {
  return ::ember::transforms::param<T>(p, key, type);
}

template <class Impl, class Make>
void add_type(const AddTransform& add, const std::string& type, Make make) {
  add(type, [type, make](const Params& p, Children) -> ::ember::transforms::TransformPtr {
    return std::make_shared<Impl>(make(p, type));
  });
}

SpectrogramOptions read_spectrogram(const Params& p, const std::string& type, const std::string& prefix = "") {
  return {.n_fft = get<int64_t>(p, prefix + "n_fft", type),
          .win_length = get<std::optional<int64_t>>(p, prefix + "win_length", type),
          .hop_length = get<std::optional<int64_t>>(p, prefix + "hop_length", type),
          .pad = get<int64_t>(p, prefix + "pad", type),
          .window = detail::read_window_params(p, type),
          .power = get<std::optional<double>>(p, prefix + "power", type),
          .normalized = get<std::string>(p, prefix + "normalized", type),
          .center = get<bool>(p, prefix + "center", type),
          .pad_mode = get<std::string>(p, prefix + "pad_mode", type),
          .onesided = get<bool>(p, prefix + "onesided", type)};
}

MelSpectrogramOptions read_mel_spectrogram(const Params& p, const std::string& type, const std::string& prefix,
                                           int64_t sample_rate) {
  return {.sample_rate = sample_rate,
          .n_fft = get<int64_t>(p, prefix + "n_fft", type),
          .win_length = get<std::optional<int64_t>>(p, prefix + "win_length", type),
          .hop_length = get<std::optional<int64_t>>(p, prefix + "hop_length", type),
          .f_min = get<double>(p, prefix + "f_min", type),
          .f_max = get<std::optional<double>>(p, prefix + "f_max", type),
          .pad = get<int64_t>(p, prefix + "pad", type),
          .n_mels = get<int64_t>(p, prefix + "n_mels", type),
          .window = detail::read_window_params(p, type),
          .power = get<double>(p, prefix + "power", type),
          .normalized = get<bool>(p, prefix + "normalized", type),
          .center = get<bool>(p, prefix + "center", type),
          .pad_mode = get<std::string>(p, prefix + "pad_mode", type),
          .onesided = get<bool>(p, prefix + "onesided", type),
          .norm = get<std::optional<std::string>>(p, prefix + "norm", type),
          .mel_scale = get<std::string>(p, prefix + "mel_scale", type)};
}

void register_spectral(const AddTransform& add) {
  add_type<SpectrogramImpl>(add, "Spectrogram", [](const Params& p, const std::string& t) { return read_spectrogram(p, t); });
  add_type<InverseSpectrogramImpl>(add, "InverseSpectrogram", [](const Params& p, const std::string& t) {
    return InverseSpectrogramOptions{.n_fft = get<int64_t>(p, "n_fft", t),
                                     .win_length = get<std::optional<int64_t>>(p, "win_length", t),
                                     .hop_length = get<std::optional<int64_t>>(p, "hop_length", t),
                                     .pad = get<int64_t>(p, "pad", t),
                                     .window = detail::read_window_params(p, t),
                                     .normalized = get<std::string>(p, "normalized", t),
                                     .center = get<bool>(p, "center", t),
                                     .pad_mode = get<std::string>(p, "pad_mode", t),
                                     .onesided = get<bool>(p, "onesided", t)};
  });
  add_type<GriffinLimImpl>(add, "GriffinLim", [](const Params& p, const std::string& t) {
    return GriffinLimOptions{.n_fft = get<int64_t>(p, "n_fft", t),
                             .n_iter = get<int64_t>(p, "n_iter", t),
                             .win_length = get<std::optional<int64_t>>(p, "win_length", t),
                             .hop_length = get<std::optional<int64_t>>(p, "hop_length", t),
                             .window = detail::read_window_params(p, t),
                             .power = get<double>(p, "power", t),
                             .momentum = get<double>(p, "momentum", t),
                             .length = get<std::optional<int64_t>>(p, "length", t),
                             .rand_init = get<bool>(p, "rand_init", t)};
  });
  add_type<MelScaleImpl>(add, "MelScale", [](const Params& p, const std::string& t) {
    return MelScaleOptions{.n_mels = get<int64_t>(p, "n_mels", t),
                           .sample_rate = get<int64_t>(p, "sample_rate", t),
                           .f_min = get<double>(p, "f_min", t),
                           .f_max = get<std::optional<double>>(p, "f_max", t),
                           .n_stft = get<int64_t>(p, "n_stft", t),
                           .norm = get<std::optional<std::string>>(p, "norm", t),
                           .mel_scale = get<std::string>(p, "mel_scale", t)};
  });
  add_type<InverseMelScaleImpl>(add, "InverseMelScale", [](const Params& p, const std::string& t) {
    return InverseMelScaleOptions{.n_stft = get<int64_t>(p, "n_stft", t),
                                  .n_mels = get<int64_t>(p, "n_mels", t),
                                  .sample_rate = get<int64_t>(p, "sample_rate", t),
                                  .f_min = get<double>(p, "f_min", t),
                                  .f_max = get<std::optional<double>>(p, "f_max", t),
                                  .max_iter = get<int64_t>(p, "max_iter", t),
                                  .tolerance_loss = get<double>(p, "tolerance_loss", t),
                                  .tolerance_change = get<double>(p, "tolerance_change", t),
                                  .lr = get<double>(p, "lr", t),
                                  .momentum = get<double>(p, "momentum", t),
                                  .norm = get<std::optional<std::string>>(p, "norm", t),
                                  .mel_scale = get<std::string>(p, "mel_scale", t)};
  });
  add_type<MelSpectrogramImpl>(add, "MelSpectrogram", [](const Params& p, const std::string& t) {
    return read_mel_spectrogram(p, t, "", get<int64_t>(p, "sample_rate", t));
  });
  add_type<MFCCImpl>(add, "MFCC", [](const Params& p, const std::string& t) {
    const auto rate = get<int64_t>(p, "sample_rate", t);
    return MFCCOptions{.sample_rate = rate,
                       .n_mfcc = get<int64_t>(p, "n_mfcc", t),
                       .dct_type = get<int64_t>(p, "dct_type", t),
                       .norm = get<std::string>(p, "norm", t),
                       .log_mels = get<bool>(p, "log_mels", t),
                       .melkwargs = read_mel_spectrogram(p, t, "mel_", rate)};
  });
  add_type<LFCCImpl>(add, "LFCC", [](const Params& p, const std::string& t) {
    return LFCCOptions{.sample_rate = get<int64_t>(p, "sample_rate", t),
                       .n_filter = get<int64_t>(p, "n_filter", t),
                       .f_min = get<double>(p, "f_min", t),
                       .f_max = get<std::optional<double>>(p, "f_max", t),
                       .n_lfcc = get<int64_t>(p, "n_lfcc", t),
                       .dct_type = get<int64_t>(p, "dct_type", t),
                       .norm = get<std::string>(p, "norm", t),
                       .log_lf = get<bool>(p, "log_lf", t),
                       .speckwargs = read_spectrogram(p, t, "spec_")};
  });
  add_type<SpectralCentroidImpl>(add, "SpectralCentroid", [](const Params& p, const std::string& t) {
    return SpectralCentroidOptions{.sample_rate = get<int64_t>(p, "sample_rate", t),
                                   .n_fft = get<int64_t>(p, "n_fft", t),
                                   .win_length = get<std::optional<int64_t>>(p, "win_length", t),
                                   .hop_length = get<std::optional<int64_t>>(p, "hop_length", t),
                                   .pad = get<int64_t>(p, "pad", t),
                                   .window = detail::read_window_params(p, t)};
  });
}

void register_level(const AddTransform& add) {
  add("AmplitudeToDB", [](const Params& p, Children) {
    return std::make_shared<AmplitudeToDBImpl>(get<std::string>(p, "stype", "AmplitudeToDB"),
                                               get<std::optional<double>>(p, "top_db", "AmplitudeToDB"));
  });
  add("MuLawEncoding", [](const Params& p, Children) {
    return std::make_shared<MuLawEncodingImpl>(get<int64_t>(p, "quantization_channels", "MuLawEncoding"));
  });
  add("MuLawDecoding", [](const Params& p, Children) {
    return std::make_shared<MuLawDecodingImpl>(get<int64_t>(p, "quantization_channels", "MuLawDecoding"));
  });
  add("Vol", [](const Params& p, Children) {
    return std::make_shared<VolImpl>(get<double>(p, "gain", "Vol"), get<std::string>(p, "gain_type", "Vol"));
  });
  add_type<FadeImpl>(add, "Fade", [](const Params& p, const std::string& t) {
    return FadeOptions{get<int64_t>(p, "fade_in_len", t), get<int64_t>(p, "fade_out_len", t),
                       get<std::string>(p, "fade_shape", t)};
  });
}

void register_time(const AddTransform& add) {
  add_type<ResampleImpl>(add, "Resample", [](const Params& p, const std::string& t) {
    return ResampleOptions{.orig_freq = get<int64_t>(p, "orig_freq", t),
                           .new_freq = get<int64_t>(p, "new_freq", t),
                           .resampling_method = get<std::string>(p, "resampling_method", t),
                           .lowpass_filter_width = get<int64_t>(p, "lowpass_filter_width", t),
                           .rolloff = get<double>(p, "rolloff", t),
                           .beta = get<std::optional<double>>(p, "beta", t)};
  });
  add_type<TimeStretchImpl>(add, "TimeStretch", [](const Params& p, const std::string& t) {
    return TimeStretchOptions{.hop_length = get<std::optional<int64_t>>(p, "hop_length", t),
                              .n_freq = get<int64_t>(p, "n_freq", t),
                              .fixed_rate = get<std::optional<double>>(p, "fixed_rate", t)};
  });
  add_type<PitchShiftImpl>(add, "PitchShift", [](const Params& p, const std::string& t) {
    return PitchShiftOptions{.sample_rate = get<int64_t>(p, "sample_rate", t),
                             .n_steps = get<int64_t>(p, "n_steps", t),
                             .bins_per_octave = get<int64_t>(p, "bins_per_octave", t),
                             .n_fft = get<int64_t>(p, "n_fft", t),
                             .win_length = get<std::optional<int64_t>>(p, "win_length", t),
                             .hop_length = get<std::optional<int64_t>>(p, "hop_length", t),
                             .window = detail::read_window_params(p, t)};
  });
  add("SpeedPerturbation", [](const Params& p, Children) {
    return std::make_shared<SpeedPerturbationImpl>(get<int64_t>(p, "orig_freq", "SpeedPerturbation"),
                                                   get<std::vector<double>>(p, "factors", "SpeedPerturbation"));
  });
}

void register_features(const AddTransform& add) {
  add("FrequencyMasking", [](const Params& p, Children) {
    return std::make_shared<FrequencyMaskingImpl>(get<int64_t>(p, "freq_mask_param", "FrequencyMasking"),
                                                  get<bool>(p, "iid_masks", "FrequencyMasking"));
  });
  add("TimeMasking", [](const Params& p, Children) {
    return std::make_shared<TimeMaskingImpl>(get<int64_t>(p, "time_mask_param", "TimeMasking"),
                                             get<bool>(p, "iid_masks", "TimeMasking"), get<double>(p, "p", "TimeMasking"));
  });
  add("ComputeDeltas", [](const Params& p, Children) {
    return std::make_shared<ComputeDeltasImpl>(get<int64_t>(p, "win_length", "ComputeDeltas"),
                                               get<std::string>(p, "mode", "ComputeDeltas"));
  });
  add_type<SlidingWindowCmnImpl>(add, "SlidingWindowCmn", [](const Params& p, const std::string& t) {
    return SlidingWindowCmnOptions{get<int64_t>(p, "cmn_window", t), get<int64_t>(p, "min_cmn_window", t),
                                   get<bool>(p, "center", t), get<bool>(p, "norm_vars", t)};
  });
  add_type<VadImpl>(add, "Vad", [](const Params& p, const std::string& t) {
    return VadOptions{.sample_rate = get<int64_t>(p, "sample_rate", t),
                      .trigger_level = get<double>(p, "trigger_level", t),
                      .trigger_time = get<double>(p, "trigger_time", t),
                      .search_time = get<double>(p, "search_time", t),
                      .allowed_gap = get<double>(p, "allowed_gap", t),
                      .pre_trigger_time = get<double>(p, "pre_trigger_time", t),
                      .boot_time = get<double>(p, "boot_time", t),
                      .noise_up_time = get<double>(p, "noise_up_time", t),
                      .noise_down_time = get<double>(p, "noise_down_time", t),
                      .noise_reduction_amount = get<double>(p, "noise_reduction_amount", t),
                      .measure_freq = get<double>(p, "measure_freq", t),
                      .measure_duration = get<std::optional<double>>(p, "measure_duration", t),
                      .measure_smooth_time = get<double>(p, "measure_smooth_time", t),
                      .hp_filter_freq = get<double>(p, "hp_filter_freq", t),
                      .lp_filter_freq = get<double>(p, "lp_filter_freq", t),
                      .hp_lifter_freq = get<double>(p, "hp_lifter_freq", t),
                      .lp_lifter_freq = get<double>(p, "lp_lifter_freq", t)};
  });
}

}  // namespace

void register_audio_transforms() {
  ::ember::transforms::register_transform_family("audio", [](const AddTransform& add) {
    register_spectral(add);
    register_level(add);
    register_time(add);
    register_features(add);
  });
}

::ember::transforms::TransformPtr from_json(const std::string& text) {
  register_audio_transforms();
  return ::ember::transforms::from_json(text);
}

::ember::transforms::TransformPtr load(const std::string& path) {
  register_audio_transforms();
  return ::ember::transforms::load(path);
}

::ember::transforms::TransformPtr read_transform(const Metadata& metadata, const std::string& key) {
  register_audio_transforms();
  return ::ember::transforms::read_transform(metadata, key);
}

bool is_registered_transform(const std::string& type) {
  register_audio_transforms();
  return ::ember::transforms::is_registered_transform(type);
}

std::vector<std::string> registered_transforms() {
  register_audio_transforms();
  return ::ember::transforms::registered_transforms();
}

}  // namespace ember::audio::transforms
