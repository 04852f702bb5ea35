// Numeric parity of the ResNet / VGG / DenseNet families with torchvision 0.14,
// on the full-size architectures with hashed weights (see
// scripts/fixtures/models_classification.py): eval-mode logits, and one
// train-mode forward + backward (loss, logits, every parameter's gradient
// norm, the first convolution's and the input's gradients, running stats).
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/models/densenet.h>
#include <ember/models/resnet.h>
#include <ember/models/vgg.h>

#include "models_test_util.h"

using namespace ember;
using namespace ember::testing;
namespace F = ember::nn::functional;

namespace {

struct ParityCase {
  std::string name;
  std::string first_conv;   // state_dict key of the first convolution's weight
  std::string first_norm;   // prefix of the first norm layer's buffers
  std::string frozen = "";  // parameters with this prefix are left out of the backward
};

models::ImageClassifier make(const ParityCase& c) {
  models::ModelOptions options{.num_classes = 10};
  if (c.name.starts_with("vgg")) options.dropout = 0.0;
  return models::create(c.name, options);
}

// Eval-mode logits: within 1e-4 of the logits' scale.
void check_eval(const ParityCase& c, bool channels_last) {
  auto model = make(c);
  fill_hashed(*model);
  model->eval();
  Tensor x = models_fixture("input");
  if (channels_last) {
    model->to(MemoryFormat::ChannelsLast);
    x = x.contiguous(MemoryFormat::ChannelsLast);
  }
  NoGradGuard no_grad;
  const Tensor out = (*model)(x);
  expect_close_to_scale(out, models_fixture(c.name + "_eval_out"), 1e-4, c.name + " eval logits");
}

void check_train(const ParityCase& c, bool channels_last) {
  auto model = make(c);
  fill_hashed(*model);
  model->train();
  Tensor x = models_fixture("input").clone();
  if (channels_last) {
    model->to(MemoryFormat::ChannelsLast);
    x = x.contiguous(MemoryFormat::ChannelsLast);
  }
  x.requires_grad_(true);
  for (auto& [pname, p] : model->named_parameters()) {
    Tensor param = p;
    param.requires_grad_(c.frozen.empty() || !pname.starts_with(c.frozen));
  }
  const Tensor out = (*model)(x);
  const Tensor loss = F::cross_entropy(out, models_fixture("target"));
  loss.backward();

  expect_close_to_scale(out, models_fixture(c.name + "_train_out"), 1e-4, c.name + " train logits");
  EXPECT_NEAR(loss.item<double>(), models_fixture(c.name + "_train_loss").item<double>(),
              1e-4 * std::abs(models_fixture(c.name + "_train_loss").item<double>()))
      << c.name;

  // Gradient norms, parameter by parameter (named_parameters order).
  const Tensor norms = models_fixture(c.name + "_grad_norms");
  int64_t i = 0;
  double worst = 0;
  std::string worst_name;
  for (const auto& [pname, p] : model->named_parameters()) {
    if (!p.requires_grad()) continue;
    ASSERT_LT(i, norms.numel()) << c.name;
    ASSERT_TRUE(p.grad().defined()) << c.name << " " << pname;
    const double ours = p.grad().to(kFloat64).norm().item<double>();
    const double ref = norms[i++].item<double>();
    const double rel = std::abs(ours - ref) / std::max(ref, 1e-12);
    if (rel > worst) worst = rel, worst_name = pname;
  }
  EXPECT_EQ(i, norms.numel()) << c.name;
  EXPECT_LE(worst, 2e-3) << c.name << ": gradient norm of " << worst_name << " off by " << worst << " (relative)";

  const auto params = model->named_parameters();
  expect_close_to_scale(params.at(c.first_conv).grad(), models_fixture(c.name + "_grad_first_conv"), 1e-3,
                        c.name + " " + c.first_conv + " gradient");
  expect_close_to_scale(x.grad(), models_fixture(c.name + "_grad_input"), 1e-3, c.name + " input gradient");
  const auto buffers = model->named_buffers();
  expect_close_to_scale(buffers.at(c.first_norm + ".running_mean"), models_fixture(c.name + "_running_mean"), 1e-5,
                        c.name + " running_mean");
  expect_close_to_scale(buffers.at(c.first_norm + ".running_var"), models_fixture(c.name + "_running_var"), 1e-5,
                        c.name + " running_var");
}

const ParityCase kResNet18{"resnet18", "conv1.weight", "bn1"};
const ParityCase kResNet50{"resnet50", "conv1.weight", "bn1"};
const ParityCase kResNeXt50{"resnext50_32x4d", "conv1.weight", "bn1"};
const ParityCase kWideResNet50{"wide_resnet50_2", "conv1.weight", "bn1"};
const ParityCase kVgg11Bn{"vgg11_bn", "features.0.weight", "features.1", "classifier."};
const ParityCase kDenseNet121{"densenet121", "features.conv0.weight", "features.norm0"};

}  // namespace

TEST(ClassificationParity, ResNet18Eval) { check_eval(kResNet18, false); }
TEST(ClassificationParity, ResNet18EvalChannelsLast) { check_eval(kResNet18, true); }
TEST(ClassificationParity, ResNet18Train) { check_train(kResNet18, false); }
TEST(ClassificationParity, ResNet18TrainChannelsLast) { check_train(kResNet18, true); }
TEST(ClassificationParity, ResNet50Eval) { check_eval(kResNet50, false); }
TEST(ClassificationParity, ResNet50Train) { check_train(kResNet50, false); }
TEST(ClassificationParity, ResNeXt50Eval) { check_eval(kResNeXt50, false); }
TEST(ClassificationParity, ResNeXt50TrainChannelsLast) { check_train(kResNeXt50, true); }
TEST(ClassificationParity, WideResNet50Eval) { check_eval(kWideResNet50, true); }
TEST(ClassificationParity, WideResNet50Train) { check_train(kWideResNet50, false); }
TEST(ClassificationParity, Vgg11BnEval) { check_eval(kVgg11Bn, false); }
TEST(ClassificationParity, Vgg11BnTrain) { check_train(kVgg11Bn, false); }
TEST(ClassificationParity, DenseNet121Eval) { check_eval(kDenseNet121, false); }
TEST(ClassificationParity, DenseNet121EvalChannelsLast) { check_eval(kDenseNet121, true); }
TEST(ClassificationParity, DenseNet121Train) { check_train(kDenseNet121, false); }
