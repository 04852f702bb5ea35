// pitch_shift (ember/audio/functional/spectral.h) against torchaudio 0.13
// (fixtures: scripts/fixtures/audio_spectral.py).
#include <gtest/gtest.h>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "spectral_testing.h"

namespace spectral_pitch_shift_test {

using namespace ember;
using namespace spectral_testing;
namespace AF = ember::audio::functional;

Tensor speech() { return fixture("speech_8k").to(kFloat64).narrow(-1, 0, 1200); }  // [1, 1200]

TEST(AudioPitchShift, MatchesTorchaudio) {
  const Tensor x = speech();
  const Tensor up = AF::pitch_shift(x, 8000, 12);
  EXPECT_EQ(up.sizes().vec(), x.sizes().vec());
  // The default window and the phase advance are float32 tensors (as torchaudio
  // builds them), whose last-bit rounding may differ from torch's linspace.
  expect_close(up, fixture("pitch_shift__up12"), 2e-9);
  const Tensor down = AF::pitch_shift(x.reshape({1, 1, 1200}), 8000, -12, 12, 256, std::nullopt, std::nullopt,
                                      hann_window(256, true, kFloat64));
  expect_close(down, fixture("pitch_shift__down12_n256"), 1e-10);
}

TEST(AudioPitchShift, Float32AndBatches) {
  const Tensor x = speech();
  const Tensor batch = cat({x, x * 0.5}, 0).to(kFloat32);  // [2, 1200]
  const Tensor shifted = AF::pitch_shift(batch, 8000, 12);
  EXPECT_EQ(shifted.dtype(), kFloat32);
  expect_close(shifted[0], fixture("pitch_shift__up12")[0].to(kFloat32), 1e-4);
  expect_close(shifted[1], (fixture("pitch_shift__up12")[0] * 0.5).to(kFloat32), 1e-4);
}

TEST(AudioPitchShift, Gradcheck) {
  manual_seed(4);
  const Tensor x = randn({1, 300}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{AF::pitch_shift(in[0], 8000, 12, 12, 64)}; },
      {x}));
}

TEST(AudioPitchShift, BadArgumentsRaise) {
  const Tensor x = speech();
  expect_error([&] { AF::pitch_shift(x, 0, 3); }, {"pitch_shift", "sample_rate", "0"});
  expect_error([&] { AF::pitch_shift(x, 8000, 3, 0); }, {"pitch_shift", "bins_per_octave", "0"});
  expect_error([&] { AF::pitch_shift(x.narrow(-1, 0, 100), 8000, 3); }, {"pitch_shift", "256", "100"});
  expect_error([&] { AF::pitch_shift(x, 8000, 3, 12, 512, 600); }, {"pitch_shift", "win_length", "600"});
  expect_error([&] { AF::pitch_shift(x, 8000, -200); }, {"pitch_shift", "n_steps"});
}

}  // namespace spectral_pitch_shift_test
