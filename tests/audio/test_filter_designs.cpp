// biquad and the biquad designs of ember::audio::functional against
// torchaudio 0.13 and scipy.signal.sosfilt of the Audio EQ Cookbook / SoX
// coefficients (fixtures: scripts/fixtures/audio_filters.py).
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "npy.h"

namespace filter_designs_test {

using namespace ember;
namespace AF = ember::audio::functional;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/filters/" + name + ".npy"));
}

double max_diff(const Tensor& actual, const Tensor& expected) {
  return (actual.to(kFloat64) - expected.to(kFloat64)).abs().max().item<double>();
}

struct Design {
  std::string name;
  std::function<Tensor(const Tensor&)> fn;
};

// The fixture script's DESIGNS, with the same arguments.
const std::vector<Design>& designs() {
  static const std::vector<Design> all = {
      {"lowpass", [](const Tensor& x) { return AF::lowpass_biquad(x, 16000, 1500.0, 0.707); }},
      {"highpass", [](const Tensor& x) { return AF::highpass_biquad(x, 16000, 2000.0, 1.2); }},
      {"bandpass", [](const Tensor& x) { return AF::bandpass_biquad(x, 16000, 3000.0, 2.0); }},
      {"bandpass_skirt", [](const Tensor& x) { return AF::bandpass_biquad(x, 16000, 3000.0, 2.0, true); }},
      {"bandreject", [](const Tensor& x) { return AF::bandreject_biquad(x, 16000, 2500.0, 0.9); }},
      {"allpass", [](const Tensor& x) { return AF::allpass_biquad(x, 16000, 1000.0, 0.707); }},
      {"band", [](const Tensor& x) { return AF::band_biquad(x, 16000, 2000.0, 1.5); }},
      {"band_noise", [](const Tensor& x) { return AF::band_biquad(x, 16000, 2000.0, 1.5, true); }},
      {"bass", [](const Tensor& x) { return AF::bass_biquad(x, 16000, 6.0, 200.0, 0.8); }},
      {"treble", [](const Tensor& x) { return AF::treble_biquad(x, 16000, -4.0, 4000.0, 0.707); }},
      {"equalizer", [](const Tensor& x) { return AF::equalizer_biquad(x, 16000, 1200.0, 5.0, 1.3); }},
      {"deemph_44100", [](const Tensor& x) { return AF::deemph_biquad(x, 44100); }},
      {"deemph_48000", [](const Tensor& x) { return AF::deemph_biquad(x, 48000); }},
      {"riaa_44100", [](const Tensor& x) { return AF::riaa_biquad(x, 44100); }},
      {"riaa_96000", [](const Tensor& x) { return AF::riaa_biquad(x, 96000); }},
  };
  return all;
}

TEST(AudioBiquadDesigns, Float64IsTorchaudiosBitForBit) {
  // Coefficients from the same float64 operations in the same order, then
  // lfilter's roundings (Note [lfilter arithmetic]).
  const Tensor x = fixture("design_wave");
  for (const Design& d : designs()) {
    const Tensor y = d.fn(x);
    ASSERT_EQ(y.sizes().vec(), x.sizes().vec()) << d.name;
    EXPECT_TRUE(y.equal(fixture(d.name))) << d.name << ": max difference " << max_diff(y, fixture(d.name));
  }
}

TEST(AudioBiquadDesigns, MatchTorchaudioFloat32) {
  // The coefficients are computed in float32 as torchaudio computes them; the
  // filter is torchaudio's bit for bit (Note [lfilter arithmetic]), so only
  // float32 sin/cos/exp of the design may differ in the last bit (bandpass:
  // torch's sin(w0) is one ulp off the correctly rounded value, Ember's).
  const Tensor x = fixture("design_wave").to(kFloat32);
  for (const Design& d : designs()) {
    const Tensor y = d.fn(x);
    ASSERT_EQ(y.dtype(), kFloat32) << d.name;
    EXPECT_LE(max_diff(y, fixture(d.name + "_f32")), 2e-6) << d.name;
  }
}

TEST(AudioBiquadDesigns, MatchScipySosfiltOfTheCookbookCoefficients) {
  // Coefficients from the Audio EQ Cookbook / SoX formulas in float64 numpy
  // (RIAA from its zeros and poles, normalized with scipy's freqz), filtered by
  // scipy.signal.sosfilt and clamped.
  const Tensor x = fixture("design_wave");
  for (const Design& d : designs()) EXPECT_LE(max_diff(d.fn(x), fixture(d.name + "_sosfilt")), 1e-13) << d.name;
}

TEST(AudioBiquadDesigns, BiquadDividesByA0) {
  const Tensor x = fixture("design_wave");
  EXPECT_TRUE(AF::biquad(x, 0.4, 0.2, -0.1, 1.3, -0.5, 0.2).equal(fixture("biquad")));
}

TEST(AudioBiquadDesigns, AnyLeadingShape) {
  // [..., time]: a [2, 3, 2, 128] stack filters like each of its rows.
  const Tensor x = fixture("design_wave");
  const Tensor batch = stack({x, x * 0.5, -x}).unsqueeze(0).expand({2, 3, 2, x.size(-1)});
  const Tensor y = AF::treble_biquad(batch, 16000, -4.0, 4000.0, 0.707);
  EXPECT_TRUE(y[1][2].equal(AF::treble_biquad(-x, 16000, -4.0, 4000.0, 0.707)));
  EXPECT_TRUE(AF::lowpass_biquad(x[0], 16000, 1500.0).equal(AF::lowpass_biquad(x, 16000, 1500.0)[0]));
}

TEST(AudioBiquadDesigns, TensorParametersAreDifferentiable) {
  const Tensor x = fixture("design_wave");
  const Tensor cutoff = scalar_tensor(1500.0, kFloat64).requires_grad_();
  const Tensor q = scalar_tensor(0.9, kFloat64).requires_grad_();
  AF::lowpass_biquad(x, 16000, cutoff, q).sum().backward();
  const Tensor expected = fixture("lowpass_grad_params");
  EXPECT_NEAR(cutoff.grad().item<double>(), expected[0].item<double>(), 1e-9 * std::abs(expected[0].item<double>()));
  EXPECT_NEAR(q.grad().item<double>(), expected[1].item<double>(), 1e-9 * std::abs(expected[1].item<double>()));
  const Tensor gain = scalar_tensor(3.0, kFloat64).requires_grad_();
  AF::equalizer_biquad(x, 16000, 1200.0, gain, 1.3).sum().backward();
  const double g = fixture("equalizer_grad_gain")[0].item<double>();
  EXPECT_NEAR(gain.grad().item<double>(), g, 1e-9 * std::abs(g));
  // gradcheck through a design: waveform, frequency, Q and gain together.
  const Tensor xs = (x.narrow(-1, 0, 16) * 0.3).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) {
        return autograd::variable_list{AF::bass_biquad(in[0], 16000, in[1], in[2], in[3])};
      },
      {xs, scalar_tensor(4.0, kFloat64).requires_grad_(), scalar_tensor(300.0, kFloat64).requires_grad_(),
       scalar_tensor(0.8, kFloat64).requires_grad_()},
      1e-6, 1e-5, 1e-3));
}

void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(AudioBiquadDesigns, BadArgumentsRaise) {
  const Tensor x = fixture("design_wave");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { AF::lowpass_biquad(x, 0, 1000.0); }, "lowpass_biquad: sample_rate must be positive, got 0");
  expect_error([&] { AF::highpass_biquad(x, 16000, -5.0); }, "highpass_biquad: cutoff_freq must be positive and finite, got -5");
  expect_error([&] { AF::bandpass_biquad(x, 16000, 1000.0, 0.0); }, "bandpass_biquad: Q must be positive and finite, got 0");
  expect_error([&] { AF::band_biquad(x, 16000, nan); }, "band_biquad: central_freq must be positive and finite, got nan");
  expect_error([&] { AF::bass_biquad(x, 16000, INFINITY); }, "bass_biquad: gain must be finite, got inf");
  expect_error([&] { AF::equalizer_biquad(x, -1, 1000.0, 3.0); }, "equalizer_biquad: sample_rate must be positive");
  expect_error([&] { AF::deemph_biquad(x, 16000); }, "deemph_biquad: sample_rate must be 44100 (audio CD) or 48000 (DAT), got 16000");
  expect_error([&] { AF::riaa_biquad(x, 22050); }, "riaa_biquad: sample_rate must be 44100, 48000, 88200 or 96000, got 22050");
  expect_error([&] { AF::allpass_biquad(x.to(kInt64), 16000, 1000.0); }, "allpass_biquad: expected a float32 or float64 waveform, got int64");
  expect_error([&] { AF::lowpass_biquad(x, 16000, zeros({2}, kFloat64)); }, "lowpass_biquad: cutoff_freq must be a number or a one-element tensor");
  expect_error([&] { AF::biquad(x, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0); }, "biquad: a_0 must be non-zero");
  expect_error([&] { AF::biquad(x, nan, 0.0, 0.0, 1.0, 0.0, 0.0); }, "biquad: coefficients must be finite, got b_coeffs[0] = nan");
}

}  // namespace filter_designs_test
