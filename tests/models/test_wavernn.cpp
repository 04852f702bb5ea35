// WaveRNN against torchaudio 0.13 (scripts/fixtures/models_speech.py): the
// documented configuration's state_dict, a torchaudio random-init checkpoint
// loaded strictly with its eval- and train-mode forward logits, infer()
// replaying torchaudio's sampled classes with every step's logits compared
// (torch's mt19937 multinomial draws cannot be reproduced by Ember's Philox
// generator), the default sampler's distribution and seeding, argument errors.
#include <gtest/gtest.h>

#include <cmath>

#include <ember/ember.h>
#include <ember/models/wavernn.h>

#include "speech_models_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace wavernn_test {

models::WaveRNNOptions small_options() {
  return {.upsample_scales = {2, 3}, .n_classes = 16, .hop_length = 6, .n_res_block = 2, .n_rnn = 16, .n_fc = 12,
          .kernel_size = 5, .n_freq = 8, .n_hidden = 8, .n_output = 8};
}

models::WaveRNN loaded() {
  models::WaveRNN net(small_options());
  net->load_state_dict(serialize::load_torch_state_dict(speech_fixture_path("wavernn.pt")), /*strict=*/true);
  return net;
}

TEST(WaveRNN, StateDictMatchesTorchaudio) {
  models::WaveRNN net({.upsample_scales = {5, 5, 8}, .n_classes = 512, .hop_length = 200});
  expect_torchaudio_state_dict(*net, "wavernn_default");
  EXPECT_EQ(net->n_aux, 32);
  EXPECT_EQ(net->n_bits, 9);
  EXPECT_EQ(net->upsample->indent, 2 * 200);
  // The upsampling convolutions start as moving averages (torchaudio's init).
  const auto params = net->named_parameters();
  const Tensor w = params.at("upsample.upsample_layers.5.weight");  // scale 8: [1, 1, 1, 17]
  EXPECT_EQ(w.sizes().vec(), (std::vector<int64_t>{1, 1, 1, 17}));
  EXPECT_EQ(w.min().item<float>(), 1.0f / 17.0f);
  EXPECT_EQ(w.max().item<float>(), 1.0f / 17.0f);
}

TEST(WaveRNN, ForwardMatchesTorchaudio) {
  auto net = loaded();
  const Tensor waveform = speech_fixture("wavernn_waveform"), specgram = speech_fixture("wavernn_specgram");
  NoGradGuard no_grad;
  net->eval();
  const Tensor eval_out = net(waveform, specgram);
  EXPECT_EQ(eval_out.sizes().vec(), (std::vector<int64_t>{2, 1, 24, 16}));
  expect_close_to_scale(eval_out, speech_fixture("wavernn_eval_out"), 1e-4, "wavernn eval");
  net->train();
  expect_close_to_scale(net(waveform, specgram), speech_fixture("wavernn_train_out"), 1e-4, "wavernn train");
}

// infer() fed torchaudio's chosen classes: each step's logits and the samples.
void check_replay(DType dtype) {
  auto net = loaded();
  net->to(dtype);
  net->eval();
  const Tensor expected_wave = speech_fixture("wavernn_infer_waveform");   // [2, 1, 30]
  const Tensor expected_logits = speech_fixture("wavernn_infer_logits");  // [30, 2, 16]
  const int64_t steps = expected_logits.size(0);
  std::vector<Tensor> logits;
  auto replay = [&](int64_t step, const Tensor& step_logits, std::span<int64_t> classes) {
    EXPECT_EQ(step, static_cast<int64_t>(logits.size()));
    logits.push_back(step_logits.clone());
    for (size_t b = 0; b < classes.size(); ++b) {
      const double x = expected_wave[static_cast<int64_t>(b)][0][step].item<double>();
      classes[b] = std::lround((x + 1) * 15 / 2);
    }
  };
  const auto [wave, lengths] =
      net->infer(speech_fixture("wavernn_infer_specgram").to(dtype), tensor({5, 3}, kInt64), replay);
  ASSERT_EQ(static_cast<int64_t>(logits.size()), steps);
  expect_close_to_scale(stack(logits), expected_logits, 1e-4, "wavernn infer logits");
  EXPECT_EQ(wave.dtype(), dtype);
  expect_close_to_scale(wave, expected_wave, 1e-6, "wavernn infer waveform");
  ASSERT_TRUE(lengths.has_value());
  EXPECT_TRUE(lengths->equal(speech_fixture("wavernn_infer_lengths")));
}

TEST(WaveRNN, InferReplaysTorchaudioSteps) { check_replay(kFloat32); }
TEST(WaveRNN, InferReplaysTorchaudioStepsFloat64) { check_replay(kFloat64); }

TEST(WaveRNN, InferSamplesTheSoftmax) {
  // fc3 ignores its input: every step's distribution is softmax(bias) = p.
  auto net = loaded();
  net->eval();
  std::vector<double> p(16);
  double total = 0;
  for (int c = 0; c < 16; ++c) total += p[c] = 1.0 + (c % 5);
  for (double& v : p) v /= total;
  {
    NoGradGuard no_grad;
    net->fc3->weight.zero_();
    for (int c = 0; c < 16; ++c) net->fc3->bias[c].fill_(std::log(p[c]));
  }
  const Tensor mel = randn({4, 8, 100});
  Generator gen(5);
  const auto [wave, lengths] = net->infer(mel, std::nullopt, &gen);
  EXPECT_FALSE(lengths.has_value());
  ASSERT_EQ(wave.sizes().vec(), (std::vector<int64_t>{4, 1, 600}));
  std::vector<int64_t> counts(16, 0);
  const Tensor flat = wave.flatten().contiguous();
  const float* data = flat.data_ptr<float>();
  for (int64_t i = 0; i < flat.numel(); ++i) {
    const long c = std::lround((static_cast<double>(data[i]) + 1) * 15 / 2);
    ASSERT_TRUE(c >= 0 && c < 16) << data[i];
    ++counts[static_cast<size_t>(c)];
  }
  const double n = static_cast<double>(flat.numel());
  for (int c = 0; c < 16; ++c) {
    const double sd = std::sqrt(n * p[c] * (1 - p[c]));
    EXPECT_NEAR(static_cast<double>(counts[c]), n * p[c], 5 * sd) << "class " << c;
  }
  // Seeded: the same generator seed gives the same audio, another seed other audio.
  Generator again(5), other(6);
  EXPECT_TRUE(net->infer(mel, std::nullopt, &again).first.equal(wave));
  EXPECT_FALSE(net->infer(mel, std::nullopt, &other).first.equal(wave));
}

TEST(WaveRNN, InferGreedySamplerIsDeterministic) {
  auto net = loaded();
  net->eval();
  auto greedy = [](int64_t, const Tensor& logits, std::span<int64_t> classes) {
    const Tensor best = logits.argmax(1);
    for (size_t b = 0; b < classes.size(); ++b) classes[b] = best[static_cast<int64_t>(b)].item<int64_t>();
  };
  const Tensor mel = speech_fixture("wavernn_infer_specgram");
  const auto a = net->infer(mel, std::nullopt, greedy).first;
  const auto b = net->infer(mel, std::nullopt, greedy).first;
  EXPECT_TRUE(a.equal(b));
  // Batched generation equals generating each element alone.
  const auto first = net->infer(mel.slice(0, 0, 1), std::nullopt, greedy).first;
  EXPECT_LT((a.slice(0, 0, 1) - first).abs().max().item<double>(), 1e-6);
}

TEST(WaveRNN, BadArgumentsRaise) {
  auto opts = small_options();
  opts.hop_length = 7;
  EXPECT_THROW(models::WaveRNN{opts}, Error);  // 2 * 3 != 7
  opts = small_options();
  opts.kernel_size = 4;
  EXPECT_THROW(models::WaveRNN{opts}, Error);
  opts = small_options();
  opts.n_classes = 1;
  EXPECT_THROW(models::WaveRNN{opts}, Error);
  opts = small_options();
  opts.upsample_scales = {};
  EXPECT_THROW(models::WaveRNN{opts}, Error);
  opts = small_options();
  opts.n_output = 3;
  EXPECT_THROW(models::WaveRNN{opts}, Error);
  try {
    opts = small_options();
    opts.hop_length = 7;
    models::WaveRNN net(opts);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hop_length"), std::string::npos) << e.what();
  }

  auto net = loaded();
  net->eval();
  const Tensor waveform = speech_fixture("wavernn_waveform"), specgram = speech_fixture("wavernn_specgram");
  EXPECT_THROW(net(waveform.repeat({1, 2, 1}), specgram), Error);  // two channels
  EXPECT_THROW(net(waveform, specgram.repeat({1, 2, 1, 1})), Error);
  EXPECT_THROW(net(waveform.slice(2, 0, 20), specgram), Error);    // length not (frames - 4) * 6
  EXPECT_THROW(net(waveform, specgram.slice(2, 0, 7)), Error);     // n_freq
  const Tensor mel = speech_fixture("wavernn_infer_specgram");
  EXPECT_THROW(net->infer(mel.slice(1, 0, 7)), Error);
  EXPECT_THROW(net->infer(mel.unsqueeze(1)), Error);
  EXPECT_THROW(net->infer(mel, tensor({5.0, 3.0})), Error);       // float lengths
  EXPECT_THROW(net->infer(mel, tensor({5}, kInt64)), Error);       // wrong count
  EXPECT_THROW(net->infer(mel.to(kFloat64)), Error);               // dtype differs from the weights
  EXPECT_THROW(net->infer(mel.slice(2, 0, 0)), Error);
  auto bad = [](int64_t, const Tensor&, std::span<int64_t> classes) {
    for (auto& c : classes) c = 16;
  };
  EXPECT_THROW(net->infer(mel, std::nullopt, bad), Error);
}

}  // namespace wavernn_test
