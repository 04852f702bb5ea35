// ember::audio::functional against torchaudio 0.13
// (fixtures: scripts/fixtures/audio_functional.py).
#include <gtest/gtest.h>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "npy.h"

namespace functional_test {

using namespace ember;
namespace AF = ember::audio::functional;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/functional/" + name + ".npy"));
}

void expect_close(const Tensor& actual, const Tensor& expected, double tol) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  const double diff = (actual.to(kFloat64) - expected.to(kFloat64)).abs().max().item<double>();
  EXPECT_LE(diff, tol);
}

TEST(AudioFunctional, AmplitudeToDBMatchesTorchaudio) {
  const Tensor spec = fixture("spec");
  expect_close(AF::amplitude_to_DB(spec, 10.0, 1e-10, 0.0), fixture("amplitude_to_DB__power"), 1e-10);
  expect_close(AF::amplitude_to_DB(spec, 20.0, 1e-5, 1.5, 30.0), fixture("amplitude_to_DB__top_db"), 1e-10);
  expect_close(AF::amplitude_to_DB(spec[0][0], 10.0, 1e-10, 0.0, 20.0), fixture("amplitude_to_DB__top_db_2d"), 1e-10);
  // float32 follows the same formula at float32 precision.
  expect_close(AF::amplitude_to_DB(spec.to(kFloat32), 10.0, 1e-10, 0.0),
               fixture("amplitude_to_DB__power").to(kFloat32), 1e-4);
}

TEST(AudioFunctional, DBToAmplitudeMatchesTorchaudio) {
  expect_close(AF::DB_to_amplitude(fixture("db"), 2.0, 0.5), fixture("DB_to_amplitude"), 1e-10);
  // float32 (values up to 20): torchaudio's float32 result to a few ulp.
  expect_close(AF::DB_to_amplitude(fixture("db").to(kFloat32), 2.0, 0.5), fixture("DB_to_amplitude__f32"), 1e-5);
}

TEST(AudioFunctional, MuLawMatchesTorchaudio) {
  const Tensor codes = AF::mu_law_encoding(fixture("wave"), 256);
  EXPECT_TRUE(codes.equal(fixture("mu_law_encoding")));
  expect_close(AF::mu_law_decoding(fixture("codes").to(kFloat64), 256), fixture("mu_law_decoding"), 1e-10);
  // float32 waveform and integer codes (decoded to float32), as torchaudio.
  EXPECT_TRUE(AF::mu_law_encoding(fixture("wave").to(kFloat32), 256).equal(fixture("mu_law_encoding__f32")));
  expect_close(AF::mu_law_decoding(fixture("codes"), 256), fixture("mu_law_decoding__int_codes"), 1e-6);
}

TEST(AudioFunctional, CreateDctMatchesTorchaudio) {
  expect_close(AF::create_dct(13, 40, "ortho"), fixture("create_dct__ortho"), 1e-6);
  expect_close(AF::create_dct(13, 40, std::nullopt), fixture("create_dct__none"), 1e-6);
  EXPECT_THROW(AF::create_dct(13, 40, "orth"), Error);
  EXPECT_THROW(AF::create_dct(0, 40, std::nullopt), Error);
}

TEST(AudioFunctional, MelscaleFbanksMatchesTorchaudio) {
  expect_close(AF::melscale_fbanks(201, 0.0, 8000.0, 40, 16000), fixture("melscale_fbanks__htk"), 1e-5);
  expect_close(AF::melscale_fbanks(257, 20.0, 7600.0, 64, 16000, "slaney", "slaney"),
               fixture("melscale_fbanks__slaney"), 1e-5);
  EXPECT_THROW(AF::melscale_fbanks(201, 0.0, 8000.0, 40, 16000, "area"), Error);
  EXPECT_THROW(AF::melscale_fbanks(201, 0.0, 8000.0, 40, 16000, std::nullopt, "mel"), Error);
}

TEST(AudioFunctional, LinearFbanksMatchesTorchaudio) {
  expect_close(AF::linear_fbanks(129, 100.0, 7000.0, 24, 16000), fixture("linear_fbanks"), 1e-5);
  EXPECT_THROW(AF::linear_fbanks(129, 100.0, 7000.0, 0, 16000), Error);
}

TEST(AudioFunctional, Gradcheck) {
  const Tensor spec = (fixture("spec") + 0.1).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{AF::amplitude_to_DB(in[0], 10.0, 1e-10, 0.0)}; },
      {spec}));
  const Tensor db = fixture("db").requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{AF::DB_to_amplitude(in[0], 2.0, 0.5)}; }, {db}));
  // mu_law_decoding of float codes is differentiable, as in torchaudio (encoding is not: integer output).
  const Tensor codes = (fixture("codes").to(kFloat64) + 0.25).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{AF::mu_law_decoding(in[0], 256)}; },
      {codes}));
}

TEST(AudioFunctional, BadArgumentsRaise) {
  const Tensor x = fixture("spec");
  EXPECT_THROW(AF::amplitude_to_DB(x, 10.0, 0.0, 0.0), Error);
  EXPECT_THROW(AF::amplitude_to_DB(x, 10.0, 1e-10, 0.0, -1.0), Error);
  EXPECT_THROW(AF::mu_law_encoding(x, 1), Error);
  EXPECT_THROW(AF::mu_law_decoding(x, 0), Error);
}

}  // namespace functional_test
