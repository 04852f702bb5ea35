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

namespace densenet_test {

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

// One training-mode step against torch's float64 run: in float32 within a
// multiple of torch's own float32 error, in float64 (dtype) tightly.
void check_tiny_train(const std::string& case_name, bool memory_efficient, DType dtype) {
  auto net = tiny_densenet(memory_efficient);
  net->to(dtype);
  net->train();
  Tensor x = models_fixture("input").to(dtype).requires_grad_(true);
  const Tensor out = net(x);
  const Tensor loss = F::cross_entropy(out, models_fixture("target"));
  loss.backward();
  expect_within_torch_error(out, case_name + "_train_out", case_name + " logits");
  expect_within_torch_error(loss, case_name + "_train_loss", case_name + " loss");
  expect_within_torch_error(x.grad(), case_name + "_grad_input", case_name + " input gradient");
  for (const auto& [name, p] : net->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    expect_within_torch_error(p.grad(), case_name + "_g_" + name, case_name + " grad " + name);
  }
  for (const auto& [name, b] : net->named_buffers()) {
    if (b.is_floating_point()) {
      expect_within_torch_error(b, case_name + "_b_" + name, case_name + " buffer " + name);
    } else {
      EXPECT_EQ(b.item<int64_t>(), models_fixture(case_name + "_b_" + name)[0].item<int64_t>())
          << case_name << " " << name;
    }
  }
}

TEST(DenseNet, TinyCheckpointEval) {
  auto net = tiny_densenet();
  net->eval();
  NoGradGuard no_grad;
  expect_close_to_scale(net(models_fixture("input")), models_fixture("densenet_tiny_eval_out"), 1e-5, "eval logits");
}

TEST(DenseNet, TinyCheckpointTrain) { check_tiny_train("densenet_tiny", false, kFloat32); }
TEST(DenseNet, TinyCheckpointTrainFloat64) { check_tiny_train("densenet_tiny", false, kFloat64); }

TEST(DenseNet, TinyMemoryEfficientTrain) { check_tiny_train("densenet_tiny_me", true, kFloat32); }
TEST(DenseNet, TinyMemoryEfficientTrainFloat64) { check_tiny_train("densenet_tiny_me", true, kFloat64); }

}  // namespace densenet_test
