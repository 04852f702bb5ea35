// ConvTasNet against torchaudio 0.13 (scripts/fixtures/models_speech.py):
// conv_tasnet_base's state_dict keys and shapes, torchaudio's random-init
// checkpoints of two small configurations loaded strictly and their outputs
// (even and odd encoder kernels, with and without the end padding), one
// training step (MSE) against torch's float64 run, argument errors.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/models/conv_tasnet.h>

#include "speech_models_test_util.h"

using namespace ember;
using namespace ember::testing;
namespace F = ember::nn::functional;

namespace conv_tasnet_test {

models::ConvTasNet even_net() {
  return models::ConvTasNet({.num_sources = 2, .enc_kernel_size = 8, .enc_num_feats = 16, .msk_kernel_size = 3,
                             .msk_num_feats = 8, .msk_num_hidden_feats = 16, .msk_num_layers = 3,
                             .msk_num_stacks = 2, .msk_activate = "sigmoid"});
}
models::ConvTasNet odd_net() {
  return models::ConvTasNet({.num_sources = 3, .enc_kernel_size = 5, .enc_num_feats = 12, .msk_kernel_size = 3,
                             .msk_num_feats = 6, .msk_num_hidden_feats = 10, .msk_num_layers = 2,
                             .msk_num_stacks = 1, .msk_activate = "relu"});
}

models::ConvTasNet loaded(const std::string& c) {
  auto net = c == "even" ? even_net() : odd_net();
  net->load_state_dict(serialize::load_torch_state_dict(speech_fixture_path("convtasnet_" + c + ".pt")),
                       /*strict=*/true);
  return net;
}

TEST(ConvTasNet, BaseStateDictMatchesTorchaudio) {
  auto net = models::conv_tasnet_base();
  expect_torchaudio_state_dict(*net, "conv_tasnet_base");
  EXPECT_EQ(net->options.msk_activate, "relu");
  EXPECT_FALSE(net->mask_generator->sigmoid_mask);
  // torchaudio's receptive field: P for the first block, (P - 1) * dilation for each other.
  int64_t expected = 0;
  for (int s = 0; s < 3; ++s)
    for (int l = 0; l < 8; ++l) expected += s == 0 && l == 0 ? 3 : 2 * (int64_t(1) << l);
  EXPECT_EQ(net->mask_generator->receptive_field, expected);
  // The last block has no residual output.
  EXPECT_EQ(net->named_parameters().find("mask_generator.conv_layers.23.res_out.weight"), nullptr);
  EXPECT_NE(net->named_parameters().find("mask_generator.conv_layers.22.res_out.weight"), nullptr);
}

TEST(ConvTasNet, TorchaudioCheckpointsLoadAndMatch) {
  for (const std::string c : {"even", "odd"}) {
    auto net = loaded(c);
    NoGradGuard no_grad;
    const Tensor out = net(speech_fixture("convtasnet_" + c + "_in"));
    expect_close_to_scale(out, speech_fixture("convtasnet_" + c + "_out"), 1e-4, "convtasnet " + c);
  }
}

void check_train_step(DType dtype) {
  auto net = loaded("even");
  net->to(dtype);
  net->train();
  Tensor x = speech_fixture("convtasnet_even_in").to(dtype).requires_grad_(true);
  const Tensor out = net(x);
  const Tensor loss = F::mse_loss(out, speech_fixture("convtasnet_even_target").to(dtype));
  loss.backward();
  const std::string n = "convtasnet_even";
  expect_within_torch_error_speech(out, n + "_train_out");
  expect_within_torch_error_speech(loss, n + "_train_loss");
  expect_within_torch_error_speech(x.grad(), n + "_grad_input");
  expect_grad_norms(*net, n + "_grad_norms", dtype);
  const auto params = net->named_parameters();
  for (const std::string name :
       {"encoder.weight", "decoder.weight", "mask_generator.conv_layers.0.conv_layers.1.weight"})
    expect_within_torch_error_speech(params.at(name).grad(), n + "_g_" + name);
}

TEST(ConvTasNet, TrainStepMatchesTorchFloat64) { check_train_step(kFloat32); }
TEST(ConvTasNet, TrainStepFloat64) { check_train_step(kFloat64); }

TEST(ConvTasNet, OutputKeepsTheInputLength) {
  auto net = odd_net();
  NoGradGuard no_grad;
  for (int64_t frames : {1, 2, 3, 50, 51}) {
    const Tensor out = net(randn({2, 1, frames}));
    EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 3, frames})) << frames;
  }
  auto even = even_net();
  EXPECT_EQ(even(randn({1, 1, 7})).sizes().vec(), (std::vector<int64_t>{1, 2, 7}));
}

TEST(ConvTasNet, BadArgumentsRaise) {
  EXPECT_THROW(models::ConvTasNet({.msk_activate = "tanh"}), Error);
  EXPECT_THROW(models::ConvTasNet({.num_sources = 0}), Error);
  EXPECT_THROW(models::ConvTasNet({.enc_kernel_size = 1}), Error);
  EXPECT_THROW(models::ConvTasNet({.msk_kernel_size = 5}), Error);
  EXPECT_THROW(models::ConvTasNet({.msk_num_layers = 0}), Error);
  EXPECT_THROW(models::ConvTasNet({.enc_num_feats = 0}), Error);
  auto net = odd_net();
  EXPECT_THROW(net(randn({2, 2, 100})), Error);  // two channels
  EXPECT_THROW(net(randn({1, 100})), Error);     // 2-d
  EXPECT_THROW(net(ones({1, 1, 100}, kInt64)), Error);
  EXPECT_THROW(net(randn({1, 1, 0})), Error);
  try {
    models::ConvTasNet({.msk_activate = "tanh"});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tanh"), std::string::npos) << e.what();
  }
}

}  // namespace conv_tasnet_test
