// fftconvolve and convolve against scipy.signal.fftconvolve / numpy.convolve,
// add_noise against a float64 numpy formula (fixtures:
// scripts/fixtures/audio_effects.py); gradients and bad arguments.
#include <gtest/gtest.h>

#include <string>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "effects_testing.h"

namespace effects_convolve_test {

using namespace ember;
namespace AF = ember::audio::functional;
using namespace effects_testing;

TEST(AudioEffectsConvolve, MatchScipyAndNumpy) {
  for (const std::string pair : {"bcast", "short_x", "even"}) {
    const Tensor x = fixture("conv_" + pair + "_x"), y = fixture("conv_" + pair + "_y");
    for (const std::string mode : {"full", "same", "valid"}) {
      SCOPED_TRACE(pair + " " + mode);
      const Tensor expected = fixture("conv_" + pair + "_" + mode);
      expect_close(AF::convolve(x, y, mode), expected, 1e-12);
      expect_close(AF::fftconvolve(x, y, mode), expected, 1e-12);
      // float32: sums of up to 21 products of unit-variance samples.
      expect_close(AF::convolve(x.to(kFloat32), y.to(kFloat32), mode), expected.to(kFloat32), 1e-5);
      expect_close(AF::fftconvolve(x.to(kFloat32), y.to(kFloat32), mode), expected.to(kFloat32), 1e-5);
    }
  }
  // Defaults to "full".
  const Tensor x = fixture("conv_even_x"), y = fixture("conv_even_y");
  EXPECT_EQ(AF::convolve(x, y).size(-1), 64 + 16 - 1);
  EXPECT_EQ(AF::fftconvolve(x, y).size(-1), 64 + 16 - 1);
}

TEST(AudioEffectsConvolve, LongSignalsAgree) {
  // Several output blocks of the direct kernel, against the FFT path.
  manual_seed(4);
  const Tensor x = randn({3, 5000}, kFloat64), y = randn({3, 700}, kFloat64);
  const Tensor direct = AF::convolve(x, y);
  EXPECT_LE((direct - AF::fftconvolve(x, y)).abs().max().item<double>(), 1e-10);
  // One row against a float64 loop.
  const Tensor x0 = x[1].contiguous(), y0 = y[1].contiguous();
  const double* xp = x0.data_ptr<double>();
  const double* yp = y0.data_ptr<double>();
  for (int64_t k : {0, 699, 1024, 3000, 5698}) {
    double sum = 0;
    for (int64_t j = 0; j < 700; ++j)
      if (k - j >= 0 && k - j < 5000) sum += xp[k - j] * yp[j];
    EXPECT_NEAR(direct[1][k].item<double>(), sum, 1e-10) << "k = " << k;
  }
}

TEST(AudioEffectsConvolve, Gradcheck) {
  const Tensor x = fixture("conv_bcast_x").narrow(-1, 0, 9).requires_grad_();  // [2, 1, 9]
  const Tensor y = fixture("conv_bcast_y").narrow(-1, 0, 4).requires_grad_();  // [1, 3, 4]
  for (const std::string mode : {"full", "same", "valid"}) {
    const auto direct = [&](const autograd::variable_list& in) {
      return autograd::variable_list{AF::convolve(in[0], in[1], mode)};
    };
    const auto fft = [&](const autograd::variable_list& in) {
      return autograd::variable_list{AF::fftconvolve(in[0], in[1], mode)};
    };
    EXPECT_TRUE(autograd::gradcheck(direct, {x, y}));
    EXPECT_TRUE(autograd::gradgradcheck(direct, {x, y}));
    EXPECT_TRUE(autograd::gradcheck(fft, {x, y}));
    // y longer than x: convolve swaps the operands.
    EXPECT_TRUE(autograd::gradcheck(direct, {y, x}));
  }
}

TEST(AudioEffectsConvolve, AddNoiseMatchesFormula) {
  const Tensor wave = fixture("noise_wave"), noise = fixture("noise_noise"), snr = fixture("noise_snr");
  const Tensor lengths = fixture("noise_lengths");
  expect_close(AF::add_noise(wave, noise, snr), fixture("add_noise__all"), 1e-12);
  expect_close(AF::add_noise(wave, noise, snr, lengths), fixture("add_noise__lengths"), 1e-12);
  // Singleton leading dims broadcast: [2, 1, L] + [1, 3, L] with snr [2, 3].
  expect_close(AF::add_noise(wave.narrow(1, 0, 1), noise.narrow(0, 0, 1), snr), fixture("add_noise__bcast"), 1e-12);
  expect_close(AF::add_noise(wave.to(kFloat32), noise.to(kFloat32), snr.to(kFloat32)),
               fixture("add_noise__all").to(kFloat32), 1e-5);
  // The result has the requested SNR.
  const Tensor out = AF::add_noise(wave, noise, snr);
  const Tensor added = out - wave;
  const Tensor measured = 10 * ((wave * wave).sum({-1}) / (added * added).sum({-1})).log10();
  EXPECT_LE((measured - snr).abs().max().item<double>(), 1e-10);
}

TEST(AudioEffectsConvolve, AddNoiseGradcheck) {
  const Tensor wave = fixture("noise_wave").narrow(-1, 0, 8).requires_grad_();
  const Tensor noise = fixture("noise_noise").narrow(-1, 0, 8).requires_grad_();
  const Tensor snr = fixture("noise_snr").clone().requires_grad_();
  const Tensor lengths = fixture("noise_lengths").clamp(1, 8);
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& in) { return autograd::variable_list{AF::add_noise(in[0], in[1], in[2])}; },
      {wave, noise, snr}));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& in) {
        return autograd::variable_list{AF::add_noise(in[0], in[1], in[2], lengths)};
      },
      {wave, noise, snr}));
}

TEST(AudioEffectsConvolve, BadArgumentsRaise) {
  const Tensor x = fixture("conv_even_x"), y = fixture("conv_even_y");
  EXPECT_NE(error_of([&] { AF::convolve(x, y, "circular"); }).find("convolve: mode must be"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::fftconvolve(x, y[0]); }).find("fftconvolve: the operands must have the same number"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::convolve(x.expand({3, 64}), y.expand({2, 16})); }).find("not broadcastable"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::convolve(x.narrow(1, 0, 0), y); }).find("at least one sample"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::convolve(x.to(kInt64), y); }).find("convolve: expected float32 or float64"),
            std::string::npos);
  const Tensor wave = fixture("noise_wave"), noise = fixture("noise_noise"), snr = fixture("noise_snr");
  EXPECT_NE(error_of([&] { AF::add_noise(wave, noise, snr[0]); }).find("add_noise: leading dims"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::add_noise(wave, noise.narrow(-1, 0, 30), snr); }).find("got 40 and 30"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::add_noise(wave, noise, snr, fixture("noise_lengths")[0]); }).find("add_noise"),
            std::string::npos);
}

}  // namespace effects_convolve_test
