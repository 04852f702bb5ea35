// Architecture-level checks of the mobile and inception families: printed
// structure against torchvision's repr, parameter counts of variants without
// weight fixtures, the factory, torchvision's initialisation schemes, the
// auxiliary outputs, transform_input, stochastic depth schedule and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <ember/ember.h>
#include <ember/models/models.h>

#include "npy.h"

namespace ember {
namespace models_mobile_arch_test {

using models::ImageClassifier;
using testing::fixture_path;

std::string repr(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

std::string read_text(const std::string& relative) {
  std::ifstream f(fixture_path(relative));
  EXPECT_TRUE(f.good()) << relative;
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

int64_t count_parameters(const nn::Module& m) {
  int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
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

// print(model) of torchvision's models (num_classes=10, default arguments).
TEST(MobileModelsArch, PrintsAsTorchvision) {
  const std::vector<std::pair<std::string, std::function<ImageClassifier()>>> cases = {
      {"mobilenet_v2", [] { return models::create("mobilenet_v2", {.num_classes = 10}); }},
      {"mobilenet_v2_w050", [] { return models::mobilenet_v2({.num_classes = 10, .width_mult = 0.5}).ptr(); }},
      {"mobilenet_v3_large", [] { return models::create("mobilenet_v3_large", {.num_classes = 10}); }},
      {"mobilenet_v3_small", [] { return models::create("mobilenet_v3_small", {.num_classes = 10}); }},
      {"shufflenet_v2_x1_0", [] { return models::create("shufflenet_v2_x1_0", {.num_classes = 10}); }},
      {"shufflenet_v2_x0_5", [] { return models::create("shufflenet_v2_x0_5", {.num_classes = 10}); }},
      {"googlenet", [] { return models::create("googlenet", {.num_classes = 10}); }},
      {"inception_v3", [] { return models::inception_v3({.num_classes = 10, .init_weights = false}).ptr(); }},
      {"efficientnet_b0", [] { return models::create("efficientnet_b0", {.num_classes = 10}); }},
  };
  auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);) out.push_back(line);
    return out;
  };
  for (const auto& [name, build] : cases) {
    const auto actual = lines(repr(*build()));
    const auto expected = lines(read_text("models/models_mobile/" + name + "_repr.txt"));
    for (size_t i = 0; i < std::min(actual.size(), expected.size()); ++i)
      ASSERT_EQ(actual[i], expected[i]) << name << ", line " << i + 1;
    EXPECT_EQ(actual.size(), expected.size()) << name;
  }
}

// Variants without a weight fixture: the parameter count of torchvision's
// model with the same arguments (1000 classes).
TEST(MobileModelsArch, ParameterCountsOfVariants) {
  EXPECT_EQ(count_parameters(*models::shufflenet_v2_x1_5()), 3503624);
  EXPECT_EQ(count_parameters(*models::shufflenet_v2_x2_0()), 7393996);
  EXPECT_EQ(count_parameters(*models::mobilenet_v2({.width_mult = 1.4})), 6108776);
  EXPECT_EQ(count_parameters(*models::mobilenet_v3_large({.reduced_tail = true, .dilated = true})), 2569352);
  EXPECT_EQ(count_parameters(*models::mobilenet_v3_small({.width_mult = 0.75})), 1653920);
  EXPECT_EQ(count_parameters(*models::googlenet({.aux_logits = false, .init_weights = false})), 6624904);
  EXPECT_EQ(count_parameters(*models::inception_v3({.aux_logits = false, .init_weights = false})), 23834568);
  // torchvision's num_params metadata of the pretrained weights.
  EXPECT_EQ(count_parameters(*models::mobilenet_v2()), 3504872);
  EXPECT_EQ(count_parameters(*models::efficientnet_b0()), 5288548);
}

TEST(MobileModelsArch, FactoryBuildsEveryFamily) {
  const auto names = models::list_models();
  for (const std::string name : {"mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small", "shufflenet_v2_x0_5",
                                 "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "googlenet",
                                 "inception_v3", "efficientnet_b0"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  NoGradGuard no_grad;
  for (const std::string name : {"mobilenet_v3_small", "shufflenet_v2_x0_5"}) {
    ImageClassifier m = models::create(name, {.num_classes = 7});
    m->eval();
    EXPECT_EQ(m->forward(randn({1, 3, 40, 40})).sizes(), (std::vector<int64_t>{1, 7})) << name;
  }
  // Factory options reach the models.
  auto g = std::dynamic_pointer_cast<models::GoogLeNetImpl>(
      models::create("googlenet", {.num_classes = 3, .dropout = 0.1, .aux_logits = false, .transform_input = true}));
  ASSERT_TRUE(g);
  EXPECT_FALSE(g->aux1);
  EXPECT_FALSE(g->state_dict().contains("aux1.fc2.weight"));
  EXPECT_TRUE(g->options.transform_input);
  EXPECT_EQ(g->dropout->options.p, 0.1);
  auto inc = std::dynamic_pointer_cast<models::Inception3Impl>(models::create("inception_v3", {.num_classes = 3}));
  ASSERT_TRUE(inc);
  EXPECT_TRUE(inc->AuxLogits);  // torchvision's default: aux_logits = true
  EXPECT_EQ(inc->dropout->options.p, 0.5);
  auto v2 = std::dynamic_pointer_cast<models::MobileNetV2Impl>(models::create("mobilenet_v2", {.dropout = 0.4}));
  EXPECT_EQ(v2->classifier->ptr<nn::DropoutImpl>(0)->options.p, 0.4);
  auto eff = std::dynamic_pointer_cast<models::EfficientNetImpl>(models::create("efficientnet_b0", {.dropout = 0.3}));
  EXPECT_EQ(eff->classifier->ptr<nn::DropoutImpl>(0)->options.p, 0.3);
}

// torchvision's initialisation: kaiming_normal(fan_out) convolutions, N(0,
// 0.01) linear layers, unit BatchNorm (MobileNets); truncated normals
// (GoogLeNet 0.01, Inception v3 0.1 and 0.001 for AuxLogits.fc); uniform
// +-1/sqrt(out) linear layers (EfficientNet); PyTorch's defaults (ShuffleNetV2).
TEST(MobileModelsArch, InitialisationFollowsTorchvision) {
  auto std_of = [](const Tensor& t) { return t.to(kFloat64).std().item<double>(); };
  auto v2 = models::mobilenet_v2();
  const auto p = v2->named_parameters();
  const Tensor w = p.at("features.18.0.weight");  // [1280, 320, 1, 1], fan_out 1280
  EXPECT_NEAR(std_of(w), std::sqrt(2.0 / 1280), 0.02 * std::sqrt(2.0 / 1280));
  EXPECT_NEAR(std_of(p.at("classifier.1.weight")), 0.01, 0.0003);
  EXPECT_EQ(p.at("classifier.1.bias").abs().max().item<double>(), 0.0);
  EXPECT_TRUE(equal(p.at("features.1.conv.0.1.weight"), ones({32})));
  EXPECT_EQ(p.at("features.1.conv.0.1.bias").abs().max().item<double>(), 0.0);

  auto v3 = models::mobilenet_v3_small({.num_classes = 10});
  const auto se = v3->named_parameters();
  EXPECT_EQ(se.at("features.1.block.1.fc1.bias").abs().max().item<double>(), 0.0);  // conv biases zeroed
  auto bn = v3->features->ptr<vision::ops::Conv2dNormActivationImpl>(0)->ptr<nn::BatchNorm2dImpl>(1);
  EXPECT_EQ(bn->options.eps, 0.001);
  EXPECT_EQ(bn->options.momentum, 0.01);

  auto g = models::googlenet({.num_classes = 10});
  const auto gp = g->named_parameters();
  EXPECT_NEAR(std_of(gp.at("inception4e.branch2.1.conv.weight")), 0.01, 0.0002);
  EXPECT_NEAR(std_of(gp.at("aux1.fc1.weight")), 0.01, 0.0002);
  // GoogLeNet leaves linear biases at PyTorch's default U(-1/sqrt(in), 1/sqrt(in)).
  EXPECT_GT(gp.at("aux1.fc1.bias").abs().max().item<double>(), 0.0);
  EXPECT_LE(gp.at("aux1.fc1.bias").abs().max().item<double>(), 1 / std::sqrt(2048.0));

  auto inc = models::inception_v3({.num_classes = 10});
  const auto ip = inc->named_parameters();
  EXPECT_NEAR(std_of(ip.at("Mixed_7c.branch3x3dbl_2.conv.weight")), 0.1, 0.001);
  EXPECT_NEAR(std_of(ip.at("AuxLogits.conv1.conv.weight")), 0.1, 0.001);  // its stddev attribute is never read
  EXPECT_NEAR(std_of(ip.at("AuxLogits.fc.weight")), 0.001, 0.0001);

  auto eff = models::efficientnet_b0();
  const Tensor fc = eff->named_parameters().at("classifier.1.weight");
  EXPECT_LE(fc.abs().max().item<double>(), 1 / std::sqrt(1000.0));
  EXPECT_NEAR(std_of(fc), 1 / std::sqrt(3000.0), 0.02 / std::sqrt(3000.0));  // U(-b, b): sd b / sqrt(3)

  auto sh = models::shufflenet_v2_x1_0();
  const Tensor c5 = sh->named_parameters().at("conv5.0.weight");  // [1024, 464, 1, 1]
  EXPECT_LE(c5.abs().max().item<double>(), 1 / std::sqrt(464.0));  // kaiming_uniform(a = sqrt 5)
}

// forward() returns the main logits; forward_with_aux adds the heads in
// training mode only, filled as torchvision's namedtuples.
TEST(MobileModelsArch, AuxiliaryOutputs) {
  auto g = models::googlenet({.num_classes = 5, .dropout = 0, .dropout_aux = 0});
  const Tensor x = randn({2, 3, 64, 64});
  g->eval();
  auto eval_out = g->forward_with_aux(x);
  EXPECT_TRUE(eval_out.logits.defined());
  EXPECT_FALSE(eval_out.aux_logits1.defined());
  EXPECT_FALSE(eval_out.aux_logits2.defined());
  EXPECT_TRUE(allclose(eval_out.logits, g->forward(x), 1e-5, 1e-6));

  g->train();
  Tensor after_4a, after_4d;
  g->inception4a->register_forward_hook([&](nn::Module&, const std::vector<Tensor>&, Tensor& out) { after_4a = out; });
  g->inception4d->register_forward_hook([&](nn::Module&, const std::vector<Tensor>&, Tensor& out) { after_4d = out; });
  auto out = g->forward_with_aux(x);
  ASSERT_TRUE(out.aux_logits1.defined() && out.aux_logits2.defined());
  EXPECT_EQ(out.aux_logits2.sizes(), (std::vector<int64_t>{2, 5}));
  // torchvision 0.14 puts aux1's output (after inception4a) in aux_logits2.
  EXPECT_TRUE(allclose(out.aux_logits2, g->aux1(after_4a), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(out.aux_logits1, g->aux2(after_4d), 1e-5, 1e-6));

  auto no_aux = models::googlenet({.num_classes = 5, .aux_logits = false});
  EXPECT_FALSE(no_aux->forward_with_aux(x).aux_logits1.defined());

  auto inc = models::inception_v3({.num_classes = 4, .init_weights = false});
  inc->eval();
  EXPECT_FALSE(inc->forward_with_aux(randn({1, 3, 75, 75})).aux_logits.defined());
  inc->train();
  expect_error([&] { inc->forward_with_aux(randn({2, 3, 160, 160})); },
               "Inception3 AuxLogits: needs a feature map of at least 17x17 (a 299x299 image)");
  EXPECT_EQ(inc->forward(randn({2, 3, 160, 160})).sizes(), (std::vector<int64_t>{2, 4}));  // no head: fine
}

// transform_input re-normalises ImageNet-normalised input channel by channel.
TEST(MobileModelsArch, TransformInput) {
  auto g = models::googlenet({.num_classes = 4, .transform_input = true});
  const Tensor x = randn({2, 3, 5, 5}, kFloat64);
  const Tensor y = g->transform_input(x);
  const double mean[3] = {0.485, 0.456, 0.406}, std[3] = {0.229, 0.224, 0.225};
  for (int64_t c = 0; c < 3; ++c) {
    // x was (img - mean) / std; the weights expect (img - 0.5) / 0.5.
    const Tensor img = x.select(1, c) * std[c] + mean[c];
    EXPECT_TRUE(allclose(y.select(1, c), (img - 0.5) / 0.5, 1e-12, 1e-12)) << c;
  }
  auto plain = models::googlenet({.num_classes = 4});
  EXPECT_TRUE(plain->transform_input(x).is_same(x));

  // The whole model: the same weights without transform_input on transformed input.
  g->eval();
  plain->load_state_dict(g->state_dict());
  plain->eval();
  NoGradGuard no_grad;
  const Tensor images = randn({1, 3, 32, 32});
  EXPECT_TRUE(allclose(g->forward(images), plain->forward(g->transform_input(images)), 1e-5, 1e-6));
  auto inc = models::inception_v3({.num_classes = 4, .transform_input = true, .init_weights = false});
  EXPECT_TRUE(allclose(inc->transform_input(x), y, 1e-12, 1e-12));
}

// EfficientNet's block i of n (16 in B0) drops its branch with
// stochastic_depth_prob * i / n, in "row" mode, in training mode only.
TEST(MobileModelsArch, StochasticDepthSchedule) {
  auto eff = models::efficientnet_b0({.num_classes = 3, .stochastic_depth_prob = 0.4});
  std::vector<double> probs;
  for (const auto& [name, m] : eff->named_modules())
    if (auto sd = std::dynamic_pointer_cast<vision::ops::StochasticDepthImpl>(m)) {
      probs.push_back(sd->p);
      EXPECT_EQ(sd->mode, "row");
    }
  ASSERT_EQ(probs.size(), 16u);
  for (size_t i = 0; i < probs.size(); ++i) EXPECT_DOUBLE_EQ(probs[i], 0.4 * static_cast<double>(i) / 16) << i;
  // Training with stochastic depth changes outputs between calls; eval does not.
  eff->eval();
  NoGradGuard no_grad;
  const Tensor x = randn({2, 3, 32, 32});
  EXPECT_TRUE(equal(eff->forward(x), eff->forward(x)));
}

TEST(MobileModelsArch, Errors) {
  auto v2 = models::mobilenet_v2({.num_classes = 4});
  expect_error([&] { v2->forward(randn({3, 32, 32})); }, "MobileNetV2: expected images [N, 3, H, W], got [3, 32, 32]");
  expect_error([&] { v2->forward(randn({1, 1, 32, 32})); }, "got [1, 1, 32, 32]");
  expect_error([&] { v2->forward(ones({1, 3, 32, 32}, kInt64)); }, "MobileNetV2: expected floating point images");
  expect_error([] { models::mobilenet_v2({.width_mult = 0}); }, "mobilenet_v2: width_mult must be positive");
  expect_error([] { models::mobilenet_v2({.inverted_residual_setting = {{1, 16, 1, 3}}}); },
               "mobilenet_v2: inverted_residual_setting rows are");
  expect_error([] { models::mobilenet_v2({.dropout = 1.5}); }, "dropout must be in [0, 1]");
  expect_error([] { models::mobilenet_v3_conf("mobilenet_v3_medium"); }, "Unsupported model type mobilenet_v3_medium");
  expect_error([] { models::MobileNetV3BlockConfig::make(16, 3, 16, 16, false, "GELU", 1, 1, 1.0); },
               "activation must be \"RE\" or \"HS\"");
  expect_error([] { models::MobileNetV3Impl({}, 1280); }, "The inverted_residual_setting should not be empty");
  expect_error([] { models::ShuffleNetV2Impl({4, 8}, {24, 116, 232, 464, 1024}); },
               "expected stages_repeats as list of 3 positive ints");
  expect_error([] { models::ShuffleNetV2InvertedResidualImpl(24, 58, 1); }, "Invalid combination of stride 1, inp 24");
  expect_error([] { models::ShuffleNetV2InvertedResidualImpl(24, 58, 4); }, "illegal stride value 4");
  expect_error([] { models::efficientnet_b0({.stochastic_depth_prob = 1.5}); },
               "stochastic_depth_prob must be in [0, 1]");
  expect_error([] { models::googlenet({.num_classes = 0}); }, "GoogLeNet: num_classes must be positive");
  auto inc = models::inception_v3({.num_classes = 4, .aux_logits = false, .init_weights = false});
  expect_error([&] { inc->forward(randn({1, 3, 74, 80})); }, "Inception3: expected images of at least 75x75");
}

}  // namespace models_mobile_arch_test
}  // namespace ember
