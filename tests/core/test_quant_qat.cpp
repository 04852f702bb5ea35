// Quantization-aware training against PyTorch 1.13 (scripts/fixtures/quant_workflow.py,
// qat_cases): fuse_modules_qat + prepare_qat with fbgemm's version-0 QAT qconfig
// on a small CNN; the swapped modules, PyTorch's state_dict keys, three
// training steps' outputs and weight gradients (the third after
// freeze_bn_stats), the BatchNorm statistics and the fake quantizers' scales.
#include <gtest/gtest.h>

#include <fstream>

#include <ember/ao/quantization/qat_modules.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace quant_qat_test {

using namespace ember::ao::quantization;
using testing::expect_error;
using testing::expect_tensor_near;
using testing::fixture;

Tensor fx(const std::string& name) { return fixture("quant_workflow", name); }

// PyTorch's QuantWrapper(Sequential(Conv2d(3, 4, 3), BatchNorm2d(4), ReLU, Flatten, Linear(144, 5))).
QuantWrapper small_cnn() {
  QuantWrapper m(nn::AnyModule(nn::Sequential(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU(), nn::Flatten(),
                                              nn::Linear(144, 5))));
  m->load_state_dict(serialize::load_torch_state_dict(testing::fixture_path("core/quant_workflow/qat.pt")), true);
  m->train();
  return m;
}

std::vector<std::string> torch_keys() {
  std::ifstream in(testing::fixture_path("core/quant_workflow/qat_keys.txt"));
  std::vector<std::string> keys;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) keys.push_back(line);
  return keys;
}

TEST(QuantQat, PrepareQatSwapsAndTrainsAsTorch) {
  QuantWrapper m = small_cnn();
  fuse_modules_qat(*m, {{"module.0", "module.1", "module.2"}});
  const auto observed = prepare_qat(*m, {{"", get_default_qat_qconfig("fbgemm", 0)}});
  EXPECT_EQ(observed, (std::vector<std::string>{"quant", "module.0", "module.4"}));
  auto conv_bn = std::dynamic_pointer_cast<qat::ConvBnReLU2dImpl>(module_at(*m, "module.0"));
  auto linear = std::dynamic_pointer_cast<qat::LinearImpl>(module_at(*m, "module.4"));
  ASSERT_TRUE(conv_bn && linear);
  EXPECT_EQ(m->state_dict().keys(), torch_keys());
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    const std::string s = std::to_string(i);
    if (i == 2) freeze_bn_stats(*m);
    m->zero_grad();
    Tensor y = m(fx("qat_x" + s));
    // Ember's convolution rounds differently from PyTorch's in the last bits;
    // a value at a rounding boundary of a fake quantizer could then move by
    // one quantum, which these data do not hit.
    expect_tensor_near(y, fx("qat_y" + s), 1e-5, 1e-5);
    (y * fx("qat_gout" + s)).sum().backward();
    expect_tensor_near(conv_bn->weight.grad(), fx("qat_gw_conv" + s), 1e-4, 1e-5);
    expect_tensor_near(linear->weight.grad(), fx("qat_gw_linear" + s), 1e-4, 1e-5);
    expect_tensor_near(conv_bn->bn->running_mean, fx("qat_running_mean" + s), 1e-5, 1e-6);
    expect_tensor_near(std::dynamic_pointer_cast<FakeQuantize>(observer_of(*m, "module.0"))->scale, fx("qat_act_scale" + s),
                       1e-5, 0);
  }
  EXPECT_TRUE(conv_bn->bn_frozen());
  m->train();  // frozen statistics stay frozen
  EXPECT_FALSE(conv_bn->bn->is_training());
  update_bn_stats(*m);
  EXPECT_TRUE(conv_bn->bn->is_training());
}

TEST(QuantQat, QatModulesShareTheFloatTensors) {
  nn::Sequential m(nn::Conv2d(3, 4, 3), nn::ReLU(), nn::Flatten(), nn::Linear(144, 5), nn::ReLU());
  const Tensor w = m->ptr<nn::Conv2dImpl>(0)->weight;
  fuse_modules(*m, {{"0", "1"}, {"3", "4"}});
  prepare_qat(*m, {{"", get_default_qat_qconfig("qnnpack")}});
  auto conv = std::dynamic_pointer_cast<qat::ConvReLU2dImpl>(module_at(*m, "0"));
  ASSERT_TRUE(conv);
  EXPECT_TRUE(conv->weight.is_same(w));
  EXPECT_TRUE(std::dynamic_pointer_cast<qat::LinearReLUImpl>(module_at(*m, "3")));
  // Weight fake quantization: the forward equals relu(conv(x, fq(w))).
  const Tensor x = randn({2, 3, 8, 8});
  Tensor y = conv->forward(x);
  const Tensor fqw = conv->weight_fake_quant->forward(w.detach());
  expect_tensor_near(y.detach(), nn::functional::conv2d(x, fqw, {.bias = conv->bias.detach()}).relu(), 1e-6, 1e-6);
  disable_fake_quant(*m);
  expect_tensor_near(conv->forward(x).detach(), nn::functional::conv2d(x, w.detach(), {.bias = conv->bias.detach()}).relu(),
                     1e-6, 1e-6);
}

TEST(QuantQat, BadInput) {
  nn::Sequential m(nn::Conv2d(3, 4, 3));
  m->eval();
  expect_error([&] { prepare_qat(*m, {{"", get_default_qat_qconfig("x86")}}); }, "only works on models in training mode");
  m->train();
  expect_error([&] { prepare_qat(*m, {{"", get_default_qat_qconfig("foo")}}); }, "unknown backend 'foo'");
}

}  // namespace quant_qat_test
}  // namespace ember
