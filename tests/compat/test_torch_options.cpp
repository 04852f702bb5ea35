// libtorch's option builders for pooling, normalization, attention and
// transformer layers, Flatten, and the schedulers' libtorch constructors, as
// a libtorch program spells them: each converts to Ember's options (checked
// field by field) and the module runs (values checked by hand-computed
// references).
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <cmath>

namespace nn = torch::nn;

TEST(TorchOptions, Pooling) {
  // 1x1x5x5 of 0..24: a 3x3 window with stride 2 has its maximum at its bottom-right corner.
  const torch::Tensor x = torch::arange(25, torch::kFloat32).reshape({1, 1, 5, 5});
  nn::MaxPool2d max_pool(nn::MaxPool2dOptions(3).stride(2));
  EXPECT_EQ(max_pool->options.stride.values, (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(torch::equal(max_pool(x), torch::tensor({12.f, 14.f, 22.f, 24.f}).reshape({1, 1, 2, 2})));
  // stride defaults to the kernel size, as libtorch's.
  nn::MaxPool2d max_default(nn::MaxPool2dOptions({2, 2}).padding(0).dilation(1).ceil_mode(true));
  EXPECT_EQ(max_default->options.stride.values, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(max_default(x).sizes(), (std::vector<int64_t>{1, 1, 3, 3}));
  // Average of the 3x3 window at the top left: (0+1+2+5+6+7+10+11+12)/9 = 6.
  nn::AvgPool2d avg_pool(nn::AvgPool2dOptions(3).stride(2).count_include_pad(false));
  EXPECT_FLOAT_EQ(avg_pool(x)[0][0][0][0].item<float>(), 6.f);
  nn::AvgPool2d avg_div(nn::AvgPool2dOptions(3).stride(2).divisor_override(3));
  EXPECT_FLOAT_EQ(avg_div(x)[0][0][0][0].item<float>(), 18.f);
  const torch::Tensor x1 = torch::arange(6, torch::kFloat32).reshape({1, 1, 6});
  nn::MaxPool1d max1(nn::MaxPool1dOptions(2));
  EXPECT_TRUE(torch::equal(max1(x1), torch::tensor({1.f, 3.f, 5.f}).reshape({1, 1, 3})));
  nn::AvgPool1d avg1(nn::AvgPool1dOptions(3).stride(3));
  EXPECT_TRUE(torch::equal(avg1(x1), torch::tensor({1.f, 4.f}).reshape({1, 1, 2})));
  nn::MaxPool3d max3(nn::MaxPool3dOptions(2));
  EXPECT_EQ(max3(torch::zeros({1, 1, 4, 4, 4})).sizes(), (std::vector<int64_t>{1, 1, 2, 2, 2}));
}

TEST(TorchOptions, Normalization) {
  // Rows [0, 1, 2, 3] and [4, 5, 6, 7]: each normalizes to (k - 1.5) / sqrt(1.25 + eps).
  const torch::Tensor x = torch::arange(8, torch::kFloat64).reshape({2, 4});
  nn::LayerNorm ln(nn::LayerNormOptions({4}).eps(1e-3).elementwise_affine(false));
  EXPECT_EQ(ln->options.eps, 1e-3);
  EXPECT_FALSE(ln->options.elementwise_affine);
  EXPECT_EQ(ln->parameters().size(), 0u);
  const torch::Tensor y = ln(x);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t k = 0; k < 4; ++k)
      EXPECT_NEAR(y[r][k].item<double>(), (static_cast<double>(k) - 1.5) / std::sqrt(1.25 + 1e-3), 1e-12);

  nn::GroupNorm gn(nn::GroupNormOptions(2, 4).eps(1e-5).affine(true));
  EXPECT_EQ(gn->options.num_groups, 2);
  EXPECT_EQ(gn->options.num_channels, 4);
  EXPECT_EQ(gn->parameters().size(), 2u);
  // Channels [0, 1] and [2, 3] of one sample (one value each) form the groups: +-1 after normalization.
  const torch::Tensor g = gn(torch::tensor({1.f, 3.f, 10.f, 20.f}).reshape({1, 4, 1}));
  EXPECT_NEAR(g[0][0][0].item<float>(), -1 / std::sqrt(1 + 1e-5), 1e-6);
  EXPECT_NEAR(g[0][3][0].item<float>(), 5 / std::sqrt(25 + 1e-5), 1e-6);

  nn::Flatten flatten(nn::FlattenOptions().start_dim(0).end_dim(1));
  EXPECT_EQ(flatten(torch::zeros({2, 3, 4})).sizes(), (std::vector<int64_t>{6, 4}));
}

TEST(TorchOptions, AttentionAndTransformer) {
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(8, 2).dropout(0.0).bias(false).kdim(4).vdim(6));
  EXPECT_EQ(mha->options.embed_dim, 8);
  EXPECT_EQ(mha->options.num_heads, 2);
  EXPECT_FALSE(mha->options.bias);
  EXPECT_EQ(mha->options.kdim, 4);
  EXPECT_EQ(mha->options.vdim, 6);
  torch::manual_seed(0);
  const torch::Tensor q = torch::randn({3, 1, 8}), k = torch::randn({5, 1, 4}), v = torch::randn({5, 1, 6});
  auto [out, weights] = mha->forward(q, k, v);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 1, 8}));
  // The attention weights of each query are a distribution over the 5 keys.
  EXPECT_TRUE(torch::allclose(weights.sum(-1), torch::ones({1, 3}), 1e-5, 1e-6));

  nn::TransformerEncoderLayer enc(
      nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0).activation(torch::kGELU));
  EXPECT_EQ(enc->options.dim_feedforward, 16);
  EXPECT_EQ(enc->options.activation.name(), "gelu");
  enc->eval();
  const torch::Tensor src = torch::randn({4, 2, 8});
  const torch::Tensor encoded = enc(src);
  EXPECT_EQ(encoded.sizes(), src.sizes());
  // The layer ends in a LayerNorm without a learned shift yet: each position has mean 0.
  EXPECT_TRUE(torch::allclose(encoded.mean(-1), torch::zeros({4, 2}), 1e-5, 1e-5));

  nn::TransformerDecoderLayer dec(nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0));
  EXPECT_EQ(dec->options.activation.name(), "relu");
  dec->eval();
  EXPECT_EQ(dec(torch::randn({3, 2, 8}), src).sizes(), (std::vector<int64_t>{3, 2, 8}));

  nn::Transformer transformer(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16).dropout(0.0));
  EXPECT_EQ(transformer->options.num_encoder_layers, 1);
  EXPECT_EQ(transformer->options.num_decoder_layers, 1);
  transformer->eval();
  EXPECT_EQ(transformer->forward(src, torch::randn({3, 2, 8})).sizes(), (std::vector<int64_t>{3, 2, 8}));
  EXPECT_EQ(nn::TransformerOptions().d_model(), 512);
}

TEST(TorchOptions, SchedulersTakeLibtorchsArguments) {
  torch::Tensor w = torch::zeros({2}, torch::requires_grad());
  torch::optim::SGD sgd({w}, torch::optim::SGDOptions(1.0));
  torch::optim::StepLR scheduler(sgd, /*step_size=*/2, /*gamma=*/0.5);
  std::vector<double> lrs;
  for (int epoch = 0; epoch < 5; ++epoch) {
    lrs.push_back(sgd.param_groups()[0].lr());
    sgd.step();
    scheduler.step();
  }
  EXPECT_EQ(lrs, (std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.25}));
}
