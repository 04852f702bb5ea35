// Wav2Letter against torchaudio 0.13 (scripts/fixtures/models_speech.py):
// state_dict keys and shapes of the three input types, strict loading of a
// torchaudio-structured checkpoint, eval-mode log-probabilities with hashed
// weights (waveform and MFCC inputs), one training step (CTC loss) against
// torch's float64 run, default init, argument errors.
#include <gtest/gtest.h>

#include <cmath>

#include <ember/ember.h>
#include <ember/models/wav2letter.h>

#include "speech_models_test_util.h"

using namespace ember;
using namespace ember::testing;
namespace F = ember::nn::functional;

namespace wav2letter_test {

TEST(Wav2Letter, StateDictMatchesTorchaudio) {
  expect_torchaudio_state_dict(*models::Wav2Letter(), "wav2letter_waveform");
  expect_torchaudio_state_dict(*models::Wav2Letter(29, "mfcc", 13), "wav2letter_mfcc");
  expect_torchaudio_state_dict(*models::Wav2Letter({.input_type = "power_spectrum", .num_features = 201}),
                               "wav2letter_power_spectrum");
}

TEST(Wav2Letter, LoadsTorchaudioCheckpointStrictly) {
  models::Wav2Letter net(29);
  const StateDict sd = serialize::load_torch_state_dict(speech_fixture_path("wav2letter_const.pt"));
  net->load_state_dict(sd, /*strict=*/true);
  // Entry k holds the constant (k % 61) * 0.125 - 3 (write_const_checkpoint).
  int64_t k = 0;
  for (const auto& [key, t] : net->state_dict()) {
    const float expected = static_cast<float>(k % 61) * 0.125f - 3.0f;
    EXPECT_EQ(t.min().item<float>(), expected) << key;
    EXPECT_EQ(t.max().item<float>(), expected) << key;
    ++k;
  }
  // A checkpoint of another configuration is refused with the key named.
  models::Wav2Letter other(40);
  EXPECT_THROW(other->load_state_dict(sd, /*strict=*/true), Error);
}

TEST(Wav2Letter, WaveformEvalMatchesTorchaudio) {
  models::Wav2Letter net(29);
  fill_hashed(*net);
  net->eval();
  NoGradGuard no_grad;
  const Tensor out = net(speech_fixture("wav2letter_waveform_in"));
  expect_close_to_scale(out, speech_fixture("wav2letter_waveform_eval_out"), 1e-4, "wav2letter waveform");
}

TEST(Wav2Letter, MfccEvalMatchesTorchaudio) {
  models::Wav2Letter net(29, "mfcc", 13);
  fill_hashed(*net);
  net->eval();
  NoGradGuard no_grad;
  const Tensor out = net(speech_fixture("wav2letter_mfcc_in"));
  expect_close_to_scale(out, speech_fixture("wav2letter_mfcc_eval_out"), 1e-4, "wav2letter mfcc");
}

// CTC loss of the log-probabilities, forward and backward, against torch's float64 run.
void check_train_step(DType dtype) {
  models::Wav2Letter net(29);
  fill_hashed(*net);
  net->to(dtype);
  net->train();
  Tensor x = speech_fixture("wav2letter_waveform_in").to(dtype).requires_grad_(true);
  const Tensor out = net(x);
  const Tensor targets =
      tensor({5, 3, 9, 12, 1, 28, 7, 7, 14, 2, 8, 21, 4, 4, 17, 3, 9, 0, 0, 0}, kInt64).reshape({2, 10});
  const Tensor loss = F::ctc_loss(out.permute({2, 0, 1}), targets, IntArrayRef{16, 13}, IntArrayRef{10, 7});
  loss.backward();

  const std::string n = "wav2letter_waveform";
  expect_within_torch_error_speech(out, n + "_train_out");
  expect_within_torch_error_speech(loss, n + "_train_loss");
  expect_grad_norms(*net, n + "_grad_norms", dtype);
  const auto params = net->named_parameters();
  expect_within_torch_error_speech(params.at("acoustic_model.0.0.weight").grad().slice(0, 0, 16),
                                   n + "_grad_first_conv");
  expect_within_torch_error_speech(params.at("acoustic_model.1.20.weight").grad().slice(1, 0, 64),
                                   n + "_grad_last_conv");
  expect_within_torch_error_speech(x.grad().slice(2, 0, 1500), n + "_grad_input");
}

TEST(Wav2Letter, TrainStepMatchesTorchFloat64) { check_train_step(kFloat32); }
TEST(Wav2Letter, TrainStepFloat64) { check_train_step(kFloat64); }

TEST(Wav2Letter, OutputShapesAndDefaultInit) {
  models::Wav2Letter net(29, "power_spectrum", 201);
  NoGradGuard no_grad;
  const Tensor out = net(randn({3, 201, 50}));
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{3, 29, 26}));
  // log_softmax over the classes: each frame's probabilities sum to 1.
  EXPECT_LT((out.exp().sum(1) - 1).abs().max().item<double>(), 1e-5);
  // PyTorch's Conv1d default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) weights (kaiming_uniform, a = sqrt 5).
  const Tensor w = net->named_parameters().at("acoustic_model.16.weight");  // [2000, 250, 32]
  const double bound = 1.0 / std::sqrt(250.0 * 32.0);
  EXPECT_LE(w.abs().max().item<double>(), bound * (1 + 1e-6));  // the bound rounded to float
  EXPECT_NEAR(w.std().item<double>(), bound / std::sqrt(3.0), 0.01 * bound);
}

TEST(Wav2Letter, BadArgumentsRaise) {
  EXPECT_THROW(models::Wav2Letter(40, "spectrogram"), Error);
  EXPECT_THROW(models::Wav2Letter(0), Error);
  EXPECT_THROW(models::Wav2Letter(40, "mfcc", 0), Error);
  models::Wav2Letter net(29, "mfcc", 13);
  EXPECT_THROW(net(randn({2, 12, 40})), Error);   // wrong number of features
  EXPECT_THROW(net(randn({13, 40})), Error);      // unbatched
  EXPECT_THROW(net(ones({2, 13, 40}, kInt64)), Error);
  try {
    models::Wav2Letter(40, "spectrogram");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input_type"), std::string::npos) << e.what();
  }
}

}  // namespace wav2letter_test
