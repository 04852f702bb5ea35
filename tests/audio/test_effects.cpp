// contrast, dcshift, gain and dither against torchaudio 0.13
// (fixtures: scripts/fixtures/audio_effects.py).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "effects_testing.h"

namespace effects_test {

using namespace ember;
namespace AF = ember::audio::functional;
using namespace effects_testing;

TEST(AudioEffects, ContrastMatchesTorchaudio) {
  const Tensor wave = fixture("wave");
  expect_close(AF::contrast(wave, 75.0), fixture("contrast__75"), 1e-12);
  expect_close(AF::contrast(wave, 0.0), fixture("contrast__0"), 1e-12);
  expect_close(AF::contrast(wave), fixture("contrast__75"), 1e-12);
  // float32: the same ops at float32 precision.
  expect_close(AF::contrast(wave.to(kFloat32)), fixture("contrast__75").to(kFloat32), 2e-6);
}

TEST(AudioEffects, DcshiftMatchesTorchaudio) {
  const Tensor wave = fixture("wave");
  const Tensor before = wave.clone();
  expect_close(AF::dcshift(wave, 0.3), fixture("dcshift__up"), 1e-12);
  expect_close(AF::dcshift(wave, -0.2), fixture("dcshift__down"), 1e-12);
  expect_close(AF::dcshift(wave, 0.6, 0.05), fixture("dcshift__up_limiter"), 1e-12);
  expect_close(AF::dcshift(wave, -0.6, 0.05), fixture("dcshift__down_limiter"), 1e-12);
  expect_close(AF::dcshift(wave.to(kFloat32), 0.6, 0.05), fixture("dcshift__up_limiter").to(kFloat32), 1e-6);
  // Unlike torchaudio's limiter path, the input is left alone.
  EXPECT_TRUE(wave.equal(before));
}

TEST(AudioEffects, GainMatchesTorchaudio) {
  const Tensor wave = fixture("wave");
  expect_close(AF::gain(wave, 3.5), fixture("gain__up"), 1e-12);
  expect_close(AF::gain(wave, -6.0), fixture("gain__down"), 1e-12);
  EXPECT_TRUE(AF::gain(wave, 0.0).is_same(wave));  // torchaudio returns its input
  expect_close(AF::gain(wave.to(kFloat32), 3.5), fixture("gain__up").to(kFloat32), 1e-6);
}

TEST(AudioEffects, PointwiseEffectsKeepAnyBatchShape) {
  const Tensor wave = fixture("wave");  // [2, 3, 50]
  const Tensor flat = wave.reshape({6, 50});
  const Tensor row = wave[1][2];
  EXPECT_TRUE(AF::contrast(flat, 40.0).reshape({2, 3, 50}).equal(AF::contrast(wave, 40.0)));
  EXPECT_TRUE(AF::dcshift(row, 0.6, 0.05).equal(AF::dcshift(wave, 0.6, 0.05)[1][2]));
  EXPECT_TRUE(AF::gain(wave.unsqueeze(0), 2.0).squeeze(0).equal(AF::gain(wave, 2.0)));
}

TEST(AudioEffects, PointwiseGradcheck) {
  // Away from the clamp's and the limiter's kinks.
  const Tensor x = (fixture("wave") * 0.3).requires_grad_();
  auto check = [&](auto f) {
    EXPECT_TRUE(autograd::gradcheck([&](const autograd::variable_list& in) { return autograd::variable_list{f(in[0])}; },
                                    {x}));
  };
  check([](const Tensor& t) { return AF::contrast(t, 60.0); });
  check([](const Tensor& t) { return AF::gain(t, -4.5); });
  check([](const Tensor& t) { return AF::dcshift(t, 0.2); });
  check([](const Tensor& t) { return AF::dcshift(t * 3, 0.7, 0.1); });
  check([](const Tensor& t) { return AF::dcshift(t * 3, -0.7, 0.1); });
}

TEST(AudioEffects, DitherTpdfMatchesTorchaudio) {
  const Tensor wave = fixture("dither_wave");
  manual_seed(3);
  expect_close(AF::dither(wave), fixture("dither__tpdf"), 1e-12);
  expect_close(AF::dither(wave, "TPDF", true), fixture("dither__tpdf_shaped"), 1e-12);
  // float32 rounds wave * 32766 + window at float32, as torch does.
  expect_close(AF::dither(wave.to(kFloat32)), fixture("dither__tpdf_f32"), 0.0);
  // [3, 40] as [3, 1, 40] and as rows of one item: the window is over time.
  EXPECT_TRUE(AF::dither(wave.unsqueeze(1)).squeeze(1).equal(AF::dither(wave)));
}

TEST(AudioEffects, DitherRpdfAndGpdfMatchTorchaudioWhateverTheDraw) {
  // Every sample the draws can reach (rows 0..R-2, times 0..T-2) holds one
  // value, so torchaudio's result is the only right one.
  const Tensor wave = fixture("dither_const_wave");
  for (uint64_t seed : {1, 2, 3, 4}) {
    manual_seed(seed);
    expect_close(AF::dither(wave, "RPDF"), fixture("dither__rpdf_const"), 1e-12);
    expect_close(AF::dither(wave, "GPDF"), fixture("dither__gpdf_const"), 1e-12);
    expect_close(AF::dither(wave, "RPDF", true), fixture("dither__rpdf_const_shaped"), 1e-12);
  }
}

TEST(AudioEffects, DitherDrawsCoverTorchaudiosRange) {
  // Samples a whole number apart: each RPDF result reveals which one was drawn.
  const Tensor wave = arange(0, 15, kFloat64).reshape({3, 5}) + 0.25;
  const Tensor scaled = wave * 32766;
  std::map<std::pair<int64_t, int64_t>, int> drawn;
  manual_seed(11);
  for (int trial = 0; trial < 200; ++trial) {
    const Tensor out = AF::dither(wave, "RPDF");
    bool found = false;
    for (int64_t c = 0; c < 3 && !found; ++c)
      for (int64_t t = 0; t < 5 && !found; ++t) {
        const Tensor expected = (scaled + (wave[c][t] - 0.5)).round() / 32768;
        if (out.equal(expected)) {
          ++drawn[{c, t}];
          found = true;
        }
      }
    ASSERT_TRUE(found) << "trial " << trial << ": the result is not wave * 32766 + (sample - 0.5), rounded";
  }
  // torch.randint(R - 1) and torch.randint(T - 1): rows 0..1, times 0..3,
  // each about 25 times in 200.
  EXPECT_EQ(drawn.size(), 8u);
  for (const auto& [pair, count] : drawn) {
    EXPECT_LT(pair.first, 2);
    EXPECT_LT(pair.second, 4);
    EXPECT_GT(count, 8) << "(" << pair.first << ", " << pair.second << ")";
    EXPECT_LT(count, 45) << "(" << pair.first << ", " << pair.second << ")";
  }
  // Reproducible under a seed.
  manual_seed(5);
  const Tensor a = AF::dither(wave, "GPDF");
  manual_seed(5);
  EXPECT_TRUE(AF::dither(wave, "GPDF").equal(a));
}

TEST(AudioEffects, DitherGpdfOffsetsAreSumsOfSevenDrawableSamples) {
  // Whole-number samples k: wave * 32766 is whole, so the rounded result
  // minus it is the GPDF offset itself, a sum of 7 drawn samples.
  const Tensor wave = arange(0, 15, kFloat64).reshape({3, 5});  // drawable: 0-3, 5-8 (mean 4, variance 7.5)
  manual_seed(21);
  double sum = 0;
  const int trials = 400;
  for (int trial = 0; trial < trials; ++trial) {
    const Tensor offset = AF::dither(wave, "GPDF") * 32768 - wave * 32766;
    const double s = offset[0][0].item<double>();
    ASSERT_TRUE(offset.eq(s).all().item<bool>()) << "one offset for every sample";
    ASSERT_EQ(s, std::round(s));
    ASSERT_GE(s, 0.0);
    ASSERT_LE(s, 56.0);
    sum += s;
  }
  // Mean 7 * 4 = 28; the mean of 400 has a standard deviation of sqrt(7 * 7.5 / 400) = 0.36.
  EXPECT_NEAR(sum / trials, 28.0, 1.8);
}

TEST(AudioEffects, DitherGpdfSumsSevenSamples) {
  // GPDF adds the sum of 7 drawn samples: 3.5 for samples of 0.5 (Note
  // [Dither draws]: torchaudio's in-place sum may double it instead).
  const Tensor wave = ones({2, 6}, kFloat64) * 0.5;
  manual_seed(9);
  const Tensor out = AF::dither(wave, "GPDF");
  EXPECT_TRUE(out.equal((wave * 32766 + 3.5).round() / 32768));
  // One row (where torchaudio's GPDF fails): the first row is always drawn.
  manual_seed(9);
  const Tensor mono = AF::dither(wave[0], "GPDF");
  EXPECT_TRUE(mono.equal((wave[0] * 32766 + 3.5).round() / 32768));
}

TEST(AudioEffects, BadArgumentsRaise) {
  const Tensor wave = fixture("wave");
  EXPECT_NE(error_of([&] { AF::contrast(wave, 101.0); }).find("contrast: enhancement_amount"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::contrast(wave, -1.0); }).find("-1"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::gain(wave, std::nan("")); }).find("gain: gain_db"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::dcshift(wave, 0.5, std::nan("")); }).find("dcshift: limiter_gain"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::dcshift(wave.to(kInt32), 0.5); }).find("dcshift: expected a float32 or float64"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::dither(wave, "tpdf"); }).find("dither: density_function"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::dither(Tensor()); }).find("dither: waveform is an undefined tensor"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::gain(ones({}, kFloat64)); }).find("gain: expected a waveform of at least 1 dim"),
            std::string::npos);
}

}  // namespace effects_test
