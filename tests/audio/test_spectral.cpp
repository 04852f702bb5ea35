// ember/audio/functional/spectral.h, spectrogram family (spectrogram,
// inverse_spectrogram, griffinlim, phase_vocoder, spectral_centroid) against
// torchaudio 0.13 (fixtures: scripts/fixtures/audio_spectral.py).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "spectral_testing.h"

namespace spectral_test {

using namespace ember;
using namespace spectral_testing;
namespace AF = ember::audio::functional;

// The fixtures' STFT geometry: n_fft 32, hop 8, a periodic Hann window of 24.
constexpr int64_t kNfft = 32;
constexpr int64_t kHop = 8;
constexpr int64_t kWin = 24;

Tensor window() { return fixture("window24"); }

TEST(AudioSpectrogram, MatchesTorchaudio) {
  const Tensor wave = fixture("wave");  // [2, 2, 200] float64
  const Tensor w = window();
  expect_close(AF::spectrogram(wave, 0, w, kNfft, kHop, kWin, 2.0, false), fixture("spectrogram__power2"), 1e-10);
  expect_close(AF::spectrogram(wave, 0, w, kNfft, kHop, kWin, std::nullopt, false),
               complex_fixture("spectrogram__complex"), 1e-10);
  expect_close(AF::spectrogram(wave, 0, w, kNfft, kHop, kWin, 1.0, true), fixture("spectrogram__power1_window"),
               1e-10);
  expect_close(AF::spectrogram(wave.select(1, 0), 0, w, kNfft, kHop, kWin, std::nullopt, "frame_length", false,
                               "reflect", false),
               complex_fixture("spectrogram__frame_length_nocenter_twosided"), 1e-10);
  expect_close(AF::spectrogram(wave, 5, w, kNfft, kHop, kWin, 0.5, "window", true, "constant"),
               fixture("spectrogram__pad_constant_power05"), 1e-10);
}

TEST(AudioSpectrogram, Float32MatchesTorchaudio) {
  const Tensor spec = AF::spectrogram(fixture("wave").to(kFloat32), 0, window().to(kFloat32), kNfft, kHop, kWin,
                                      2.0, false);
  const Tensor expected = fixture("spectrogram__power2__f32");
  // float32 FFTs round differently; relative to the largest power.
  expect_close(spec, expected, 2e-6 * expected.abs().max().item<double>());
}

TEST(AudioSpectrogram, AnyLeadingShape) {
  const Tensor wave = fixture("wave");
  const Tensor w = window();
  const Tensor batched = AF::spectrogram(wave, 0, w, kNfft, kHop, kWin, 2.0, false);
  EXPECT_EQ(batched.sizes().vec(), (std::vector<int64_t>{2, 2, kNfft / 2 + 1, 1 + 200 / kHop}));
  const Tensor single = AF::spectrogram(wave[1][0], 0, w, kNfft, kHop, kWin, 2.0, false);
  EXPECT_EQ(single.dim(), 2);
  expect_close(single, batched[1][0], 1e-12);
  const Tensor five_d = AF::spectrogram(wave.reshape({1, 2, 1, 2, 200}), 0, w, kNfft, kHop, kWin, 2.0, false);
  expect_close(five_d.reshape(batched.sizes()), batched, 1e-12);
  // Strided (non-contiguous) input: time along dim 0.
  const Tensor strided = wave.reshape({4, 200}).t().contiguous().t();
  EXPECT_FALSE(strided.is_contiguous());
  expect_close(AF::spectrogram(strided, 0, w, kNfft, kHop, kWin, 2.0, false), batched.reshape({4, 17, 26}), 1e-12);
  // An undefined window is rectangular, as in torch.stft.
  expect_close(AF::spectrogram(wave, 0, {}, kNfft, kHop, kWin, 1.0, true),
               AF::spectrogram(wave, 0, ones({kWin}, kFloat64), kNfft, kHop, kWin, 1.0, true), 1e-12);
}

TEST(AudioSpectrogram, ReturnComplexIsDeprecatedAndWarns) {
  const Tensor wave = fixture("wave");
  WarningCapture capture;
  const Tensor spec = AF::spectrogram(wave, 0, window(), kNfft, kHop, kWin, 2.0, false, true, "reflect", true, false);
  ASSERT_EQ(capture.messages().size(), 1u);
  EXPECT_NE(capture.messages()[0].find("return_complex"), std::string::npos);
  expect_close(spec, fixture("spectrogram__power2"), 1e-10);  // no effect on the result
}

TEST(AudioInverseSpectrogram, MatchesTorchaudio) {
  const Tensor wave = fixture("wave");
  const Tensor w = window();
  const Tensor spec = complex_fixture("spectrogram__complex");
  expect_close(AF::inverse_spectrogram(spec, 190, 0, w, kNfft, kHop, kWin, false),
               fixture("inverse_spectrogram__length"), 1e-10);
  expect_close(AF::inverse_spectrogram(spec, std::nullopt, 0, w, kNfft, kHop, kWin, false),
               fixture("inverse_spectrogram__none"), 1e-10);
  const Tensor padded = AF::spectrogram(wave, 4, w, kNfft, kHop, kWin, std::nullopt, true);
  expect_close(AF::inverse_spectrogram(padded, 190, 4, w, kNfft, kHop, kWin, true),
               fixture("inverse_spectrogram__pad_window"), 1e-10);
  const Tensor twosided = AF::spectrogram(wave, 0, w, kNfft, kHop, kWin, std::nullopt, "frame_length", true,
                                          "reflect", false);
  expect_close(AF::inverse_spectrogram(twosided, std::nullopt, 0, w, kNfft, kHop, kWin, "frame_length", true,
                                       "reflect", false),
               fixture("inverse_spectrogram__frame_length_twosided"), 1e-10);
  // The round trip restores the waveform.
  expect_close(fixture("inverse_spectrogram__none"), wave, 1e-12);
}

TEST(AudioInverseSpectrogram, Float32RoundTrip) {
  const Tensor wave = fixture("wave").to(kFloat32);
  const Tensor w = window().to(kFloat32);
  const Tensor spec = AF::spectrogram(wave, 0, w, kNfft, kHop, kWin, std::nullopt, "window");
  EXPECT_EQ(spec.dtype(), kComplex64);
  const Tensor back = AF::inverse_spectrogram(spec, 200, 0, w, kNfft, kHop, kWin, "window");
  expect_close(back, wave, 2e-5);
}

TEST(AudioGriffinLim, MatchesTorchaudio) {
  const Tensor w = window();
  const Tensor power = fixture("spectrogram__power2");
  expect_close(AF::griffinlim(power, w, kNfft, kHop, kWin, 2.0, 8, 0.99, 203, false), fixture("griffinlim__momentum"),
               1e-9);
  expect_close(AF::griffinlim(power, w, kNfft, kHop, kWin, 2.0, 5, 0.0, std::nullopt, false),
               fixture("griffinlim__plain"), 1e-9);
  // float32 follows within float32 rounding.
  expect_close(AF::griffinlim(power.to(kFloat32), w.to(kFloat32), kNfft, kHop, kWin, 2.0, 5, 0.0, std::nullopt,
                              false),
               fixture("griffinlim__plain").to(kFloat32), 1e-4);
}

// || |STFT(y)| - magnitude || / || magnitude ||.
double spectral_convergence(const Tensor& y, const Tensor& magnitude) {
  const Tensor rebuilt = AF::spectrogram(y, 0, window(), kNfft, kHop, kWin, 1.0, false);
  return ((rebuilt - magnitude).norm().item<double>()) / magnitude.norm().item<double>();
}

TEST(AudioGriffinLim, RandomInitDrawsFromTheDefaultGeneratorAndConverges) {
  const Tensor w = window();
  const Tensor magnitude = fixture("spectrogram__power2").pow(0.5);
  manual_seed(11);
  const Tensor first = AF::griffinlim(magnitude, w, kNfft, kHop, kWin, 1.0, 32, 0.99, 200, true);
  manual_seed(11);
  const Tensor again = AF::griffinlim(magnitude, w, kNfft, kHop, kWin, 1.0, 32, 0.99, 200, true);
  EXPECT_EQ(first.sizes().vec(), (std::vector<int64_t>{2, 2, 200}));
  EXPECT_TRUE(first.equal(again));
  manual_seed(12);
  const Tensor other = AF::griffinlim(magnitude, w, kNfft, kHop, kWin, 1.0, 32, 0.99, 200, true);
  EXPECT_FALSE(first.equal(other));
  manual_seed(11);
  const Tensor start = AF::griffinlim(magnitude, w, kNfft, kHop, kWin, 1.0, 0, 0.99, 200, true);
  const double before = spectral_convergence(start, magnitude);
  const double after = spectral_convergence(first, magnitude);
  EXPECT_LT(after, 0.5 * before);
  EXPECT_LT(after, 0.3);
}

TEST(AudioPhaseVocoder, MatchesTorchaudio) {
  const Tensor spec = complex_fixture("vocoder_spec");  // [2, 1, 17, 12]
  const Tensor advance = fixture("vocoder_advance");
  const Tensor faster = AF::phase_vocoder(spec, 1.3, advance);
  EXPECT_EQ(faster.size(-1), 10);  // ceil(12 / 1.3)
  expect_close(faster, complex_fixture("phase_vocoder__1_3"), 1e-10);
  expect_close(AF::phase_vocoder(spec, 0.7, advance), complex_fixture("phase_vocoder__0_7"), 1e-10);
  EXPECT_TRUE(AF::phase_vocoder(spec, 1.0, advance).equal(spec));
  // complex64 with a float32 advance; unbatched input.
  const Tensor single = AF::phase_vocoder(spec[0][0].to(kComplex64), 1.3, advance.to(kFloat32));
  EXPECT_EQ(single.dtype(), kComplex64);
  expect_close(single, complex_fixture("phase_vocoder__1_3")[0][0].to(kComplex64), 1e-4);
}

TEST(AudioSpectralCentroid, MatchesTorchaudio) {
  const Tensor wave = fixture("wave");
  const Tensor w = window();
  expect_close(AF::spectral_centroid(wave, 16000, 0, w, kNfft, kHop, kWin), fixture("spectral_centroid"), 1e-9);
  expect_close(AF::spectral_centroid(wave, 8000, 3, w, kNfft, 10, kWin), fixture("spectral_centroid__pad"), 1e-9);
  const Tensor f32 = AF::spectral_centroid(wave.to(kFloat32), 16000, 0, w.to(kFloat32), kNfft, kHop, kWin);
  EXPECT_EQ(f32.dtype(), kFloat32);
  expect_close(f32, fixture("spectral_centroid").to(kFloat32), 0.05);  // Hz
}

TEST(AudioSpectral, Gradcheck) {
  manual_seed(3);
  const Tensor wave = randn({2, 40}, kFloat64).requires_grad_();
  const Tensor w = hann_window(12, true, kFloat64);
  using autograd::variable_list;
  EXPECT_TRUE(autograd::gradcheck(
      [&](const variable_list& in) { return variable_list{AF::spectrogram(in[0], 2, w, 16, 4, 12, 2.0, true)}; },
      {wave}));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const variable_list& in) {
        return variable_list{AF::spectrogram(in[0], 0, w, 16, 4, 12, std::nullopt, "frame_length")};
      },
      {wave}));
  const Tensor spec = AF::spectrogram(wave.detach(), 0, w, 16, 4, 12, std::nullopt, false).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [&](const variable_list& in) {
        return variable_list{AF::inverse_spectrogram(in[0], 40, 0, w, 16, 4, 12, true)};
      },
      {spec}));
  const Tensor power = AF::spectrogram(wave.detach(), 0, w, 16, 4, 12, 2.0, false).add(0.1).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [&](const variable_list& in) {
        return variable_list{AF::griffinlim(in[0], w, 16, 4, 12, 2.0, 2, 0.5, 40, false)};
      },
      {power}));
  const Tensor advance = linspace(0, std::numbers::pi * 4, 9, kFloat64).unsqueeze(-1);
  EXPECT_TRUE(autograd::gradcheck(
      [&](const variable_list& in) { return variable_list{AF::phase_vocoder(in[0], 1.5, advance)}; }, {spec}));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const variable_list& in) { return variable_list{AF::spectral_centroid(in[0], 8000, 0, w, 16, 4, 12)}; },
      {wave}));
}

TEST(AudioSpectral, BadArgumentsRaise) {
  const Tensor wave = fixture("wave");
  const Tensor w = window();
  expect_error([&] { AF::spectrogram(wave, 0, {}, 300, kHop, 300, 2.0, false, false); },
               {"spectrogram", "n_fft = 300", "center = false"});
  expect_error([&] { AF::spectrogram(wave.narrow(-1, 0, 10), 0, w, kNfft, kHop, kWin, 2.0, false); },
               {"spectrogram", "reflect", "10"});
  expect_error([&] { AF::spectrogram(wave, 0, w, kNfft, kHop, kWin, 2.0, "frame"); },
               {"spectrogram", "normalized", "\"frame\""});
  expect_error([&] { AF::spectrogram(wave, 0, w, kNfft, kHop, kWin, -1.0, false); }, {"spectrogram", "power", "-1"});
  expect_error([&] { AF::spectrogram(wave, 0, w, kNfft, kHop, 20, 2.0, false); },
               {"spectrogram", "window", "win_length = 20"});
  expect_error([&] { AF::spectrogram(wave, 0, w, kNfft, 0, kWin, 2.0, false); }, {"spectrogram", "hop_length", "0"});
  expect_error([&] { AF::spectrogram(wave, -1, w, kNfft, kHop, kWin, 2.0, false); }, {"spectrogram", "pad", "-1"});
  expect_error([&] { AF::spectrogram(wave.to(kInt64), 0, w, kNfft, kHop, kWin, 2.0, false); },
               {"spectrogram", "floating"});
  expect_error([&] { AF::inverse_spectrogram(wave, std::nullopt, 0, w, kNfft, kHop, kWin, false); },
               {"inverse_spectrogram", "complex"});
  expect_error([&] { AF::inverse_spectrogram(complex_fixture("spectrogram__complex"), -3, 0, w, kNfft, kHop, kWin,
                                             false); },
               {"inverse_spectrogram", "length", "-3"});
  const Tensor power = fixture("spectrogram__power2");
  expect_error([&] { AF::griffinlim(power, w, kNfft, kHop, kWin, 2.0, 4, 1.0, std::nullopt, false); },
               {"griffinlim", "momentum", "1"});
  expect_error([&] { AF::griffinlim(power, w, 64, kHop, kWin, 2.0, 4, 0.5, std::nullopt, false); },
               {"griffinlim", "33", "17"});
  expect_error([&] { AF::griffinlim(power, w, kNfft, kHop, kWin, 0.0, 4, 0.5, std::nullopt, false); },
               {"griffinlim", "power"});
  const Tensor spec = complex_fixture("vocoder_spec");
  const Tensor advance = fixture("vocoder_advance");
  expect_error([&] { AF::phase_vocoder(spec.abs(), 1.3, advance); }, {"phase_vocoder", "complex"});
  expect_error([&] { AF::phase_vocoder(spec.narrow(-1, 0, 0), 1.3, advance); }, {"phase_vocoder", "one frame"});
  expect_error([&] { AF::phase_vocoder(spec, 0.0, advance); }, {"phase_vocoder", "rate", "0"});
  expect_error([&] { AF::phase_vocoder(spec, std::nan(""), advance); }, {"phase_vocoder", "rate", "nan"});
  expect_error([&] { AF::phase_vocoder(spec, 1.3, advance.narrow(0, 0, 5)); }, {"phase_vocoder", "phase_advance"});
  expect_error([&] { AF::spectral_centroid(wave, 0, 0, w, kNfft, kHop, kWin); }, {"spectral_centroid", "sample_rate"});
}

}  // namespace spectral_test
