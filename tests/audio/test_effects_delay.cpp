// overdrive, phaser and flanger against torchaudio 0.13 (fixtures:
// scripts/fixtures/audio_effects.py), their batch shapes, gradients of the
// linear loops (Note [Effects as linear maps]) and bad arguments.
#include <gtest/gtest.h>

#include <string>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "effects_testing.h"

namespace effects_delay_test {

using namespace ember;
namespace AF = ember::audio::functional;
using namespace effects_testing;

bool check_gradients(const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
  const auto fn = [&](const autograd::variable_list& in) { return autograd::variable_list{f(in[0])}; };
  const Tensor input = x.detach().clone().requires_grad_();
  return autograd::gradcheck(fn, {input}) && autograd::gradgradcheck(fn, {input});
}

TEST(AudioEffectsDelay, OverdriveMatchesTorchaudio) {
  const Tensor sig = fixture("sig");  // [2, 2, 400]
  expect_close(AF::overdrive(sig), fixture("overdrive__default"), 1e-12);
  expect_close(AF::overdrive(sig, 35.0, 70.0), fixture("overdrive__hot"), 1e-12);
  // float32: torchaudio's C++ loop sums in double and stores float32, as the
  // kernel does; the output's 0.5 x + 0.75 y is two float32 ops here.
  expect_close(AF::overdrive(sig.to(kFloat32)), fixture("overdrive__default_f32"), 2e-7);
}

TEST(AudioEffectsDelay, PhaserMatchesTorchaudio) {
  const Tensor sig = fixture("sig");
  expect_close(AF::phaser(sig, 4000), fixture("phaser__default"), 1e-12);
  expect_close(AF::phaser(sig, 2000, 0.6, 0.9, 4.0, 0.5, 2.0, false), fixture("phaser__triangle"), 1e-12);
  // float32: the same operations in float32, in torchaudio's order.
  expect_close(AF::phaser(sig.to(kFloat32), 4000), fixture("phaser__default_f32"), 0.0);
}

TEST(AudioEffectsDelay, FlangerMatchesTorchaudio) {
  const Tensor sig = fixture("sig");
  expect_close(AF::flanger(sig, 4000), fixture("flanger__default"), 1e-12);
  expect_close(AF::flanger(sig, 4000, 2.0, 5.0, -30.0, 60.0, 9.5, 60.0, "triangular", "quadratic"),
               fixture("flanger__triangular_quadratic"), 1e-12);
  expect_close(AF::flanger(sig, 8000, 1.0, 3.0, 40.0, 80.0, 7.0, 33.0, "sinusoidal", "quadratic"),
               fixture("flanger__sinusoidal_quadratic"), 1e-12);
  expect_close(AF::flanger(sig, 4000, 0.5, 1.5, 95.0, 100.0, 3.0, 100.0, "triangular", "linear"),
               fixture("flanger__triangular_linear"), 1e-12);
  expect_close(AF::flanger(sig.reshape({1, 4, 400}), 4000, 0.0, 4.0, -10.0, 71.0, 5.0, 25.0),
               fixture("flanger__four_channels"), 1e-12);
  expect_close(AF::flanger(sig.to(kFloat32), 4000), fixture("flanger__default_f32"), 0.0);
}

TEST(AudioEffectsDelay, EffectsKeepAnyBatchShape) {
  const Tensor sig = fixture("sig");  // [2, 2, 400]
  // overdrive and phaser: every leading dim is a batch dim.
  const Tensor row = sig[1][0];
  EXPECT_TRUE(AF::overdrive(row).equal(AF::overdrive(sig)[1][0]));
  EXPECT_TRUE(AF::phaser(row, 4000).equal(AF::phaser(sig, 4000)[1][0]));
  EXPECT_TRUE(AF::phaser(sig.reshape({2, 1, 2, 400}), 4000).reshape({2, 2, 400}).equal(AF::phaser(sig, 4000)));
  // flanger: dim -2 is the channel (each phase-shifted), the rest batch.
  const Tensor item = sig[1];
  EXPECT_TRUE(AF::flanger(item, 4000).equal(AF::flanger(sig, 4000)[1]));
  EXPECT_TRUE(AF::flanger(sig.unsqueeze(0), 4000).squeeze(0).equal(AF::flanger(sig, 4000)));
  // Non-contiguous input.
  const Tensor strided = sig.transpose(0, 1).contiguous().transpose(0, 1);
  EXPECT_TRUE(AF::flanger(strided, 4000).equal(AF::flanger(sig, 4000)));
  // Empty time axis.
  EXPECT_EQ(AF::phaser(zeros({3, 0}, kFloat64), 4000).sizes().vec(), (std::vector<int64_t>{3, 0}));
}

TEST(AudioEffectsDelay, Gradcheck) {
  // Small enough to stay inside the clamps (the loops are linear maps).
  const Tensor x = fixture("sig").narrow(-1, 0, 60) * 0.2;
  EXPECT_TRUE(check_gradients([](const Tensor& t) { return AF::overdrive(t, 10.0, 20.0); }, x));
  EXPECT_TRUE(check_gradients([](const Tensor& t) { return AF::phaser(t, 2000, 0.6, 0.9, 4.0, 0.5, 2.0, false); }, x));
  EXPECT_TRUE(check_gradients([](const Tensor& t) { return AF::phaser(t, 4000); }, x));
  EXPECT_TRUE(check_gradients([](const Tensor& t) { return AF::flanger(t, 4000, 2.0, 5.0, -30.0, 60.0, 9.5, 60.0,
                                                                       "triangular", "quadratic"); },
                              x));
  EXPECT_TRUE(check_gradients([](const Tensor& t) { return AF::flanger(t, 4000, 0.5, 1.5, 40.0, 80.0, 9.0); }, x));
}

TEST(AudioEffectsDelay, BadArgumentsRaise) {
  const Tensor sig = fixture("sig");
  EXPECT_NE(error_of([&] { AF::phaser(sig, 0); }).find("phaser: sample_rate must be positive, got 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::phaser(sig, 4000, 0.4, 0.74, 0.0); }).find("phaser: delay_ms"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::phaser(sig, 4000, 0.4, 0.74, 3.0, 0.4, -1.0); }).find("phaser: mod_speed"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::phaser(sig, 4000, std::nan("")); }).find("phaser: gain_in"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::flanger(sig[0][0], 4000); }).find("flanger: expected a waveform of at least 2 dims"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::flanger(sig.reshape({1, 8, 200}), 4000); }).find("1 to 4 channels (dim -2), got 8"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::flanger(sig, 4000, 0, 2, 0, 71, 0.5, 25, "square"); }).find("\"square\""),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::flanger(sig, 4000, 0, 2, 0, 71, 0.5, 25, "sinusoidal", "cubic"); })
                .find("flanger: interpolation"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::flanger(sig, 4000, -1.0); }).find("flanger: delay must be non-negative, got -1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::flanger(sig, 4000, 0, 2, 0, 71, 0.0); }).find("flanger: speed"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::overdrive(sig, std::nan("")); }).find("overdrive: gain"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::overdrive(sig.to(kFloat16)); }).find("overdrive: expected a float32 or float64"),
            std::string::npos);
}

}  // namespace effects_delay_test
