// ember::audio::transforms against torchaudio 0.13's transforms
// (fixtures: scripts/fixtures/audio_transforms.py, float32 on real speech).
#include <gtest/gtest.h>

#include <ember/audio/audio.h>
#include <ember/audio/transforms.h>
#include <ember/ember.h>

#include "npy.h"

namespace test_transforms_test {

using namespace ember;
namespace AT = ember::audio::transforms;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/audio_transforms/" + name + ".npy"));
}

Tensor speech() { return fixture("speech"); }

// |actual - expected| <= atol + rtol |expected|, elementwise.
void expect_close(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  const Tensor a = actual.to(kFloat64), e = expected.to(kFloat64);
  const Tensor excess = (a - e).abs() - (e.abs() * rtol + atol);
  EXPECT_LE(excess.max().item<double>(), 0.0) << "max |diff| " << (a - e).abs().max().item<double>();
}

// The module's state dict equals torchaudio's (names, shapes, values), loaded strictly.
void expect_torchaudio_state(nn::Module& module, const std::string& case_name) {
  const StateDict theirs = serialize::load_torch_state_dict(
      ember::testing::fixture_path("audio/audio_transforms/" + case_name + ".pt"));
  const StateDict ours = module.state_dict();
  ASSERT_EQ(ours.size(), theirs.size()) << case_name;
  for (const auto& [name, tensor] : theirs) {
    ASSERT_TRUE(ours.contains(name)) << case_name << ": no buffer " << name;
    // float32 filter banks round differently by a few ulps (functional tests: 1e-5).
    expect_close(ours.at(name), tensor, 1e-5, 1e-5);
  }
  module.load_state_dict(theirs);  // strict
}

// Saved as JSON and loaded back, the transform gives the same output.
void expect_json_round_trip(const AT::TransformImpl& t, const Tensor& input) {
  const std::string json = AT::to_json(t);
  const auto back = AT::from_json(json);
  EXPECT_EQ(AT::to_json(*back), json);
  auto& original = const_cast<AT::TransformImpl&>(t);
  EXPECT_TRUE(equal(back->forward(input), original.forward(input))) << json;
}

Tensor complex_spec() { return view_as_complex(fixture("complex_spec")); }

TEST(AudioTransforms, SpectrogramMatchesTorchaudio) {
  AT::Spectrogram spec(AT::SpectrogramOptions{.n_fft = 256, .hop_length = 128});
  expect_close(spec(speech()), fixture("spectrogram"), 1e-4, 1e-6);
  expect_torchaudio_state(*spec, "spectrogram");
  AT::Spectrogram hamming(AT::SpectrogramOptions{.n_fft = 256,
                                                 .win_length = 200,
                                                 .hop_length = 100,
                                                 .window = {.fn = "hamming", .periodic = false},
                                                 .power = 1.0,
                                                 .normalized = "window"});
  expect_close(hamming(speech()), fixture("spectrogram_power1_normalized"), 1e-4, 1e-6);
  AT::Spectrogram padded(AT::SpectrogramOptions{
      .n_fft = 128, .hop_length = 32, .pad = 7, .normalized = "frame_length", .pad_mode = "constant"});
  expect_close(padded(speech()), fixture("spectrogram_frame_length_constant"), 1e-4, 1e-6);
  expect_json_round_trip(*hamming, speech());
}

TEST(AudioTransforms, ComplexSpectrogramAndItsInverse) {
  AT::Spectrogram spec(AT::SpectrogramOptions{.n_fft = 128, .hop_length = 64, .power = std::nullopt});
  const Tensor z = spec(speech());
  EXPECT_TRUE(is_complex(z.dtype()));
  expect_close(view_as_real(z), fixture("complex_spec"), 1e-4, 1e-5);
  AT::InverseSpectrogram inverse(AT::InverseSpectrogramOptions{.n_fft = 128, .hop_length = 64});
  expect_close(inverse->forward(complex_spec(), 4000), fixture("inverse_spectrogram"), 1e-4, 1e-5);
  // And the round trip recovers the speech.
  expect_close(inverse->forward(z, 4000), speech(), 0, 1e-5);
}

TEST(AudioTransforms, GriffinLimMatchesTorchaudio) {
  AT::GriffinLim griffin(AT::GriffinLimOptions{
      .n_fft = 128, .n_iter = 8, .hop_length = 64, .length = 4000, .rand_init = false});
  const Tensor power = AT::Spectrogram(AT::SpectrogramOptions{.n_fft = 128, .hop_length = 64})(speech());
  expect_close(griffin(power), fixture("griffinlim"), 1e-3, 1e-4);
  expect_torchaudio_state(*griffin, "griffinlim");
  EXPECT_THROW(AT::GriffinLim(AT::GriffinLimOptions{.momentum = 1.0}), Error);
}

TEST(AudioTransforms, AmplitudeToDBAndMelScaleMatchTorchaudio) {
  const Tensor power = AT::Spectrogram(AT::SpectrogramOptions{.n_fft = 128, .hop_length = 64})(speech());
  AT::AmplitudeToDB db("magnitude", 60.0);
  expect_close(db(power), fixture("amplitude_to_db"), 1e-5, 1e-4);
  AT::MelScale mel(AT::MelScaleOptions{.n_mels = 24, .sample_rate = 16000, .n_stft = 65});
  expect_close(mel(power), fixture("melscale"), 1e-4, 1e-6);
  expect_json_round_trip(*mel, power);
  expect_torchaudio_state(*mel, "melscale");
  EXPECT_THROW(AT::AmplitudeToDB("power", -1.0), Error);
  EXPECT_THROW(mel(power.slice(-2, 0, 64)), Error);  // 64 bins, not 65
  EXPECT_THROW(AT::MelScale(AT::MelScaleOptions{.f_min = 9000, .f_max = 8000.0}), Error);
}

TEST(AudioTransforms, MelSpectrogramMatchesTorchaudio) {
  AT::MelSpectrogram mel(AT::MelSpectrogramOptions{.sample_rate = 16000,
                                                   .n_fft = 256,
                                                   .hop_length = 160,
                                                   .n_mels = 32,
                                                   .norm = "slaney",
                                                   .mel_scale = "slaney"});
  expect_close(mel(speech()), fixture("melspectrogram"), 1e-4, 1e-7);
  expect_json_round_trip(*mel, speech());
  expect_torchaudio_state(*mel, "melspectrogram");
  // float64, as in torch: the module's buffers cast with it.
  mel->to(kFloat64);
  const Tensor mel64 = mel(speech().to(kFloat64));
  EXPECT_EQ(mel64.dtype(), kFloat64);
  expect_close(mel64, fixture("melspectrogram"), 1e-4, 1e-6);
}

TEST(AudioTransforms, MFCCAndLFCCMatchTorchaudio) {
  AT::MFCC mfcc(AT::MFCCOptions{.sample_rate = 16000,
                                .n_mfcc = 13,
                                .melkwargs = {.n_fft = 400, .hop_length = 160, .n_mels = 40}});
  expect_close(mfcc(speech()), fixture("mfcc"), 1e-4, 2e-3);
  expect_json_round_trip(*mfcc, speech());
  expect_torchaudio_state(*mfcc, "mfcc");
  AT::MFCC log_mels(AT::MFCCOptions{.sample_rate = 8000,
                                    .n_mfcc = 20,
                                    .log_mels = true,
                                    .melkwargs = {.n_fft = 256, .hop_length = 80, .f_min = 20.0, .n_mels = 32}});
  expect_close(log_mels(speech()), fixture("mfcc_log_mels"), 1e-4, 1e-3);
  AT::LFCC lfcc(AT::LFCCOptions{.sample_rate = 16000,
                                .n_filter = 32,
                                .n_lfcc = 20,
                                .speckwargs = {.n_fft = 256, .hop_length = 160}});
  expect_close(lfcc(speech()), fixture("lfcc"), 1e-4, 2e-3);
  expect_json_round_trip(*lfcc, speech());
  expect_torchaudio_state(*lfcc, "lfcc");
  AT::LFCC log_lf(AT::LFCCOptions{.sample_rate = 16000,
                                  .n_filter = 32,
                                  .f_min = 100.0,
                                  .f_max = 6000.0,
                                  .n_lfcc = 12,
                                  .log_lf = true,
                                  .speckwargs = {.n_fft = 256, .hop_length = 128}});
  expect_close(log_lf(speech()), fixture("lfcc_log_lf"), 1e-4, 1e-3);
  EXPECT_THROW(AT::MFCC(AT::MFCCOptions{.n_mfcc = 50, .melkwargs = {.n_mels = 40}}), Error);
  EXPECT_THROW(AT::MFCC(AT::MFCCOptions{.dct_type = 3}), Error);
}

TEST(AudioTransforms, MuLawMatchesTorchaudio) {
  const Tensor codes = AT::MuLawEncoding(256)(speech());
  EXPECT_TRUE(equal(codes, fixture("mulaw_encoding")));
  expect_close(AT::MuLawDecoding(256)(codes), fixture("mulaw_decoding"), 0, 1e-6);
}

TEST(AudioTransforms, ResampleMatchesTorchaudio) {
  AT::Resample down(16000, 8000);
  expect_close(down(speech()), fixture("resample_16k_8k"), 1e-4, 1e-6);
  expect_torchaudio_state(*down, "resample_16k_8k");
  AT::Resample up(AT::ResampleOptions{.orig_freq = 16000,
                                      .new_freq = 44100,
                                      .resampling_method = "kaiser_window",
                                      .lowpass_filter_width = 16,
                                      .rolloff = 0.85,
                                      .beta = 8.555});
  expect_close(up(speech()), fixture("resample_16k_44k1_kaiser"), 1e-4, 1e-6);
  AT::Resample same(16000, 16000);
  EXPECT_TRUE(same->named_buffers().empty());
  EXPECT_TRUE(equal(same(speech()), speech()));
  expect_json_round_trip(*up, speech());
  EXPECT_THROW(AT::Resample(0, 16000), Error);
}

// |actual - expected| <= rtol |expected| + atol for complex values saved as [..., 2], in modulus:
// TimeStretch's phase is a running sum (~1e4 rad here) rounded to float32 at each step, and a
// partial sum that rounds the other way (an angle one ulp off torch's) turns the value by an
// ulp of the sum, 2^-10 rad, however small its real or imaginary part.
void expect_close_in_modulus(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  const Tensor a = actual.to(kFloat64), e = expected.to(kFloat64);
  const Tensor diff = (a - e).pow(2).sum(-1).sqrt(), modulus = e.pow(2).sum(-1).sqrt();
  const Tensor excess = diff - (modulus * rtol + atol);
  EXPECT_LE(excess.max().item<double>(), 0.0) << "max |diff| " << diff.max().item<double>();
}

TEST(AudioTransforms, TimeStretchMatchesTorchaudio) {
  AT::TimeStretch stretch(AT::TimeStretchOptions{.hop_length = 64, .n_freq = 65, .fixed_rate = 1.3});
  expect_close_in_modulus(view_as_real(stretch(complex_spec())), fixture("timestretch"), 2e-3, 1e-5);
  expect_torchaudio_state(*stretch, "timestretch");
  AT::TimeStretch free_rate(AT::TimeStretchOptions{.hop_length = 64, .n_freq = 65});
  expect_close_in_modulus(view_as_real(free_rate->forward(complex_spec(), 0.8)), fixture("timestretch_slower"),
                          2e-3, 1e-5);
  EXPECT_THROW(free_rate(complex_spec()), Error);  // no rate anywhere
}

TEST(AudioTransforms, PitchShiftMatchesTorchaudio) {
  AT::PitchShift up(AT::PitchShiftOptions{.sample_rate = 16000, .n_steps = 3});
  expect_close(up(speech()), fixture("pitchshift_up3"), 1e-3, 1e-4);
  // 19027 -> 16000 Hz: torchaudio's kernel would be 16000 x 1 x 19043; Ember
  // computes its taps on the fly and keeps no buffer.
  EXPECT_FALSE(up->kernel.defined());
  AT::PitchShift down(AT::PitchShiftOptions{.sample_rate = 16000, .n_steps = -2, .n_fft = 256});
  expect_close(down(speech()), fixture("pitchshift_down2"), 1e-3, 1e-4);  // 7127 -> 8000, also on the fly
  EXPECT_FALSE(down->kernel.defined());
  // An octave (32000 -> 16000 Hz, a 1 x 1 x 28 kernel) keeps torchaudio's lazy buffer.
  AT::PitchShift octave(AT::PitchShiftOptions{.sample_rate = 16000, .n_steps = 12});
  EXPECT_FALSE(octave->kernel.defined());
  const Tensor shifted = octave(speech());
  EXPECT_TRUE(octave->kernel.defined());  // built by the first call, as torchaudio's lazy module
  EXPECT_EQ(octave->kernel.sizes().vec(), (std::vector<int64_t>{1, 1, 28}));
  expect_close(shifted, audio::functional::pitch_shift(speech(), 16000, 12), 1e-6, 1e-7);
  expect_close(audio::functional::pitch_shift(speech(), 16000, 3), fixture("pitchshift_up3"), 1e-3, 1e-4);
}

TEST(AudioTransforms, FadeAndVolMatchTorchaudio) {
  const Tensor x = speech().slice(-1, 0, 2000);
  for (const std::string shape : {"linear", "exponential", "logarithmic", "quarter_sine", "half_sine"}) {
    AT::Fade fade(300, 500, shape);
    expect_close(fade(x), fixture("fade_" + shape), 1e-5, 1e-7);
  }
  expect_close(AT::Vol(3.0)(x), fixture("vol_amplitude"), 1e-6, 1e-7);
  expect_close(AT::Vol(6.0, "db")(x), fixture("vol_db"), 1e-6, 1e-7);
  expect_close(AT::Vol(0.25, "power")(x), fixture("vol_power"), 1e-6, 1e-7);
  EXPECT_THROW(AT::Vol(-1.0), Error);
  EXPECT_THROW(AT::Fade(300, 500, "cubic"), Error);
  EXPECT_THROW(AT::Fade(3000, 0)(x), Error);  // longer than the waveform
}

TEST(AudioTransforms, DeltasCmnAndCentroidMatchTorchaudio) {
  const Tensor mfcc = fixture("mfcc");
  expect_close(AT::ComputeDeltas(7)(mfcc), fixture("compute_deltas"), 1e-4, 1e-4);
  AT::SlidingWindowCmn cmn(AT::SlidingWindowCmnOptions{.cmn_window = 20, .min_cmn_window = 5, .center = true,
                                                       .norm_vars = true});
  expect_close(cmn(mfcc.select(0, 0).t().contiguous()), fixture("sliding_window_cmn"), 1e-4, 1e-4);
  AT::SpectralCentroid centroid(AT::SpectralCentroidOptions{.sample_rate = 16000, .n_fft = 256, .hop_length = 128});
  expect_close(centroid(speech()), fixture("spectral_centroid"), 1e-4, 1e-3);
  expect_torchaudio_state(*centroid, "spectral_centroid");
}

TEST(AudioTransforms, VadTrimsTheLeadingSilence) {
  const Tensor input = fixture("vad_input");
  const Tensor kept = AT::Vad(AT::VadOptions{.sample_rate = 16000})(input);
  EXPECT_EQ(input.size(-1) - kept.size(-1), fixture("vad_trimmed").item<int64_t>());
  EXPECT_TRUE(equal(kept, input.slice(-1, input.size(-1) - kept.size(-1), input.size(-1))));
}

TEST(AudioTransforms, MaskingIsReproducibleAndMasksOneBand) {
  const Tensor spec = AT::Spectrogram(AT::SpectrogramOptions{.n_fft = 128, .hop_length = 64})(speech()) + 1;
  manual_seed(3);
  const Tensor a = AT::FrequencyMasking(10)(spec);
  manual_seed(3);
  const Tensor b = AT::FrequencyMasking(10)(spec);
  EXPECT_TRUE(equal(a, b));
  // The masked rows are whole frequency rows set to 0, at most 9 of them, contiguous.
  const Tensor row_masked = (a == 0).all(-1).squeeze(0);
  const int64_t count = row_masked.sum().item<int64_t>();
  EXPECT_LE(count, 9);
  EXPECT_TRUE(equal(a.masked_fill(row_masked.unsqueeze(-1).unsqueeze(0), 0), a));
  // TimeMasking with p = 0.1: at most floor(0.1 * frames) columns.
  manual_seed(4);
  const Tensor t = AT::TimeMasking(40, false, 0.1)->forward(spec, -1.0);
  EXPECT_LE((t == -1).all(-2).sum().item<int64_t>(), spec.size(-1) / 10);
  // iid masks on a 4-D batch differ between items.
  const Tensor batch = spec.unsqueeze(0).expand({8, 1, spec.size(-2), spec.size(-1)}).contiguous();
  manual_seed(5);
  const Tensor iid = AT::FrequencyMasking(30, true)(batch);
  bool differ = false;
  for (int64_t i = 1; i < 8; ++i) differ = differ || !equal(iid[i], iid[0]);
  EXPECT_TRUE(differ);
  EXPECT_THROW(AT::TimeMasking(10, false, 1.5), Error);
}

TEST(AudioTransforms, InverseMelScaleFitsTheMelSpectrogram) {
  // torchaudio's method: SGD from a random start until the loss stalls. The
  // result's mel projection must reproduce the input (the loss it minimises).
  const Tensor power = AT::Spectrogram(AT::SpectrogramOptions{.n_fft = 64, .hop_length = 32})(speech());
  AT::MelScale mel(AT::MelScaleOptions{.n_mels = 16, .sample_rate = 16000, .n_stft = 33});
  const Tensor melspec = mel(power);
  manual_seed(0);
  AT::InverseMelScale inverse(AT::InverseMelScaleOptions{.n_stft = 33, .n_mels = 16, .max_iter = 2000});
  const Tensor back = inverse(melspec);
  ASSERT_EQ(back.sizes().vec(), power.sizes().vec());
  EXPECT_GE(back.min().item<double>(), 0.0);
  const double rel = ((mel(back) - melspec).norm() / melspec.norm()).item<double>();
  EXPECT_LT(rel, 0.05);
  expect_torchaudio_state(*inverse, "melscale_inverse_names");
}

TEST(AudioTransforms, SpeedPerturbationPicksAFactor) {
  AT::SpeedPerturbation perturb(16000, std::vector<double>{0.9, 1.0, 1.1});
  manual_seed(1);
  for (int i = 0; i < 10; ++i) {
    const int64_t n = perturb(speech()).size(-1);
    EXPECT_TRUE(n == 4000 || n == 4445 || n == 3637) << n;  // ceil(4000 / factor)
  }
}

TEST(AudioTransforms, AudioPipelinesSaveAndLoad) {
  auto features = AT::Compose({AT::MelSpectrogram(AT::MelSpectrogramOptions{.n_fft = 256, .hop_length = 128, .n_mels = 32}),
                               AT::AmplitudeToDB("power", 80.0), AT::ComputeDeltas(5)});
  const std::string json = AT::to_json(*features);
  const auto back = AT::from_json(json);
  EXPECT_TRUE(equal(back->forward(speech()), features(speech())));
  for (const char* type : {"Spectrogram", "InverseSpectrogram", "GriffinLim", "AmplitudeToDB", "MelScale",
                           "InverseMelScale", "MelSpectrogram", "MFCC", "LFCC", "MuLawEncoding", "MuLawDecoding",
                           "Resample", "TimeStretch", "PitchShift", "Fade", "FrequencyMasking", "TimeMasking", "Vol",
                           "SlidingWindowCmn", "SpectralCentroid", "Vad", "ComputeDeltas", "SpeedPerturbation"})
    EXPECT_TRUE(AT::is_registered_transform(type)) << type;
}

}  // namespace test_transforms_test
