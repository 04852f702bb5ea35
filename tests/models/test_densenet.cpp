// DenseNet: a small DenseNet with torchvision's own random init, loaded from
// its torch.save'd state_dict (forward, every gradient, running statistics,
// memory_efficient), the building blocks, legacy key renaming, errors.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/models/densenet.h>

#include "models_test_util.h"

using namespace ember;
using namespace ember::testing;
namespace F = ember::nn::functional;

namespace {

models::DenseNet tiny_densenet(bool memory_efficient = false) {
  auto net = models::DenseNet(models::DenseNetOptions{.growth_rate = 8,
                                                      .block_config = {2, 2, 2},
                                                      .num_init_features = 16,
                                                      .bn_size = 2,
                                                      .num_classes = 10,
                                                      .memory_efficient = memory_efficient});
  net->load_state_dict(serialize::load_torch_state_dict(models_fixture_path("densenet_tiny.pt")));
  return net;
}

void check_tiny_train(const std::string& case_name, bool memory_efficient) {
  auto net = tiny_densenet(memory_efficient);
  net->train();
  Tensor x = models_fixture("input").clone().requires_grad_(true);
  const Tensor out = net(x);
  const Tensor loss = F::cross_entropy(out, models_fixture("target"));
  loss.backward();
  expect_close_to_scale(out, models_fixture(case_name + "_train_out"), 1e-5, case_name + " logits");
  EXPECT_NEAR(loss.item<double>(), models_fixture(case_name + "_train_loss").item<double>(), 1e-5);
  expect_close_to_scale(x.grad(), models_fixture(case_name + "_grad_input"), 1e-4, case_name + " input gradient");
  for (const auto& [name, p] : net->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    expect_close_to_scale(p.grad(), models_fixture(case_name + "_g_" + name), 1e-4, case_name + " grad " + name);
  }
  for (const auto& [name, b] : net->named_buffers()) {
    const Tensor expected = models_fixture(case_name + "_b_" + name);
    if (b.is_floating_point()) {
      expect_close_to_scale(b, expected, 1e-5, case_name + " buffer " + name);
    } else {
      EXPECT_EQ(b.item<int64_t>(), expected[0].item<int64_t>()) << case_name << " " << name;
    }
  }
}

}  // namespace

TEST(DenseNet, TinyCheckpointEval) {
  auto net = tiny_densenet();
  net->eval();
  NoGradGuard no_grad;
  expect_close_to_scale(net(models_fixture("input")), models_fixture("densenet_tiny_eval_out"), 1e-5, "eval logits");
}

TEST(DenseNet, TinyCheckpointTrain) { check_tiny_train("densenet_tiny", false); }

TEST(DenseNet, TinyMemoryEfficientTrain) { check_tiny_train("densenet_tiny_me", true); }
