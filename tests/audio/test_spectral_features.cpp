// ember/audio/functional/spectral.h, feature part (detect_pitch_frequency,
// compute_deltas, sliding_window_cmn, mask_along_axis(_iid)) and the all-zero
// filter warning of melscale_fbanks, against torchaudio 0.13 (fixtures:
// scripts/fixtures/audio_spectral.py).
#include <gtest/gtest.h>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "spectral/masking.h"
#include "spectral_testing.h"

namespace spectral_features_test {

using namespace ember;
using namespace spectral_testing;
namespace AF = ember::audio::functional;
using autograd::variable_list;

TEST(AudioDetectPitch, MatchesTorchaudioOnSpeech) {
  // 0.6 s of codec2's hts1a.wav (a male voice, 8 kHz).
  const Tensor speech = fixture("speech_8k").to(kFloat64);
  const Tensor pitch = AF::detect_pitch_frequency(speech, 8000);
  EXPECT_EQ(pitch.dtype(), kFloat32);
  expect_close(pitch, fixture("detect_pitch__speech"), 1e-3);
  expect_close(AF::detect_pitch_frequency(speech, 8000, 1e-2, 9), fixture("detect_pitch__speech_win9"), 1e-3);
}

TEST(AudioDetectPitch, MatchesTorchaudioOnBatchedTones) {
  const Tensor tones = fixture("tones_16k").to(kFloat64);  // [3, 1, 1600]: 150, 220, 440 Hz
  const Tensor pitch = AF::detect_pitch_frequency(tones, 16000, 0.01, 5, 100, 1000);
  expect_close(pitch, fixture("detect_pitch__tones"), 1e-3);
  EXPECT_NEAR(pitch[0][0].median().item<double>(), 150.0, 2.0);
  EXPECT_NEAR(pitch[1][0].median().item<double>(), 220.0, 4.0);
  // (The 440 Hz tone comes out an octave low, 219 Hz, in torchaudio too: its
  // period is 36.4 samples, and the integer lag near two periods correlates
  // better than the one near one period.)
}

TEST(AudioDetectPitch, Float32FollowsFloat64) {
  const Tensor tones = fixture("tones_16k");
  const Tensor pitch = AF::detect_pitch_frequency(tones, 16000, 0.01, 5, 100, 1000);
  EXPECT_EQ(pitch.dtype(), kFloat32);
  expect_close(pitch, fixture("detect_pitch__tones"), 1e-3);
}

TEST(AudioComputeDeltas, MatchesTorchaudio) {
  const Tensor spec = fixture("deltas_spec");  // [2, 1, 7, 30]
  expect_close(AF::compute_deltas(spec), fixture("compute_deltas__default"), 1e-12);
  expect_close(AF::compute_deltas(spec, 4, "constant"), fixture("compute_deltas__win4_constant"), 1e-12);
  expect_close(AF::compute_deltas(spec, 9, "reflect"), fixture("compute_deltas__win9_reflect"), 1e-12);
  // Non-contiguous input (time-major storage).
  const Tensor strided = spec.transpose(-1, -2).contiguous().transpose(-1, -2);
  EXPECT_FALSE(strided.is_contiguous());
  expect_close(AF::compute_deltas(strided), fixture("compute_deltas__default"), 1e-12);
  const Tensor f32 = AF::compute_deltas(spec.to(kFloat32)[1][0]);
  EXPECT_EQ(f32.dtype(), kFloat32);
  expect_close(f32, fixture("compute_deltas__default").to(kFloat32)[1][0], 1e-5);
}

TEST(AudioSlidingWindowCmn, MatchesTorchaudio) {
  const Tensor feats = fixture("cmn_feats");  // [2, 1, 40 frames, 5 feats]
  expect_close(AF::sliding_window_cmn(feats), fixture("sliding_window_cmn__default"), 1e-10);
  expect_close(AF::sliding_window_cmn(feats, 10, 4), fixture("sliding_window_cmn__left"), 1e-10);
  expect_close(AF::sliding_window_cmn(feats, 10, 1, false, true), fixture("sliding_window_cmn__left_vars"), 1e-10);
  expect_close(AF::sliding_window_cmn(feats, 9, 100, true, true), fixture("sliding_window_cmn__center_vars"), 1e-10);
  expect_close(AF::sliding_window_cmn(feats[0][0], 12, 50, false, true), fixture("sliding_window_cmn__2d"), 1e-10);
  const Tensor strided = feats.transpose(-1, -2).contiguous().transpose(-1, -2);
  expect_close(AF::sliding_window_cmn(strided, 10, 4), fixture("sliding_window_cmn__left"), 1e-10);
  const Tensor f32 = AF::sliding_window_cmn(feats.to(kFloat32), 10, 1, false, true);
  EXPECT_EQ(f32.dtype(), kFloat32);
  expect_close(f32, fixture("sliding_window_cmn__left_vars").to(kFloat32), 1e-5);
}

TEST(AudioSpectralFeatures, Gradcheck) {
  manual_seed(5);
  const Tensor spec = randn({2, 3, 12}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const variable_list& in) { return variable_list{AF::compute_deltas(in[0], 5, "replicate")}; }, {spec}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const variable_list& in) { return variable_list{AF::compute_deltas(in[0], 7, "reflect")}; }, {spec}));
  const Tensor feats = randn({2, 15, 3}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const variable_list& in) { return variable_list{AF::sliding_window_cmn(in[0], 6, 3)}; }, {feats}));
  // min_cmn_window 1: the first frame's window holds one frame and is zeroed.
  EXPECT_TRUE(autograd::gradcheck(
      [](const variable_list& in) { return variable_list{AF::sliding_window_cmn(in[0], 6, 1, false, true)}; },
      {feats}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const variable_list& in) { return variable_list{AF::sliding_window_cmn(in[0], 5, 1, true, true)}; },
      {feats}));
}

TEST(AudioMasking, MatchesTorchaudioGivenTheSameDraws) {
  const Tensor specs = fixture("mask_specs");  // [2, 3, 10, 12]
  expect_close(AF::detail::mask_along_axis_iid_drawn(specs, 6, -1.5, 3, fixture("mask_iid__time__value"),
                                                     fixture("mask_iid__time__start")),
               fixture("mask_iid__time"), 0.0);
  // p = 0.5 limits mask_param 8 to floor(10 * 0.5) = 5.
  expect_close(AF::detail::mask_along_axis_iid_drawn(specs, 5, 0.25, 2, fixture("mask_iid__freq_p__value"),
                                                     fixture("mask_iid__freq_p__start")),
               fixture("mask_iid__freq_p"), 0.0);
  expect_close(AF::detail::mask_along_axis_drawn(specs, 7, 2.0, 1, fixture("mask__freq__value"),
                                                 fixture("mask__freq__start")),
               fixture("mask__freq"), 0.0);
  expect_close(AF::detail::mask_along_axis_drawn(specs, 9, 2.0, 2, fixture("mask__time__value"),
                                                 fixture("mask__time__start")),
               fixture("mask__time"), 0.0);
}

// The time columns (or frequency rows) of a [freq, time] item that differ
// between `masked` and `original`, as [first, last + 1).
std::pair<int64_t, int64_t> masked_band(const Tensor& masked, const Tensor& original, bool time_axis) {
  const Tensor changed = (masked != original).any(time_axis ? 0 : 1);
  const Tensor where_changed = changed.nonzero();
  if (where_changed.numel() == 0) return {0, 0};
  return {where_changed.min().item<int64_t>(), where_changed.max().item<int64_t>() + 1};
}

TEST(AudioMasking, IidDrawsOneBandPerItemFromTheDefaultGenerator) {
  const Tensor specs = fixture("mask_specs") + 10.0;  // no entry equals the mask value
  manual_seed(21);
  const Tensor masked = AF::mask_along_axis_iid(specs, 6, -1.0, 3);
  manual_seed(21);
  EXPECT_TRUE(AF::mask_along_axis_iid(specs, 6, -1.0, 3).equal(masked));
  int64_t masked_items = 0;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t c = 0; c < 3; ++c) {
      const auto [first, last] = masked_band(masked[b][c], specs[b][c], true);
      EXPECT_LT(last - first, 6);
      if (last > first) ++masked_items;
      // Inside the band: the mask value on every row; outside: untouched.
      const Tensor band = masked[b][c].narrow(1, first, last - first);  // [freq, band]
      EXPECT_TRUE((band == -1.0).all().item<bool>());
    }
  }
  EXPECT_GT(masked_items, 0);
  EXPECT_TRUE(AF::mask_along_axis_iid(specs, 6, -1.0, 3, 0.0).equal(specs));  // p = 0: nothing to mask
}

TEST(AudioMasking, SharedBandForEveryItem) {
  const Tensor specs = fixture("mask_specs") + 10.0;
  manual_seed(9);
  const Tensor masked = AF::mask_along_axis(specs, 9, 0.0, 2);
  const auto [first, last] = masked_band(masked[0][0], specs[0][0], true);
  EXPECT_GT(last, first);
  EXPECT_LT(last - first, 9);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t c = 0; c < 3; ++c) {
      EXPECT_TRUE((masked[b][c].narrow(1, first, last - first) == 0.0).all().item<bool>());
      EXPECT_EQ(masked_band(masked[b][c], specs[b][c], true), std::make_pair(first, last));
    }
  }
  // Empty input: nothing to mask.
  EXPECT_EQ(AF::mask_along_axis(zeros({2, 0, 5}), 3, 0.0, 1).numel(), 0);
  EXPECT_EQ(AF::mask_along_axis_iid(zeros({0, 2, 4, 5}), 3, 0.0, 3).numel(), 0);
  // A 2-D [freq, time] spectrogram, frequency masking, float32.
  manual_seed(2);
  const Tensor one = AF::mask_along_axis(specs[0][0].to(kFloat32), 7, 0.0, 1);
  EXPECT_EQ(one.sizes().vec(), (std::vector<int64_t>{10, 12}));
  EXPECT_EQ(one.dtype(), kFloat32);
}

TEST(AudioMelscaleFbanks, WarnsWhenAFilterIsAllZero) {
  {
    WarningCapture capture;
    AF::melscale_fbanks(201, 0.0, 8000.0, 40, 16000);
    EXPECT_TRUE(capture.messages().empty());
  }
  WarningCapture capture;
  const Tensor fb = AF::melscale_fbanks(10, 0.0, 8000.0, 40, 16000);
  EXPECT_EQ(fb.sizes().vec(), (std::vector<int64_t>{10, 40}));
  ASSERT_EQ(capture.messages().size(), 1u);
  const std::string& message = capture.messages()[0];
  EXPECT_NE(message.find("all zero values"), std::string::npos) << message;
  EXPECT_NE(message.find("`n_mels` (40)"), std::string::npos) << message;
  EXPECT_NE(message.find("`n_freqs` (10)"), std::string::npos) << message;
}

TEST(AudioSpectralFeatures, BadArgumentsRaise) {
  const Tensor speech = fixture("speech_8k");
  expect_error([&] { AF::detect_pitch_frequency(speech, 0); }, {"detect_pitch_frequency", "sample_rate", "0"});
  expect_error([&] { AF::detect_pitch_frequency(speech, 8000, 1e-2, 30, 85, 100); },
               {"detect_pitch_frequency", "freq_high = 100"});
  expect_error([&] { AF::detect_pitch_frequency(speech, 8000, -1.0); }, {"detect_pitch_frequency", "frame_time"});
  expect_error([&] { AF::detect_pitch_frequency(speech.narrow(-1, 0, 100), 8000); },
               {"detect_pitch_frequency", "win_length = 30"});
  expect_error([&] { AF::detect_pitch_frequency(speech.to(kInt32), 8000); }, {"detect_pitch_frequency", "floating"});
  const Tensor spec = fixture("deltas_spec");
  expect_error([&] { AF::compute_deltas(spec, 2); }, {"compute_deltas", "win_length 2"});
  expect_error([&] { AF::compute_deltas(spec, 5, "mirror"); }, {"compute_deltas", "\"mirror\""});
  expect_error([&] { AF::compute_deltas(spec.narrow(-1, 0, 2), 7, "reflect"); }, {"compute_deltas", "reflect"});
  const Tensor feats = fixture("cmn_feats");
  expect_error([&] { AF::sliding_window_cmn(feats, 0); }, {"sliding_window_cmn", "cmn_window", "0"});
  expect_error([&] { AF::sliding_window_cmn(feats[0][0][0]); }, {"sliding_window_cmn", "[..., time, freq]"});
  const Tensor specs = fixture("mask_specs");
  expect_error([&] { AF::mask_along_axis_iid(specs, 5, 0.0, 1); }, {"mask_along_axis_iid", "axis 1"});
  expect_error([&] { AF::mask_along_axis_iid(specs[0], 5, 0.0, 2); }, {"mask_along_axis_iid", "3 dims"});
  expect_error([&] { AF::mask_along_axis_iid(specs, 5, 0.0, 2, 1.5); }, {"mask_along_axis_iid", "p", "1.5"});
  expect_error([&] { AF::mask_along_axis(specs, 5, 0.0, 3); }, {"mask_along_axis", "axis 3"});
  expect_error([&] { AF::mask_along_axis(specs, -2, 0.0, 2); }, {"mask_along_axis", "mask_param", "-2"});
}

}  // namespace spectral_features_test
