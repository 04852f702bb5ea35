// The mapping itself: libtorch's option builders convert to Ember's options
// field by field, ATen's namespace-level ops equal Ember's nn::functional
// ones, dtypes and devices, TensorOptions with requires_grad, factories,
// torch::str / TORCH_CHECK, nn::Functional and ExpandingArray.
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "compat/compat_test_util.h"

namespace F = torch::nn::functional;
using ember::nn::Reduction;

TEST(TorchFrontend, ModuleOptionsConvertToEmbersOptions) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 10, 5).stride(2).bias(false));
  EXPECT_EQ(conv->weight.sizes().vec(), (std::vector<int64_t>{10, 1, 5, 5}));
  EXPECT_FALSE(conv->bias.defined());
  EXPECT_EQ(conv->stride, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(conv(torch::zeros({1, 1, 13, 13})).sizes().vec(), (std::vector<int64_t>{1, 10, 5, 5}));

  const ember::nn::Conv2dOptions o = torch::nn::Conv2dOptions(3, 8, {3, 1}).padding({1, 0}).dilation(2).groups(1);
  EXPECT_EQ(o.kernel_size.values, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(o.padding.values, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(o.dilation.values, (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(o.bias);

  torch::nn::ConvTranspose2d up(torch::nn::ConvTranspose2dOptions(4, 2, 3).stride(2).padding(1).output_padding(1));
  EXPECT_EQ(up(torch::zeros({1, 4, 5, 5})).sizes().vec(), (std::vector<int64_t>{1, 2, 10, 10}));

  torch::nn::Linear fc(torch::nn::LinearOptions(3, 4).bias(false));
  EXPECT_EQ(fc->weight.sizes().vec(), (std::vector<int64_t>{4, 3}));
  EXPECT_FALSE(fc->bias.defined());

  torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(6).eps(1e-3).momentum(0.2).affine(false));
  EXPECT_EQ(bn->options.eps, 1e-3);
  EXPECT_EQ(bn->options.momentum, 0.2);
  EXPECT_FALSE(bn->options.affine);
  EXPECT_TRUE(bn->options.track_running_stats);

  torch::nn::Dropout dropout(torch::nn::DropoutOptions(0.25));
  EXPECT_EQ(dropout->options.p, 0.25);
  torch::nn::Dropout dropout_default(torch::nn::DropoutOptions().inplace(true));
  EXPECT_EQ(dropout_default->options.p, 0.5);
  EXPECT_TRUE(dropout_default->options.inplace);

  torch::nn::Embedding embedding(torch::nn::EmbeddingOptions(10, 3).padding_idx(0));
  EXPECT_EQ(embedding->weight.sizes().vec(), (std::vector<int64_t>{10, 3}));
  EXPECT_TRUE(embedding->weight[0].eq(0).all().item<bool>());

  torch::nn::LSTM lstm(torch::nn::LSTMOptions(5, 7).num_layers(2).batch_first(true));
  auto [output, state] = lstm->forward(torch::randn({3, 4, 5}));
  EXPECT_EQ(output.sizes().vec(), (std::vector<int64_t>{3, 4, 7}));
  EXPECT_EQ(std::get<0>(state).sizes().vec(), (std::vector<int64_t>{2, 3, 7}));

  torch::nn::LeakyReLU leaky(torch::nn::LeakyReLUOptions().negative_slope(0.2));
  EXPECT_FLOAT_EQ(leaky(torch::full({1}, -1.0))[0].item<float>(), -0.2f);
}

TEST(TorchFrontend, OptimizerOptionsConvert) {
  auto w = torch::ones({2}, torch::requires_grad());
  torch::optim::SGD sgd({w}, torch::optim::SGDOptions(0.01).momentum(0.5).nesterov(true));
  const auto& sgd_options = sgd.param_groups().at(0).options;
  EXPECT_EQ(sgd_options.at("lr").to_double(), 0.01);
  EXPECT_EQ(sgd_options.at("momentum").to_double(), 0.5);
  EXPECT_TRUE(sgd_options.at("nesterov").to_bool());

  torch::optim::Adam adam({w}, torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)).weight_decay(0.1));
  const auto& adam_options = adam.param_groups().at(0).options;
  EXPECT_EQ(adam_options.at("lr").to_double(), 2e-4);
  EXPECT_EQ(adam_options.at("betas").to_double_list(), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(adam_options.at("weight_decay").to_double(), 0.1);
  torch::optim::AdamW adamw({w}, torch::optim::AdamWOptions(1e-3));
  EXPECT_EQ(adamw.param_groups().at(0).options.at("weight_decay").to_double(), 1e-2);  // AdamW's default

  // One SGD step by hand: w -= lr * grad.
  torch::optim::SGD plain({w}, 0.5);
  (w * w).sum().backward();
  plain.step();
  EXPECT_TRUE(torch::allclose(w.detach(), torch::zeros({2})));
}

TEST(TorchFrontend, AtenOpsMatchEmbersFunctional) {
  torch::manual_seed(3);
  auto x = torch::randn({2, 3, 8, 8});
  EXPECT_TRUE(torch::equal(torch::max_pool2d(x, 2), ember::nn::functional::max_pool2d(x, 2)));
  EXPECT_TRUE(torch::equal(torch::max_pool2d(x, {3, 2}, {1, 2}, {1, 0}),
                           ember::nn::functional::max_pool2d(x, {3, 2}, {.stride = {1, 2}, .padding = {1, 0}})));
  EXPECT_TRUE(torch::equal(F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1)),
                           ember::nn::functional::max_pool2d(x, 3, {.stride = 2, .padding = 1})));
  EXPECT_TRUE(torch::equal(torch::avg_pool2d(x, 2), ember::nn::functional::avg_pool2d(x, 2)));
  EXPECT_TRUE(torch::equal(torch::reshape(x, {6, -1}), x.reshape({6, 64})));
  EXPECT_TRUE(torch::equal(torch::flatten(x, 1), x.reshape({2, 192})));

  auto logits = torch::randn({5, 4});
  auto target = torch::tensor({0, 3, 1, 1, 2});
  auto log_probs = torch::log_softmax(logits, 1);
  EXPECT_TRUE(torch::allclose(torch::softmax(logits, 1).sum(1), torch::ones({5})));
  // nll_loss: mean, sum and none of -log_probs[i, target[i]], by hand.
  double sum = 0;
  for (int64_t i = 0; i < 5; ++i) sum -= log_probs[i][target[i].item<int64_t>()].item<double>();
  EXPECT_NEAR(torch::nll_loss(log_probs, target).item<double>(), sum / 5, 1e-6);
  EXPECT_NEAR(torch::nll_loss(log_probs, target, {}, torch::Reduction::Sum).item<double>(), sum, 1e-5);
  EXPECT_EQ(torch::nll_loss(log_probs, target, {}, torch::Reduction::None).sizes().vec(), (std::vector<int64_t>{5}));
  EXPECT_NEAR(F::nll_loss(log_probs, target, F::NLLLossFuncOptions().reduction(torch::kSum)).item<double>(), sum,
              1e-5);
  EXPECT_NEAR(torch::cross_entropy_loss(logits, target).item<double>(), sum / 5, 1e-6);
  EXPECT_NEAR(F::cross_entropy(logits, target).item<double>(), sum / 5, 1e-6);
  EXPECT_ERROR_WITH(torch::nll_loss(log_probs, target, {}, 7), "reduction", "7");

  auto p = torch::sigmoid(torch::randn({6}));
  auto y = torch::tensor({1.0, 0.0, 1.0, 1.0, 0.0, 0.0}, torch::kFloat);
  double bce = 0;
  for (int64_t i = 0; i < 6; ++i) {
    const double pi = p[i].item<double>(), yi = y[i].item<double>();
    bce -= yi * std::log(pi) + (1 - yi) * std::log(1 - pi);
  }
  EXPECT_NEAR(torch::binary_cross_entropy(p, y).item<double>(), bce / 6, 1e-5);
  EXPECT_NEAR(torch::binary_cross_entropy_with_logits(torch::log(p / (1 - p)), y).item<double>(), bce / 6, 1e-4);
  EXPECT_NEAR(torch::mse_loss(p, y, torch::Reduction::Sum).item<double>(), (p - y).pow(2).sum().item<double>(), 1e-6);
  // smooth_l1 with beta 1: 0.5 d^2 below 1, |d| - 0.5 above.
  auto a = torch::tensor({0.0, 0.0}, torch::kFloat), b = torch::tensor({0.5, 3.0}, torch::kFloat);
  EXPECT_NEAR(torch::smooth_l1_loss(a, b).item<double>(), (0.125 + 2.5) / 2, 1e-6);

  // dropout: ATen's (p, train) and libtorch's functional options.
  auto ones = torch::ones({1000});
  EXPECT_TRUE(torch::equal(torch::dropout(ones, 0.5, /*train=*/false), ones));
  auto dropped = torch::dropout(ones, 0.5, /*train=*/true);
  const double kept = dropped.ne(0).sum().item<double>();
  EXPECT_NEAR(kept, 500, 80);
  EXPECT_TRUE(dropped.eq(0).logical_or(dropped.eq(2)).all().item<bool>());
  EXPECT_TRUE(torch::equal(F::dropout(ones, F::DropoutFuncOptions().p(0.5).training(false)), ones));
  EXPECT_FLOAT_EQ(torch::leaky_relu(torch::full({1}, -2.0), 0.1)[0].item<float>(), -0.2f);
}

TEST(TorchFrontend, DtypesDevicesAndTensorOptions) {
  EXPECT_EQ(torch::kF32, torch::kFloat32);
  EXPECT_EQ(torch::kF64, torch::kDouble);
  EXPECT_EQ(torch::kI64, torch::kLong);
  torch::DeviceType cpu = torch::kCPU;
  EXPECT_EQ(cpu, ember::DeviceType::CPU);
  EXPECT_TRUE(torch::Device(torch::kCPU).is_cpu());
  EXPECT_TRUE(torch::Device(torch::kCUDA).is_cuda());
  EXPECT_EQ(torch::Device(torch::kCUDA, 1).index, 1);
  EXPECT_EQ(torch::cuda::is_available(), torch::cuda::device_count() > 0);
  EXPECT_EQ(torch::cuda::device_count(), static_cast<size_t>(ember::device_count(ember::DeviceType::CUDA)));
  EXPECT_TRUE(torch::ones({2}).to(torch::kCPU).is_cpu());
  EXPECT_EQ(torch::zeros({2}, torch::kCPU).device(), ember::kCPU);

  auto t = torch::zeros({2, 3}, torch::TensorOptions().dtype(torch::kFloat64).requires_grad(true));
  EXPECT_EQ(t.dtype(), torch::kFloat64);
  EXPECT_TRUE(t.requires_grad());
  EXPECT_TRUE(torch::randn({2}, torch::dtype(torch::kF32).requires_grad(true)).requires_grad());
  EXPECT_FALSE(torch::randn({2}, torch::kF32).requires_grad());
  EXPECT_TRUE(torch::ones_like(t, torch::requires_grad()).requires_grad());
  EXPECT_EQ(torch::empty(5, torch::kInt32).sizes().vec(), (std::vector<int64_t>{5}));

  // torch::tensor of one value: floating -> the default dtype, integral -> int64, or as asked.
  EXPECT_EQ(torch::tensor(3.5).dtype(), torch::kFloat32);
  EXPECT_EQ(torch::tensor(3.5).dim(), 0);
  EXPECT_EQ(torch::tensor(7).dtype(), torch::kInt64);
  EXPECT_EQ(torch::tensor(true).dtype(), torch::kBool);
  EXPECT_EQ(torch::tensor(2, torch::kF64).item<double>(), 2.0);
  EXPECT_TRUE(torch::tensor(2.0, torch::requires_grad()).requires_grad());
  EXPECT_EQ(torch::tensor({1.0, 2.0}, torch::kF64).dtype(), torch::kFloat64);
  EXPECT_EQ(torch::arange(5).sum().item<int64_t>(), 10);
  EXPECT_EQ(torch::linspace(0, 1, 5)[4].item<float>(), 1.0f);
  EXPECT_EQ(torch::eye(3).sum().item<float>(), 3.0f);
  EXPECT_EQ(torch::full({2}, 7, torch::kInt64).sum().item<int64_t>(), 14);
  EXPECT_EQ(torch::randint(3, 4, {50}).min().item<int64_t>(), 3);
  float blob[4] = {1, 2, 3, 4};
  EXPECT_EQ(torch::from_blob(blob, {2, 2}).sum().item<float>(), 10.0f);

  torch::tensor_list list = {torch::ones({2}), torch::zeros({2})};
  EXPECT_EQ(torch::stack(list).sizes().vec(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(torch::cat(list).sizes().vec(), (std::vector<int64_t>{4}));
  EXPECT_EQ(torch::matmul(torch::ones({2, 3}), torch::ones({3})).sum().item<float>(), 6.0f);
  EXPECT_TRUE(torch::ones({3}).data_ptr<float>() != nullptr);
  const torch::Tensor counts = torch::arange(4, torch::kInt64);
  EXPECT_EQ(counts.data<int64_t>(), counts.data_ptr<int64_t>());  // libtorch's older spelling
  EXPECT_EQ(counts.data<int64_t>()[3], 3);
}

TEST(TorchFrontend, UtilitiesAndChecks) {
  EXPECT_EQ(torch::str("dcgan-sample-", 3, ".pt"), "dcgan-sample-3.pt");
  const int answer = 41;
  const std::string check = ember_test::error_of([&] { TORCH_CHECK(answer == 42, "answer was ", answer); });
  EXPECT_NE(check.find("answer == 42"), std::string::npos) << check;
  EXPECT_NE(check.find("answer was 41"), std::string::npos) << check;
  const std::string assertion = ember_test::error_of([&] { AT_ASSERT(answer > 50); });
  EXPECT_NE(assertion.find("answer > 50"), std::string::npos) << assertion;
  EXPECT_EQ(ember_test::error_of([&] { TORCH_CHECK(answer == 41); }), "");

  {
    torch::NoGradGuard no_grad;
    EXPECT_FALSE(torch::is_grad_enabled());
  }
  EXPECT_TRUE(torch::is_grad_enabled());
  torch::manual_seed(4);
  auto first = torch::rand({3});
  torch::manual_seed(4);
  EXPECT_TRUE(torch::equal(first, torch::rand({3})));

  torch::ExpandingArray<2> pair(3);
  EXPECT_EQ(*pair, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(pair->size(), 2u);
  EXPECT_ERROR_WITH((torch::ExpandingArray<2>({1, 2, 3})), "expected 2 values, got 3");
}

TEST(TorchFrontend, FunctionalModulesInASequential) {
  torch::nn::Sequential net(torch::nn::Linear(3, 4), torch::nn::Functional(torch::relu),
                            torch::nn::Functional(torch::leaky_relu, 0.5), torch::nn::Linear(4, 2));
  EXPECT_EQ(net->size(), 4u);
  EXPECT_EQ(net->parameters().size(), 4u);
  EXPECT_EQ(net->forward(torch::randn({5, 3})).sizes().vec(), (std::vector<int64_t>{5, 2}));
  torch::nn::Functional leaky(torch::leaky_relu, 0.5);
  EXPECT_FLOAT_EQ(leaky(torch::full({1}, -2.0))[0].item<float>(), -1.0f);
}

namespace {
struct TwoLayerImpl : torch::nn::Module {
  TwoLayerImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(2, 3));
    scale = register_parameter("scale", torch::ones({1}));
    register_buffer("calls", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x) { return torch::sigmoid(fc1(x)) * scale; }
  torch::nn::Linear fc1{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(TwoLayer);
}  // namespace

TEST(TorchFrontend, TorchModuleAndSaveLoad) {
  TwoLayer model;
  auto named = model->named_parameters();
  ASSERT_EQ(named.size(), 3u);
  EXPECT_TRUE(named.contains("fc1.weight"));
  EXPECT_TRUE(named.contains("scale"));
  EXPECT_EQ(model->state_dict().size(), 4u);  // the buffer too
  EXPECT_EQ(model(torch::zeros({1, 2})).sizes().vec(), (std::vector<int64_t>{1, 3}));

  const std::string path = ::testing::TempDir() + "torch_frontend_model.pt";
  torch::save(model, path);
  TwoLayer other;
  torch::load(other, path);
  auto input = torch::randn({4, 2});
  EXPECT_TRUE(torch::equal(other(input), model(input)));
  std::remove(path.c_str());

  const std::string list_path = ::testing::TempDir() + "torch_frontend_list.pt";
  std::vector<torch::Tensor> tensors = {torch::arange(3), torch::ones({2, 2})}, loaded;
  torch::save(tensors, list_path);
  torch::load(loaded, list_path);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_TRUE(torch::equal(loaded[0], tensors[0]));
  EXPECT_TRUE(torch::equal(loaded[1], tensors[1]));
  std::remove(list_path.c_str());
  EXPECT_ERROR_WITH(torch::load(other, "/nonexistent/model.pt"), "/nonexistent/model.pt");
}
