// vad against torchaudio 0.13 on speech after noise (fixtures:
// scripts/fixtures/audio_effects.py), with each of its parameters, the
// slicing of Note [vad slicing] and bad arguments.
#include <gtest/gtest.h>

#include <string>

#include <ember/audio/functional.h>
#include <ember/core/warning.h>
#include <ember/ember.h>

#include "effects_testing.h"

namespace effects_vad_test {

using namespace ember;
namespace AF = ember::audio::functional;
using namespace effects_testing;

// hts1a speech after noise, [2, 12000] at 8 kHz (int16 codes / 32768).
Tensor speech() { return fixture("vad_codes").to(kFloat64) / 32768; }

int64_t expected_length(int64_t index) { return fixture("vad_lengths")[index].item<int64_t>(); }

// vad's result must be the end of its input, `length` samples long.
void expect_trimmed(const Tensor& out, const Tensor& in, int64_t length) {
  ASSERT_EQ(out.size(-1), length);
  EXPECT_TRUE(out.equal(in.narrow(-1, in.size(-1) - length, length)));
}

TEST(AudioEffectsVad, MatchesTorchaudio) {
  const Tensor x = speech();
  expect_trimmed(AF::vad(x, 8000), x, expected_length(0));
  expect_trimmed(AF::vad(x[1], 8000), x[1], expected_length(1));
  const Tensor front = x[0].narrow(0, 0, 5200);
  expect_trimmed(AF::vad(front, 8000), front, expected_length(2));
  expect_trimmed(AF::vad(x, 8000, 5.0, 0.25, 0.6, 0.1, 0.1), x, expected_length(3));
  expect_trimmed(AF::vad(x, 8000, 7.0, 0.1, 1.0, 0.25, 0.0, 0.2, 0.2, 0.02, 1.0, 25.0, 0.06, 0.3, 80.0, 3000.0,
                         200.0, 1500.0),
                 x, expected_length(4));
  // Silence never triggers: torchaudio's slice start is then negative
  // (Note [vad slicing]), and a clip this short comes back whole.
  const Tensor silence = zeros({2, 3000}, kFloat64);
  expect_trimmed(AF::vad(silence, 8000), silence, expected_length(5));
  // 16 kHz, the defaults (a 2048-point measurement): each sample twice.
  const Tensor held = x.repeat_interleave(2, -1);
  expect_trimmed(AF::vad(held, 16000), held, expected_length(6));
}

TEST(AudioEffectsVad, Float32AndViews) {
  const Tensor x = speech();
  // torchaudio measures in float32 whatever the input: float32 speech gives the same cut.
  const Tensor x32 = x.to(kFloat32);
  expect_trimmed(AF::vad(x32, 8000), x32, expected_length(0));
  // The result is a view of the input, as torchaudio's slice.
  const Tensor out = AF::vad(x, 8000);
  EXPECT_EQ(out.data_ptr<double>(), x.data_ptr<double>() + (x.size(-1) - out.size(-1)));
}

TEST(AudioEffectsVad, SilenceLongerThanTheBufferKeepsItsEnd) {
  // 8 kHz defaults: samplesLen_ns = 0 + 20 * 400 + 800 = 8800 samples.
  const Tensor silence = zeros({1, 20000}, kFloat64);
  EXPECT_EQ(AF::vad(silence, 8000).size(-1), 8800);
  EXPECT_EQ(AF::vad(zeros({0}, kFloat64), 8000).size(-1), 0);
}

TEST(AudioEffectsVad, LeadingDimsAreChannelsOfOneRecording) {
  const Tensor x = speech();
  WarningCapture capture;
  const Tensor out = AF::vad(x.reshape({2, 1, 12000}), 8000);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 1, expected_length(0)}));
  EXPECT_EQ(capture.messages().size(), 1u);
}

TEST(AudioEffectsVad, BadArgumentsRaise) {
  const Tensor x = speech();
  EXPECT_NE(error_of([&] { AF::vad(x, 0); }).find("vad: sample_rate must be positive, got 0"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::vad(x, 8000, 7.0, 0.0); }).find("vad: trigger_time"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::vad(x, 8000, 7.0, 0.25, 0.0); }).find("vad: search_time"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::vad(x, 8000, 7.0, 0.25, 1.0, -0.1); }).find("vad: allowed_gap"), std::string::npos);
  EXPECT_NE(error_of([&] {
              AF::vad(x, 8000, 7.0, 0.25, 1.0, 0.25, 0.0, 0.35, 0.1, 0.01, 1.35, 20.0, std::nullopt, 0.4, 50.0, 6000.0,
                      3000.0, 2000.0);
            }).find("vad: expected cepstrum_start < cepstrum_end"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              AF::vad(x, 8000, 7.0, 0.25, 1.0, 0.25, 0.0, 0.35, 0.1, 0.01, 1.35, 20.0, std::nullopt, 0.4, 5000.0,
                      100.0);
            }).find("vad: hp_filter_freq = 5000"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::vad(x, 8000, std::nan("")); }).find("vad: trigger_level"), std::string::npos);
  EXPECT_NE(error_of([&] { AF::vad(x, 8000, 7.0, 0.25, 1.0, 0.25, 0.0, 0.35, 0.1, 0.01, 1.35, 20.0, 1e-6); })
                .find("vad: measure_duration"),
            std::string::npos);
  EXPECT_NE(error_of([&] { AF::vad(x.to(kInt16), 8000); }).find("vad: expected a float32 or float64"),
            std::string::npos);
}

}  // namespace effects_vad_test
