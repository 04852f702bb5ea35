// Eager-mode PTQ and QAT end to end against PyTorch 1.13 on the onednn engine
// (fixtures: scripts/fixtures/quant_convert.py): the same float CNN is fused,
// prepared, calibrated or trained, and converted on both sides; the converted
// modules' types, every quantized weight, the scale and zero point of every
// converted module's output, and the stored integers of each output are
// compared. Observers and kernels are bit-exact with torch's, so the qparams
// and weights must be equal; the integers may differ by one quantum where a
// requantization lands within float rounding of a half (Note [Quantized
// kernels]).
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include <ember/ao/nn/quantized/activation_pooling.h>
#include <ember/ao/nn/quantized/functional_modules.h>
#include <ember/ao/nn/quantized/modules.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace quant_convert_test {

using namespace ember::ao::quantization;
namespace nnq = ember::ao::nn::quantized;
namespace nniq = ember::ao::nn::intrinsic::quantized;
using testing::expect_error;
using testing::expect_tensor_near;

Tensor fx(const std::string& name) { return testing::fixture("quant_convert", name); }

const std::vector<std::string> kTaps = {"quant", "conv1", "conv2", "add", "pool", "fc1", "fc2"};
const std::vector<std::vector<std::string>> kFuse = {{"conv1", "bn1", "relu1"}, {"conv2", "relu2"}, {"fc1", "relu3"}};

// The fixture script's Net: members are AnyModules (and a FunctionalModule
// pointer for the add) so that fusion and convert can swap them.
struct NetImpl : nn::Module, SwappableModule {
  NetImpl() : nn::Module("Net") {
    add("quant", QuantMarker());
    add("conv1", nn::Conv2d({.in_channels = 3, .out_channels = 8, .kernel_size = 3, .padding = 1}));
    add("bn1", nn::BatchNorm2d(8));
    add("relu1", nn::ReLU());
    add("conv2", nn::Conv2d({.in_channels = 8, .out_channels = 8, .kernel_size = 3, .padding = 1}));
    add("relu2", nn::ReLU());
    skip_add = nnq::FloatFunctional().ptr();
    register_module("skip_add", skip_add);
    add("pool", nn::MaxPool2d(2));
    add("flatten", nn::Flatten());
    add("fc1", nn::Linear(8 * 4 * 4, 32));
    add("relu3", nn::ReLU());
    add("fc2", nn::Linear(32, 10));
    add("dequant", DeQuantMarker());
  }
  Tensor run(const std::string& name, const Tensor& x) { return children_.at(name).forward(x); }
  Tensor forward(const Tensor& input) {
    Tensor x = taps["quant"] = run("quant", input);
    x = taps["conv1"] = run("relu1", run("bn1", run("conv1", x)));
    Tensor y = taps["conv2"] = run("relu2", run("conv2", x));
    x = taps["add"] = skip_add->add(x, y);
    x = taps["pool"] = run("pool", x);
    x = run("flatten", x);
    x = taps["fc1"] = run("relu3", run("fc1", x));
    x = taps["fc2"] = run("fc2", x);
    return run("dequant", x);
  }
  void swap_child(const std::string& name, nn::AnyModule replacement) override {
    if (name == "skip_add") {
      skip_add = std::dynamic_pointer_cast<nnq::FunctionalModule>(replacement.ptr());
      ASSERT_NE(skip_add, nullptr);
    } else {
      children_.at(name) = replacement;
    }
    replace_module(name, replacement.ptr());
  }

  std::shared_ptr<nnq::FunctionalModule> skip_add;
  std::map<std::string, Tensor> taps;

 private:
  void add(const std::string& name, nn::AnyModule m) {
    register_module(name, m.ptr());
    children_.emplace(name, std::move(m));
  }
  std::map<std::string, nn::AnyModule> children_;
};
EMBER_MODULE(Net);

Net float_net() {
  Net net;
  net->load_state_dict(serialize::load_torch_state_dict(testing::fixture_path("core/quant_convert/net.pt")), true);
  return net;
}

std::vector<std::pair<std::string, std::string>> torch_module_types(const std::string& prefix) {
  std::ifstream in(testing::fixture_path("core/quant_convert/" + prefix + "_modules.txt"));
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string name, type; in >> name >> type;) out.emplace_back(name, type);
  return out;
}

// Ember's module type names carry a "Quantized" prefix where torch's class
// names are the bare layer names.
void expect_types_match(Net& net, const std::string& prefix) {
  const auto children = net->named_children();
  for (const auto& [name, torch_type] : torch_module_types(prefix)) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(children.contains(name));
    const std::string ours = children.at(name)->name();
    EXPECT_TRUE(ours == torch_type || ours == "Quantized" + torch_type) << ours << " vs torch's " << torch_type;
  }
}

template <class QuantizedWeighted>
Tensor weight_of(Net& net, const std::string& path) {
  auto m = std::dynamic_pointer_cast<QuantizedWeighted>(module_at(*net, path));
  EXPECT_NE(m, nullptr) << path;
  return m ? m->weight : Tensor();
}

void expect_weights(Net& net, const std::string& prefix, double scale_rtol = 0) {
  for (const std::string name : {"conv1", "conv2", "fc1", "fc2"}) {
    SCOPED_TRACE(prefix + " weight " + name);
    const Tensor w = name.starts_with("conv") ? weight_of<nnq::Conv2dImpl>(net, name) : weight_of<nnq::LinearImpl>(net, name);
    ASSERT_TRUE(w.defined());
    EXPECT_TRUE(w.int_repr().to(kInt64).equal(fx(prefix + "_w_" + name + "_int").to(kInt64)));
    const bool per_channel = w.qscheme() == QScheme::kPerChannelAffine || w.qscheme() == QScheme::kPerChannelSymmetric;
    const Tensor scales = per_channel ? w.q_per_channel_scales() : full({1}, w.q_scale(), kFloat64);
    const Tensor zps = per_channel ? w.q_per_channel_zero_points() : full({1}, w.q_zero_point(), kInt64);
    expect_tensor_near(scales, fx(prefix + "_w_" + name + "_scales"), scale_rtol, 0);
    EXPECT_TRUE(zps.to(kInt64).equal(fx(prefix + "_w_" + name + "_zps").to(kInt64)));
  }
}

// Each tap's qparams equal; integers equal but for at most `max_off` values one quantum away.
void expect_taps(Net& net, const std::string& prefix, int64_t max_off) {
  for (const std::string& name : kTaps) {
    SCOPED_TRACE(prefix + " tap " + name);
    const Tensor q = net->taps.at(name);
    ASSERT_TRUE(q.is_quantized());
    const Tensor qp = fx(prefix + "_tap_" + name + "_qparams");
    // The scale may differ in the last bits where the float model's output
    // (an observer's input) does: Ember's float matmul sums in another order.
    EXPECT_NEAR(q.q_scale(), qp[0].item<double>(), 1e-6 * qp[0].item<double>());
    EXPECT_EQ(q.q_zero_point(), static_cast<int64_t>(qp[1].item<double>()));
    const Tensor diff = (q.int_repr().to(kInt64) - fx(prefix + "_tap_" + name + "_int").to(kInt64)).abs();
    EXPECT_LE(diff.max().item<int64_t>(), 1);
    EXPECT_LE(diff.gt(0).sum().item<int64_t>(), max_off) << "of " << diff.numel();
  }
}

// The final float output: within one quantum of fc2's output.
void expect_output(Net& net, const Tensor& y, const std::string& prefix) {
  const double quantum = net->taps.at("fc2").q_scale();
  expect_tensor_near(y, fx(prefix + "_y"), 0, quantum * 1.001);
}

void run_ptq(const std::string& backend) {
  SCOPED_TRACE(backend);
  Net net = float_net();
  net->eval();
  fuse_modules(*net, kFuse);
  prepare(*net, {{"", get_default_qconfig(backend)}});
  for (int i = 0; i < 4; ++i) net(fx("calib" + std::to_string(i)));
  const auto swapped = convert(*net);
  EXPECT_EQ(swapped, (std::vector<std::string>{"quant", "conv1", "conv2", "skip_add", "pool", "fc1", "fc2", "dequant"}));
  const std::string prefix = "ptq_" + backend;
  expect_types_match(net, prefix);
  expect_weights(net, prefix);
  const Tensor y = net(fx("x"));
  expect_taps(net, prefix, 0);
  expect_output(net, y, prefix);
}

TEST(QuantConvert, PtqOnednnMatchesTorch) { run_ptq("onednn"); }
TEST(QuantConvert, PtqQnnpackMatchesTorch) { run_ptq("qnnpack"); }

TEST(QuantConvert, QatMatchesTorch) {
  Net net = float_net();
  net->train();
  fuse_modules_qat(*net, kFuse);
  prepare_qat(*net, {{"", get_default_qat_qconfig("onednn")}});
  optim::SGD opt(net->parameters(), {.lr = 0.05, .momentum = 0.9});
  for (int i = 0; i < 3; ++i) {
    const std::string s = std::to_string(i);
    opt.zero_grad();
    Tensor loss = nn::functional::cross_entropy(net(fx("qat_x" + s)), fx("qat_t" + s));
    expect_tensor_near(loss, fx("qat_loss" + s), 1e-5, 1e-6);
    loss.backward();
    opt.step();
  }
  net->eval();
  convert(*net);
  expect_types_match(net, "qat");
  // Three training steps leave the float weights within float rounding of
  // torch's (Ember's convolution and matmul sum in another order), and so the
  // weight scales too; the integers are equal.
  expect_weights(net, "qat", 1e-5);
  const Tensor y = net(fx("x"));
  expect_taps(net, "qat", 0);
  expect_output(net, y, "qat");
}

// ---- bad input ----

TEST(QuantConvert, UnpreparedModelIsAnError) {
  Net net = float_net();
  net->eval();
  expect_error([&] { convert(*net); }, "was not prepared (call prepare or prepare_qat");
}

TEST(QuantConvert, StrictRefusesAnObservedModuleWithoutEntry) {
  auto build = [] {
    QuantWrapper m(nn::AnyModule(nn::Sequential(nn::Linear(4, 4), nn::PReLU())));
    m->eval();
    prepare(*m, {{"", get_default_qconfig("onednn")}});
    m(randn({3, 4}));
    return m;
  };
  QuantWrapper strict = build();
  // PReLU is observed (PyTorch's nnq.PReLU has no Ember counterpart yet).
  expect_error([&] { convert(*strict, {.strict = true}); }, "'module.1' (PReLU) was observed but the conversion table has no entry");
  QuantWrapper lenient = build();
  EXPECT_EQ(convert(*lenient), (std::vector<std::string>{"quant", "dequant", "module.0"}));
  EXPECT_EQ(module_at(*lenient, "module.1")->name(), "PReLU");
}

TEST(QuantConvert, MissingActivationObserverNamesTheModule) {
  // A qconfig whose activation observer computes no qparams attaches none.
  QConfig no_act{[] { return std::make_shared<NoopObserver>(QDType::kQUInt8); }, default_weight_observer()};
  nn::Sequential m(nn::Linear(4, 3));
  m->eval();
  prepare(*m, {{"", no_act}});
  expect_error([&] { convert(*m); }, "convert: '0' (Linear): QuantizedLinear: the module has no activation observer");
}

TEST(QuantConvert, WeightObserverMustBeQint8) {
  QConfig bad{default_observer(), observer_factory<MinMaxObserver>({.dtype = QDType::kQUInt8})};
  nn::Sequential m(nn::Linear(4, 3));
  m->eval();
  prepare(*m, {{"", bad}});
  m(randn({2, 4}));
  expect_error([&] { convert(*m); }, "the weight observer must have dtype torch.qint8, got torch.quint8");
}

TEST(QuantConvert, FunctionalModulesRefuseForwardAndFloatReLU6) {
  nnq::FloatFunctional ff;
  expect_error([&] { ff->forward(randn({2})); }, "FloatFunctional is not intended to use the 'forward'");
  nnq::QFunctional qf(0.1, 0);
  expect_error([&] { qf->forward(randn({2})); }, "QFunctional is not intended to use the 'forward'");
  expect_error([&] { nnq::ReLU6()->forward(randn({2})); }, "QuantizedReLU6: expected a per-tensor quantized input");
}

// ---- the modules convert adds ----

TEST(QuantConvert, ReLU6ClampsAtZeroPointAndSix) {
  const Tensor x = quantize_per_tensor(arange(-4.0, 10.0, 0.5), 0.05, 60, kQUInt8);
  const Tensor y = nnq::ReLU6()->forward(x);
  EXPECT_EQ(y.q_scale(), 0.05);
  EXPECT_EQ(y.q_zero_point(), 60);
  // quantize(6) = 60 + 120 = 180; quint8 saturates at 255 first for the large inputs.
  expect_tensor_near(y.dequantize(), x.dequantize().clamp(0.0, 6.0), 0, 1e-6);
}

TEST(QuantConvert, PoolingAndReLUDispatchOnTheInput) {
  const Tensor x = randn({2, 3, 6, 6});
  nnq::MaxPool2d pool(nn::MaxPool2dOptions{.kernel_size = 2});
  expect_tensor_near(pool->forward(x), nn::functional::max_pool2d(x, 2), 0, 0);
  const Tensor q = quantize_per_tensor(x, 0.02, 128, kQUInt8);
  EXPECT_TRUE(pool->forward(q).is_quantized());
  expect_tensor_near(pool->forward(q).dequantize(), nn::functional::max_pool2d(q.dequantize(), 2), 0, 0);
  nnq::AdaptiveAvgPool2d gap(nn::AdaptiveAvgPool2dOptions({std::nullopt, 1}));
  EXPECT_EQ(gap->forward(x).sizes(), (std::vector<int64_t>{2, 3, 6, 1}));
  EXPECT_EQ(gap->forward(q).sizes(), (std::vector<int64_t>{2, 3, 6, 1}));
  expect_tensor_near(nnq::ReLU()->forward(x), x.relu(), 0, 0);
}

TEST(QuantConvert, BatchNormReLUAndDropoutFromTheTable) {
  QuantWrapper m(nn::AnyModule(nn::Sequential(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU(), nn::Dropout(0.2),
                                              nn::Hardswish(), nn::ReLU6())));
  m->train();
  for (int i = 0; i < 3; ++i) m(randn({4, 3, 6, 6}));  // running statistics
  m->eval();
  fuse_modules(*m, {{"module.1", "module.2"}});  // BatchNorm2d-ReLU
  prepare(*m, {{"", default_qconfig()}});
  const Tensor x = randn({2, 3, 6, 6});
  const Tensor ref = m(x);
  convert(*m, {.strict = true});
  EXPECT_TRUE(std::dynamic_pointer_cast<nniq::BNReLU2dImpl>(module_at(*m, "module.1")));
  EXPECT_TRUE(std::dynamic_pointer_cast<nnq::DropoutImpl>(module_at(*m, "module.3")));
  EXPECT_TRUE(std::dynamic_pointer_cast<nnq::HardswishImpl>(module_at(*m, "module.4")));
  EXPECT_TRUE(std::dynamic_pointer_cast<nnq::ReLU6Impl>(module_at(*m, "module.5")));
  // The quantized model follows the float one to within a few quanta of each stage.
  // MinMax observers calibrated on x itself (a histogram observer would clip
  // the range): the quantized model stays within a few quanta (scale about
  // max / 127 here) of the float one.
  const Tensor got = m(x);
  EXPECT_LT((got - ref).abs().max().item<float>(), 4 * ref.abs().max().item<float>() / 127);
}

}  // namespace quant_convert_test
}  // namespace ember
