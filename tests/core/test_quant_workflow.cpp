// The eager-mode workflow on a small CNN against PyTorch 1.13
// (scripts/fixtures/quant_workflow.py, prepare_cases): fuse_modules numerics,
// where prepare puts observers, the qparams after calibration, convert's
// module swap, and the errors for bad fuse lists and unswappable parents.
#include <gtest/gtest.h>

#include <ember/ao/quantization/fused_modules.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace quant_workflow_test {

using namespace ember::ao::quantization;
using testing::expect_error;
using testing::expect_tensor_near;
using testing::fixture;

Tensor fx(const std::string& name) { return fixture("quant_workflow", name); }

// PyTorch's QuantWrapper(Sequential(Conv2d(3, 4, 3), BatchNorm2d(4), ReLU, MaxPool2d(2),
// Flatten, Linear(36, 5), ReLU)), with the fixture's weights, in eval mode.
struct SmallCnn {
  nn::Sequential body{nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU(), nn::MaxPool2d({.kernel_size = 2}),
                      nn::Flatten(), nn::Linear(36, 5), nn::ReLU()};
  QuantWrapper model{nn::AnyModule(body)};
  SmallCnn() {
    model->load_state_dict(serialize::load_torch_state_dict(testing::fixture_path("core/quant_workflow/cnn.pt")),
                           true);
    model->eval();
  }
};

const std::vector<std::vector<std::string>> kFuseGroups = {{"module.0", "module.1", "module.2"},
                                                           {"module.5", "module.6"}};

TEST(QuantWorkflow, FuseModulesEvalFoldsBatchNorm) {
  SmallCnn c;
  auto& m = c.body;
  const Tensor x = fx("cnn_x");
  const Tensor before = c.model(x);
  expect_tensor_near(before, fx("cnn_float_out"), 1e-5, 1e-6);
  fuse_modules(*c.model, kFuseGroups);
  EXPECT_EQ((*m)[0]->name(), "ConvReLU2d");
  EXPECT_EQ((*m)[1]->name(), "Identity");
  EXPECT_EQ((*m)[2]->name(), "Identity");
  EXPECT_EQ((*m)[5]->name(), "LinearReLU");
  EXPECT_EQ((*m)[6]->name(), "Identity");
  const Tensor after = c.model(x);
  expect_tensor_near(after, before, 1e-5, 1e-6);  // fused eval conv == conv + bn
  expect_tensor_near(after, fx("cnn_fused_out"), 1e-5, 1e-6);
  EXPECT_EQ(c.model->state_dict().keys(),
            (std::vector<std::string>{"module.0.0.weight", "module.0.0.bias", "module.5.0.weight", "module.5.0.bias"}));
}

TEST(QuantWorkflow, FuseModulesQatKeepsBatchNorm) {
  nn::Sequential m(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU());
  nn::Sequential ref(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU());
  ref->load_state_dict(m->state_dict());
  expect_error([&] { fuse_modules(*m, {{"0", "1", "2"}}); }, "Fusion only for eval!");
  fuse_modules_qat(*m, {{"0", "1", "2"}});
  EXPECT_EQ((*m)[0]->name(), "ConvBnReLU2d");
  EXPECT_TRUE((*m)[0]->is_training());
  const Tensor x = randn({2, 3, 6, 6});
  expect_tensor_near(m(x), ref(x), 1e-6, 1e-6);
  // The running statistics were updated through the fused module.
  expect_tensor_near(m->state_dict().at("0.1.running_mean"), ref->state_dict().at("1.running_mean"), 1e-6, 1e-7);
}

TEST(QuantWorkflow, PrepareObservesWhereTorchDoesAndCalibratesTheSame) {
  SmallCnn c;
  auto& m = c.model;
  fuse_modules(*m, kFuseGroups);
  const auto observed = prepare(*m, {{"", get_default_qconfig("x86")}});
  EXPECT_EQ(observed, (std::vector<std::string>{"quant", "module.0", "module.5"}));
  std::vector<std::string> expected_keys;
  for (const std::string path : {"quant", "module.0", "module.5"}) {
    if (path != "quant")
      for (const char* p : {".0.weight", ".0.bias"}) expected_keys.push_back(path + p);
    for (const char* b : {"eps", "histogram", "min_val", "max_val"})
      expected_keys.push_back(path + ".activation_post_process." + b);
  }
  EXPECT_EQ(m->state_dict().keys(), expected_keys);
  // prepare twice leaves the observers alone.
  EXPECT_EQ(prepare(*m, {{"", get_default_qconfig("x86")}}).size(), 3u);
  EXPECT_EQ(m->state_dict().size(), expected_keys.size());
  for (int i = 0; i < 3; ++i) m(fx("cnn_calib" + std::to_string(i)));
  for (const std::string path : {"quant", "module.0", "module.5"}) {
    SCOPED_TRACE("observer of " + path);
    auto obs = observer_of(*m, path);
    ASSERT_TRUE(obs);
    auto [scale, zp] = obs->calculate_qparams();
    // The QuantMarker sees the input itself: exact. The others see Ember's
    // convolution / linear outputs, equal to PyTorch's to float rounding.
    const bool input = path == "quant";
    const double tol = input ? 0.0 : 1e-5;
    expect_tensor_near(obs->own_buffers().at("min_val"), fx("cnn_obs_" + path + "_min"), tol, tol);
    expect_tensor_near(obs->own_buffers().at("max_val"), fx("cnn_obs_" + path + "_max"), tol, tol);
    expect_tensor_near(scale, fx("cnn_obs_" + path + "_scale"), input ? 0.0 : 1e-3, 0);
    expect_tensor_near(zp, fx("cnn_obs_" + path + "_zp"), 0, input ? 0.0 : 1.0);
  }
  EXPECT_TRUE(qconfig_of(*m, "module.0").has_value());
  EXPECT_EQ(observer_of(*m, "module.3"), nullptr);  // MaxPool2d is not observed
  EXPECT_EQ(observer_of(*m, "dequant"), nullptr);
}

TEST(QuantWorkflow, CalibratedTorchStateLoadsIntoThePreparedModel) {
  SmallCnn c;
  fuse_modules(*c.model, kFuseGroups);
  prepare(*c.model, {{"", get_default_qconfig("x86")}});
  // PyTorch's state_dict after its calibration: weights and every observer's
  // eps, histogram, min_val and max_val, loaded strictly.
  c.model->load_state_dict(
      serialize::load_torch_state_dict(testing::fixture_path("core/quant_workflow/cnn_prepared.pt")), true);
  for (const std::string path : {"quant", "module.0", "module.5"}) {
    SCOPED_TRACE(path);
    auto [scale, zp] = observer_of(*c.model, path)->calculate_qparams();
    expect_tensor_near(scale, fx("cnn_obs_" + path + "_scale"), 0, 0);
    expect_tensor_near(zp, fx("cnn_obs_" + path + "_zp"), 0, 0);
  }
}

// A module whose children are members, made swappable: swap_child rebinds them.
struct Block : nn::Module, SwappableModule {
  Block() : nn::Module("Block"), conv(nn::Conv2d(3, 4, 3)), bn(nn::BatchNorm2d(4)), relu(nn::ReLU()) {
    register_module("conv", conv.ptr());
    register_module("bn", bn.ptr());
    register_module("relu", relu.ptr());
  }
  Tensor forward(const Tensor& x) { return relu.forward(bn.forward(conv.forward(x))); }
  void swap_child(const std::string& name, nn::AnyModule replacement) override {
    (name == "conv" ? conv : name == "bn" ? bn : relu) = replacement;
    replace_module(name, replacement.ptr());
  }
  nn::AnyModule conv, bn, relu;
};

TEST(QuantWorkflow, SwappableModuleChildrenFuse) {
  auto block = std::make_shared<Block>();
  block->eval();
  const Tensor x = randn({2, 3, 6, 6});
  const Tensor before = block->forward(x);
  fuse_modules(*block, {{"conv", "bn", "relu"}});
  EXPECT_EQ(block->conv.ptr()->name(), "ConvReLU2d");
  EXPECT_EQ(block->bn.ptr()->name(), "Identity");
  expect_tensor_near(block->forward(x), before, 1e-5, 1e-6);
  EXPECT_EQ(prepare(*block, {{"", default_qconfig()}}), (std::vector<std::string>{"conv"}));
}

TEST(QuantWorkflow, QConfigDictTurnsQuantizationOffForASubtree) {
  SmallCnn c;
  const auto observed = prepare(*c.model, {{"", get_default_qconfig("qnnpack")}, {"module.5", std::nullopt}});
  // QuantMarker, Conv2d, BatchNorm2d; not the Linear.
  EXPECT_EQ(observed, (std::vector<std::string>{"quant", "module.0", "module.1"}));
  EXPECT_FALSE(qconfig_of(*c.model, "module.5").has_value());
}

TEST(QuantWorkflow, ConvertSwapsThroughTheTable) {
  SmallCnn c;
  auto& m = c.model;
  fuse_modules(*m, kFuseGroups);
  prepare(*m, {{"", default_qconfig()}});
  m(fx("cnn_x"));
  ConversionTable table;
  float seen_scale = 0;
  table.add<LinearReLUImpl>([&](nn::Module& observed, ObserverOrFakeQuantize* obs, const QConfig& qc) {
    EXPECT_EQ(observed.name(), "LinearReLU");
    EXPECT_TRUE(obs != nullptr && qc.weight);
    seen_scale = obs->calculate_qparams().first.item<float>();
    return nn::AnyModule(nn::Identity());
  });
  EXPECT_EQ(convert(*m, table), (std::vector<std::string>{"module.5"}));
  EXPECT_GT(seen_scale, 0.0f);
  EXPECT_EQ((*c.body)[5]->name(), "Identity");
  EXPECT_EQ(m(fx("cnn_x")).size(1), 36);  // the swapped element runs in the Sequential's forward
}

TEST(QuantWorkflow, QuantWrapperRunsTheModuleBetweenMarkers) {
  QuantWrapper w(nn::AnyModule(nn::Linear(3, 2)));
  EXPECT_EQ(w->named_children().keys(), (std::vector<std::string>{"quant", "dequant", "module"}));
  EXPECT_EQ(prepare(*w, {{"", default_qconfig()}}), (std::vector<std::string>{"quant", "module"}));
  EXPECT_EQ(w(randn({4, 3})).size(1), 2);
}

struct Plain : nn::Module {
  Plain() : nn::Module("Plain") { conv = register_module("conv", nn::Conv2d(3, 4, 3)); relu = register_module("relu", nn::ReLU()); }
  Tensor forward(const Tensor& x) { return relu(conv(x)); }
  nn::Conv2d conv{nullptr};
  nn::ReLU relu{nullptr};
};

TEST(QuantWorkflow, BadFuseListsAndParents) {
  SmallCnn c;
  auto& m = c.body;
  expect_error([&] { fuse_modules(*m, {{"3", "4"}}); }, "cannot fuse (MaxPool2d, Flatten)");
  expect_error([&] { fuse_modules(*m, {{"0", "9"}}); }, "no module named '9'");
  expect_error([&] { fuse_modules(*m, {{"0"}}); }, "a group has 1 modules");
  (*m)[1]->train();
  expect_error([&] { fuse_modules(*m, {{"0", "1"}}); }, "must all be in the same mode");
  // QuantWrapper is not swappable: its children are fixed.
  expect_error([&] { fuse_modules(*c.model, {{"module", "quant"}}); }, "cannot fuse (Sequential, QuantMarker)");
  auto plain = std::make_shared<Plain>();
  expect_error([&] { fuse_modules(*plain, {{"conv", "relu"}}); }, "its parent Plain is neither an nn::Sequential");
  expect_error([&] { prepare(*m, {{"nope", default_qconfig()}}); }, "no module named 'nope'");
  nn::LinearImpl on_stack(3, 3);
  expect_error([&] { prepare(on_stack, {{"", default_qconfig()}}); }, "must be owned by a std::shared_ptr");
  nn::Sequential lb(nn::Linear(3, 3), nn::BatchNorm1d(3));
  expect_error([&] { fuse_modules(*lb, {{"0", "1"}}); }, "Fusion only for eval!");
  fuse_modules_qat(*lb, {{"0", "1"}});
  EXPECT_EQ((*lb)[0]->name(), "LinearBn1d");
}

}  // namespace quant_workflow_test
}  // namespace ember
