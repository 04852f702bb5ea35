// vision::ops: stochastic_depth / StochasticDepth, Conv2dNormActivation and
// SqueezeExcitation (torchvision.ops), against their definitions computed
// independently (float64 loops and plain tensor arithmetic).
#include <gtest/gtest.h>

#include <sstream>

#include <ember/ember.h>
#include <ember/vision/ops.h>

namespace ember {
namespace ops_misc_test {

namespace ops = vision::ops;
namespace F = nn::functional;

std::string repr(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

template <class Fn>
void expect_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(StochasticDepth, IdentityWhenNotTrainingOrNoDrop) {
  const Tensor x = randn({4, 3, 5, 5});
  EXPECT_TRUE(ops::stochastic_depth(x, 0.5, "row", /*training=*/false).is_same(x));
  EXPECT_TRUE(ops::stochastic_depth(x, 0.0, "batch", /*training=*/true).is_same(x));
}

// Each row is dropped (zeros) or kept and scaled by 1 / (1 - p), with the
// drop frequency p; the gradient is the same per-row factor.
TEST(StochasticDepth, RowModeDropsWholeRowsAndScalesSurvivors) {
  Generator gen(7);
  const double p = 0.3;
  const int64_t n = 4000;
  const Tensor x = (rand({n, 2, 3, 4}, kFloat64, &gen) + 0.5).requires_grad_();
  Tensor y = ops::stochastic_depth(x, p, "row", true, &gen);
  y.sum().backward();
  const Tensor xs = x.detach();
  int64_t dropped = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Tensor row = y.detach()[i], in = xs[i], g = x.grad()[i];
    const bool zero = row.abs().max().item<double>() == 0;
    dropped += zero;
    const double factor = zero ? 0.0 : 1.0 / (1 - p);
    ASSERT_TRUE(allclose(row, in * factor, 1e-12, 0)) << "row " << i;
    ASSERT_TRUE(allclose(g, full_like(g, factor), 1e-12, 0)) << "gradient of row " << i;
  }
  // Binomial(4000, 0.3): sd ~ 29 rows.
  EXPECT_NEAR(static_cast<double>(dropped) / n, p, 0.03);
}

TEST(StochasticDepth, BatchModeDropsEverythingOrNothing) {
  Generator gen(3);
  const Tensor x = rand({3, 4, 2, 2}, {}, &gen) + 0.5;
  int dropped = 0;
  const int trials = 1000;
  for (int t = 0; t < trials; ++t) {
    const Tensor y = ops::stochastic_depth(x, 0.25, "batch", true, &gen);
    if (y.abs().max().item<double>() == 0) {
      ++dropped;
    } else {
      ASSERT_TRUE(allclose(y, x / 0.75, 1e-6, 0));
    }
  }
  EXPECT_NEAR(static_cast<double>(dropped) / trials, 0.25, 0.045);  // sd ~ 0.014
}

TEST(StochasticDepth, DropProbabilityOneGivesZeros) {
  const Tensor x = randn({5, 3});
  const Tensor y = ops::stochastic_depth(x, 1.0, "row", true);
  EXPECT_EQ(y.abs().max().item<double>(), 0.0);
  EXPECT_FALSE(y.isnan().any().item<bool>());
}

TEST(StochasticDepth, KeepsChannelsLast) {
  Generator gen(11);
  const Tensor x = randn({6, 8, 3, 3}).contiguous(MemoryFormat::ChannelsLast);
  const Tensor y = ops::stochastic_depth(x, 0.5, "row", true, &gen);
  EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
  for (int64_t i = 0; i < 6; ++i) {
    const bool zero = y[i].abs().max().item<double>() == 0;
    EXPECT_TRUE(allclose(y[i], x[i] * (zero ? 0.0 : 2.0), 1e-6, 0));
  }
}

TEST(StochasticDepth, ModuleFollowsTrainingMode) {
  ops::StochasticDepth sd(0.2, "row");
  EXPECT_EQ(repr(*sd), "StochasticDepth(p=0.2, mode=row)");
  EXPECT_EQ(repr(*ops::StochasticDepth(0.0, "batch")), "StochasticDepth(p=0.0, mode=batch)");
  EXPECT_TRUE(sd->parameters().empty());
  const Tensor x = ones({200, 4});
  const Tensor y = sd(x);  // training by default: some rows dropped
  EXPECT_GT((y.sum(1) == 0).sum().item<int64_t>(), 0);
  sd->eval();
  EXPECT_TRUE(sd(x).is_same(x));
}

TEST(StochasticDepth, Errors) {
  const Tensor x = randn({2, 3});
  expect_error([&] { ops::stochastic_depth(x, -0.1, "row"); },
               "stochastic_depth: drop probability has to be between 0 and 1, but got -0.1");
  expect_error([&] { ops::stochastic_depth(x, 1.5, "row"); }, "between 0 and 1");
  expect_error([&] { ops::stochastic_depth(x, 0.2, "col"); }, "mode has to be either 'batch' or 'row', but got 'col'");
  expect_error([&] { ops::stochastic_depth(ones({2, 3}, kInt64), 0.2, "row"); }, "floating point");
  expect_error([&] { ops::stochastic_depth(Tensor(), 0.2, "row"); }, "undefined");
  expect_error([&] { ops::stochastic_depth(scalar_tensor(1.0), 0.2, "row"); }, "needs an input with a batch dim");
  EXPECT_EQ(ops::stochastic_depth(scalar_tensor(1.0), 0.2, "batch").dim(), 0);
  expect_error([&] { ops::StochasticDepth(2.0, "row"); }, "between 0 and 1");
  expect_error([&] { ops::StochasticDepth(0.1, "rows"); }, "'rows'");
}

TEST(Conv2dNormActivation, DefaultLayersAndKeys) {
  ops::Conv2dNormActivation block({.in_channels = 3, .out_channels = 8});
  const auto keys = block->state_dict().keys();
  EXPECT_EQ(keys, (std::vector<std::string>{"0.weight", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                                            "1.num_batches_tracked"}));
  EXPECT_EQ(block->name(), "Conv2dNormActivation");
  EXPECT_EQ(block->out_channels, 8);
  EXPECT_EQ(block->conv()->padding, (std::vector<int64_t>{1, 1}));
  EXPECT_FALSE(block->conv()->bias.defined());  // a norm layer follows
  const std::string text = repr(*block);
  EXPECT_NE(text.find("Conv2dNormActivation(\n  (0): Conv2d("), std::string::npos) << text;
  EXPECT_NE(text.find("(2): ReLU(inplace=True)"), std::string::npos) << text;

  // Forward = relu(batch_norm(conv2d(x))) with the module's own tensors.
  block->eval();
  const Tensor x = randn({2, 3, 9, 7});
  auto bn = block->ptr<nn::BatchNorm2dImpl>(1);
  bn->running_mean.normal_();
  bn->running_var.uniform_(0.5, 2.0);
  const Tensor conv = F::conv2d(x, block->conv()->weight, {.padding = 1});
  const Tensor expected =
      ((conv - bn->running_mean.view({1, 8, 1, 1})) / (bn->running_var.view({1, 8, 1, 1}) + 1e-5).sqrt() *
           bn->weight.view({1, 8, 1, 1}) +
       bn->bias.view({1, 8, 1, 1}))
          .relu();
  EXPECT_TRUE(allclose(block(x), expected, 1e-5, 1e-5));
}

TEST(Conv2dNormActivation, OptionalLayersPaddingAndBias) {
  ops::Conv2dNormActivation no_norm({.in_channels = 4, .out_channels = 4, .norm_layer = nullptr});
  EXPECT_EQ(no_norm->size(), 2u);
  EXPECT_TRUE(no_norm->conv()->bias.defined());  // no norm: a bias, as torchvision
  ops::Conv2dNormActivation bare({.in_channels = 4, .out_channels = 6, .kernel_size = 1, .norm_layer = nullptr,
                                  .activation_layer = nullptr, .bias = false});
  EXPECT_EQ(bare->size(), 1u);
  EXPECT_FALSE(bare->conv()->bias.defined());
  ops::Conv2dNormActivation dilated({.in_channels = 2, .out_channels = 2, .kernel_size = 5, .dilation = 2});
  EXPECT_EQ(dilated->conv()->padding, (std::vector<int64_t>{4, 4}));
  ops::Conv2dNormActivation rect({.in_channels = 2, .out_channels = 2, .kernel_size = {1, 7}});
  EXPECT_EQ(rect->conv()->padding, (std::vector<int64_t>{0, 3}));
  ops::Conv2dNormActivation explicit_pad({.in_channels = 2, .out_channels = 2, .padding = 0});
  EXPECT_EQ(explicit_pad->conv()->padding, (std::vector<int64_t>{0, 0}));
  ops::Conv2dNormActivation dw({.in_channels = 6, .out_channels = 6, .stride = 2, .groups = 6,
                                .norm_layer = ops::batch_norm2d(0.001, 0.01),
                                .activation_layer = ops::activation<nn::Hardswish>()});
  auto bn = dw->ptr<nn::BatchNorm2dImpl>(1);
  EXPECT_EQ(bn->options.eps, 0.001);
  EXPECT_EQ(bn->options.momentum, 0.01);
  EXPECT_EQ(dw->conv()->weight.sizes(), (std::vector<int64_t>{6, 1, 3, 3}));
  EXPECT_EQ(dw(randn({1, 6, 8, 8})).sizes(), (std::vector<int64_t>{1, 6, 4, 4}));
  EXPECT_EQ(dw->ptr<nn::HardswishImpl>(2)->options.inplace, true);
}

// Eval mode without autograd: one convolution with the BatchNorm folded in and
// the activation as its post-op, equal to running the layers one by one.
TEST(Conv2dNormActivation, InferenceFusionMatchesTheLayers) {
  const std::vector<std::pair<ops::ActivationLayer, bool>> activations = {
      {ops::activation<nn::ReLU>(), true},      {ops::activation<nn::ReLU6>(), true},
      {ops::activation<nn::Hardswish>(), true}, {ops::activation<nn::SiLU>(), true},
      {nullptr, true},                          {ops::activation<nn::Hardsigmoid>(), false}};
  Generator gen(4);
  for (const auto& [act, fusable] : activations) {
    ops::Conv2dNormActivation block({.in_channels = 6, .out_channels = 6, .stride = 2, .groups = 3,
                                     .activation_layer = act});
    auto bn = block->ptr<nn::BatchNorm2dImpl>(1);
    {
      NoGradGuard no_grad;
      bn->running_mean.normal_(0, 1, &gen);
      bn->running_var.uniform_(0.5, 2, &gen);
      bn->weight.normal_(0, 1, &gen);
    }
    const Tensor x = randn({2, 6, 13, 13}, {}, &gen);
    EXPECT_FALSE(block->fused_for(x));  // training mode
    block->eval();
    EXPECT_FALSE(block->fused_for(x));  // parameters require grad under grad mode
    NoGradGuard no_grad;
    EXPECT_EQ(block->fused_for(x), fusable);
    EXPECT_TRUE(allclose(block(x), block->nn::SequentialImpl::forward(x), 1e-5, 1e-5));
    const Tensor x_cl = x.contiguous(MemoryFormat::ChannelsLast);
    EXPECT_TRUE(allclose(block(x_cl), block->nn::SequentialImpl::forward(x_cl), 1e-5, 1e-5));
    if (act) {  // a hook on the activation must see it run: no fusion
      auto a = (*block)[2];
      const auto h = a->register_forward_hook([](nn::Module&, const std::vector<Tensor>&, Tensor&) {});
      EXPECT_FALSE(block->fused_for(x));
      a->remove_hook(h);
    }
  }
}

TEST(SqueezeExcitation, MatchesItsDefinition) {
  ops::SqueezeExcitation se(6, 2);
  const auto keys = se->state_dict().keys();
  EXPECT_EQ(keys, (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}));
  EXPECT_EQ(repr(*se),
            "SqueezeExcitation(\n  (avgpool): AdaptiveAvgPool2d(output_size=1)\n"
            "  (fc1): Conv2d(6, 2, kernel_size=(1, 1), stride=(1, 1))\n"
            "  (fc2): Conv2d(2, 6, kernel_size=(1, 1), stride=(1, 1))\n  (activation): ReLU()\n"
            "  (scale_activation): Sigmoid()\n)");
  se->to(kFloat64);
  const Tensor x = randn({3, 6, 4, 5}, kFloat64);
  // x * sigmoid(W2 relu(W1 mean(x) + b1) + b2), per sample and channel.
  const Tensor pooled = x.mean({2, 3});  // [3, 6]
  const Tensor w1 = se->fc1->weight.view({2, 6}), w2 = se->fc2->weight.view({6, 2});
  const Tensor hidden = (pooled.matmul(w1.t()) + se->fc1->bias).relu();
  const Tensor scale = (hidden.matmul(w2.t()) + se->fc2->bias).sigmoid();
  EXPECT_TRUE(allclose(se(x), x * scale.view({3, 6, 1, 1}), 1e-12, 1e-12));

  ops::SqueezeExcitation hard({.input_channels = 6, .squeeze_channels = 2,
                               .activation = ops::module_factory<nn::SiLU>(true),
                               .scale_activation = ops::module_factory<nn::Hardsigmoid>()});
  EXPECT_NE(repr(*hard).find("(activation): SiLU(inplace=True)"), std::string::npos) << repr(*hard);
  EXPECT_NE(repr(*hard).find("(scale_activation): Hardsigmoid()"), std::string::npos) << repr(*hard);
  expect_error([] { ops::SqueezeExcitation(0, 2); }, "SqueezeExcitation: input_channels and squeeze_channels");
}

}  // namespace ops_misc_test
}  // namespace ember
