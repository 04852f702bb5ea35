// The option builders of nn_more_options.h as a libtorch program spells them:
// each converts to Ember's options (checked field by field against libtorch
// 1.13's defaults, torch/nn/options/*.h) and the module runs (values checked
// by hand-computed references).
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <cmath>

namespace nn = torch::nn;

TEST(TorchMoreOptions, Activations) {
  const torch::Tensor x = torch::tensor({-2.0, -0.5, 0.0, 0.5, 3.0}, torch::kFloat64);
  nn::ELU elu(nn::ELUOptions().alpha(0.5));
  EXPECT_EQ(elu->options.alpha, 0.5);
  EXPECT_FALSE(elu->options.inplace);
  EXPECT_NEAR(elu(x)[0].item<double>(), 0.5 * (std::exp(-2.0) - 1), 1e-12);
  EXPECT_EQ(elu(x)[4].item<double>(), 3.0);
  nn::CELU celu(nn::CELUOptions().alpha(2.0));
  EXPECT_NEAR(celu(x)[0].item<double>(), 2.0 * (std::exp(-1.0) - 1), 1e-12);
  nn::ReLU relu(nn::ReLUOptions(true));
  EXPECT_TRUE(relu->options.inplace);
  EXPECT_FALSE(nn::ReLU6Options().inplace());
  EXPECT_TRUE(nn::SELUOptions(true).inplace());
  nn::GELU gelu(nn::GELUOptions().approximate("tanh"));
  EXPECT_EQ(gelu->options.approximate, "tanh");
  EXPECT_EQ(nn::GELUOptions().approximate(), "none");
  nn::Hardtanh hardtanh(nn::HardtanhOptions().min_val(-0.25).max_val(2.0));
  EXPECT_EQ(hardtanh(x)[0].item<double>(), -0.25);
  EXPECT_EQ(hardtanh(x)[4].item<double>(), 2.0);
  nn::Softplus softplus(nn::SoftplusOptions().beta(2.0).threshold(10.0));
  EXPECT_NEAR(softplus(x)[3].item<double>(), std::log1p(std::exp(1.0)) / 2, 1e-12);
  nn::Softshrink softshrink(nn::SoftshrinkOptions(1.0));
  EXPECT_EQ(softshrink(x)[0].item<double>(), -1.0);
  EXPECT_EQ(nn::HardshrinkOptions().lambda(), 0.5);
  nn::Hardshrink hardshrink(nn::HardshrinkOptions(1.0));
  EXPECT_EQ(hardshrink(x)[1].item<double>(), 0.0);
  nn::Threshold threshold(nn::ThresholdOptions(0.1, 20.0));
  EXPECT_EQ(threshold(x)[2].item<double>(), 20.0);
  EXPECT_EQ(threshold(x)[3].item<double>(), 0.5);
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(1).init(0.1));
  EXPECT_NEAR(prelu(x.to(torch::kFloat32))[0].item<float>(), -0.2f, 1e-7);
  const nn::RReLUOptions rrelu = nn::RReLUOptions().lower(0.1).upper(0.2);
  EXPECT_EQ(static_cast<ember::nn::RReLUOptions>(rrelu).upper, 0.2);
  EXPECT_EQ(nn::RReLUOptions().lower(), 1.0 / 8);
  EXPECT_EQ(nn::GLUOptions().dim(), -1);
  nn::GLU glu(nn::GLUOptions(0));
  EXPECT_NEAR(glu(torch::tensor({1.0, 0.0}, torch::kFloat64))[0].item<double>(), 0.5, 1e-12);
  // Softmax(dim): exp(k) / sum exp over [0, 1].
  nn::Softmax softmax(nn::SoftmaxOptions(0));
  const double z = 1 + std::exp(1.0);
  EXPECT_NEAR(softmax(torch::tensor({0.0, 1.0}, torch::kFloat64))[0].item<double>(), 1 / z, 1e-12);
  nn::LogSoftmax log_softmax(nn::LogSoftmaxOptions(0));
  EXPECT_NEAR(log_softmax(torch::tensor({0.0, 1.0}, torch::kFloat64))[1].item<double>(), 1 - std::log(z), 1e-12);
  nn::Softmin softmin(nn::SoftminOptions(0));
  EXPECT_NEAR(softmin(torch::tensor({0.0, 1.0}, torch::kFloat64))[0].item<double>(), std::exp(1.0) / z, 1e-12);
}

TEST(TorchMoreOptions, NormsUpsampleDistancesCells) {
  const ember::nn::InstanceNormOptions in = nn::InstanceNorm2dOptions(3).eps(1e-3).affine(true);
  EXPECT_EQ(in.num_features, 3);
  EXPECT_EQ(in.eps, 1e-3);
  EXPECT_EQ(in.momentum, 0.1);
  EXPECT_TRUE(in.affine);
  EXPECT_FALSE(in.track_running_stats);
  nn::InstanceNorm1d instance_norm(nn::InstanceNorm1dOptions(1));
  // One channel [1, 3]: (+-1) / sqrt(1 + 1e-5).
  EXPECT_NEAR(instance_norm(torch::tensor({1.0, 3.0}, torch::kFloat64).reshape({1, 1, 2}))[0][0][1].item<double>(),
              1 / std::sqrt(1 + 1e-5), 1e-12);
  const ember::nn::LocalResponseNormOptions lrn = nn::LocalResponseNormOptions(5).k(2.0);
  EXPECT_EQ(lrn.size, 5);
  EXPECT_EQ(lrn.alpha, 1e-4);
  EXPECT_EQ(lrn.beta, 0.75);
  EXPECT_EQ(lrn.k, 2.0);

  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>({2, 2})).mode(torch::kNearest));
  const torch::Tensor small = torch::arange(4, torch::kFloat32).reshape({1, 1, 2, 2});
  const torch::Tensor big = up(small);
  EXPECT_EQ(big.sizes(), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_EQ(big[0][0][3][3].item<float>(), 3.f);
  nn::Upsample bilinear(
      nn::UpsampleOptions().size(std::vector<int64_t>({3, 3})).mode(torch::kBilinear).align_corners(true));
  // align_corners: the centre of a 3x3 from a 2x2 is the mean of the four.
  EXPECT_FLOAT_EQ(bilinear(small)[0][0][1][1].item<float>(), 1.5f);

  nn::CosineSimilarity cosine(nn::CosineSimilarityOptions().dim(0));
  EXPECT_NEAR(cosine(torch::tensor({1.0, 0.0}, torch::kFloat64), torch::tensor({1.0, 1.0}, torch::kFloat64))
                  .item<double>(),
              1 / std::sqrt(2.0), 1e-12);
  const ember::nn::PairwiseDistanceOptions pd = nn::PairwiseDistanceOptions().p(1.0).keepdim(true);
  EXPECT_EQ(pd.p, 1.0);
  EXPECT_EQ(pd.eps, 1e-6);
  EXPECT_TRUE(pd.keepdim);

  nn::LSTMCell lstm_cell(nn::LSTMCellOptions(3, 4).bias(false));
  EXPECT_EQ(lstm_cell->parameters().size(), 2u);
  nn::GRUCell gru_cell(nn::GRUCellOptions(3, 4));
  EXPECT_EQ(gru_cell->parameters().size(), 4u);
  const ember::nn::RNNCellOptions rnn_cell = nn::RNNCellOptions(3, 4).nonlinearity(torch::kReLU);
  EXPECT_EQ(rnn_cell.nonlinearity, "relu");
  EXPECT_EQ(rnn_cell.hidden_size, 4);

  nn::Unflatten unflatten(nn::UnflattenOptions(1, {2, 3}));
  EXPECT_EQ(unflatten(torch::zeros({4, 6})).sizes(), (std::vector<int64_t>{4, 2, 3}));
}

TEST(TorchMoreOptions, Losses) {
  const torch::Tensor a = torch::tensor({0.0, 2.0, 4.0}, torch::kFloat64);
  const torch::Tensor b = torch::tensor({1.0, 2.0, 1.0}, torch::kFloat64);
  nn::MSELoss mse(nn::MSELossOptions(torch::kSum));
  EXPECT_EQ(mse(a, b).item<double>(), 10.0);
  nn::L1Loss l1(nn::L1LossOptions().reduction(torch::kMean));
  EXPECT_NEAR(l1(a, b).item<double>(), 4.0 / 3, 1e-12);
  // SmoothL1 with beta 2: |d| = 1 -> 0.5 * 1 / 2, |d| = 3 -> 3 - 1.
  nn::SmoothL1Loss smooth(nn::SmoothL1LossOptions().beta(2.0).reduction(torch::kSum));
  EXPECT_NEAR(smooth(a, b).item<double>(), 0.25 + 2.0, 1e-12);
  // Huber with delta 2: |d| = 1 -> 0.5, |d| = 3 -> 2 * (3 - 1).
  nn::HuberLoss huber(nn::HuberLossOptions(torch::kSum).delta(2.0));
  EXPECT_NEAR(huber(a, b).item<double>(), 0.5 + 4.0, 1e-12);

  // Log-probabilities of 2 samples over 3 classes.
  const torch::Tensor logp = torch::log(torch::tensor({{0.2, 0.3, 0.5}, {0.6, 0.3, 0.1}}, torch::kFloat64));
  const torch::Tensor target = torch::tensor({2, 0}, torch::kInt64);
  nn::NLLLoss nll(nn::NLLLossOptions().ignore_index(0).reduction(torch::kSum));
  EXPECT_NEAR(nll(logp, target).item<double>(), -std::log(0.5), 1e-12);  // sample 2 (class 0) ignored
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().weight(torch::tensor({1.0, 1.0, 3.0}, torch::kFloat64)));
  // Weighted mean: (3 * -log 0.5 + 1 * -log 0.6) / (3 + 1) (softmax of log-probabilities is the identity).
  EXPECT_NEAR(ce(logp, target).item<double>(), (3 * -std::log(0.5) - std::log(0.6)) / 4, 1e-12);
  const ember::nn::CrossEntropyLossOptions ce_options = nn::CrossEntropyLossOptions().label_smoothing(0.1);
  EXPECT_EQ(ce_options.label_smoothing, 0.1);
  EXPECT_EQ(ce_options.ignore_index, -100);

  const torch::Tensor p = torch::tensor({0.25, 0.5}, torch::kFloat64);
  const torch::Tensor y = torch::tensor({1.0, 0.0}, torch::kFloat64);
  nn::BCELoss bce(nn::BCELossOptions().reduction(torch::kSum));
  EXPECT_NEAR(bce(p, y).item<double>(), -std::log(0.25) - std::log(0.5), 1e-12);
  nn::BCEWithLogitsLoss bce_logits(
      nn::BCEWithLogitsLossOptions().pos_weight(torch::tensor({2.0}, torch::kFloat64)).reduction(torch::kSum));
  // Logit 0: sigmoid 0.5; the positive term is weighted by 2.
  EXPECT_NEAR(bce_logits(torch::zeros({2}, torch::kFloat64), y).item<double>(), 2 * std::log(2.0) + std::log(2.0),
              1e-12);
  const ember::nn::KLDivLossOptions kl = nn::KLDivLossOptions(torch::kBatchMean).log_target(true);
  EXPECT_EQ(kl.reduction, ember::nn::Reduction::BatchMean);
  EXPECT_TRUE(kl.log_target);
  EXPECT_EQ(nn::HingeEmbeddingLossOptions().margin(), 1.0);
  EXPECT_EQ(nn::MarginRankingLossOptions().margin(), 0.0);
  nn::MarginRankingLoss ranking(nn::MarginRankingLossOptions().margin(1.0));
  // max(0, -y (x1 - x2) + 1) with y = 1, x1 - x2 = 0.5: 0.5.
  EXPECT_NEAR(ranking(torch::tensor({1.5}, torch::kFloat64), torch::tensor({1.0}, torch::kFloat64),
                      torch::tensor({1.0}, torch::kFloat64))
                  .item<double>(),
              0.5, 1e-12);
}
