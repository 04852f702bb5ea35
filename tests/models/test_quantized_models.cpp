// Quantizable torchvision models (torchvision.models.quantization 0.14) against
// Debian's torch 1.13 on the onednn engine. The fixtures are written at test
// time by scripts/fixtures/quant_models.py (ctest models.quant_models, which
// runs tests/models/quant_models_check.sh): a converted ResNet-18 state_dict is
// 11 MB, too large to commit. Without EMBER_QUANT_MODELS_DIR the tests that
// need them are skipped.
//
// Checked per model: (1) torch's quantized state_dict loads into Ember's
// converted model (load_quantized_state_dict) and gives torch's quantized
// outputs; (2) Ember's own fuse_model / prepare / calibrate / convert of the
// same float weights on the same calibration batches gives torch's stored
// integers: every weight's integers and per-channel scales, every module's
// output scale and zero point, and the outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <ember/ao/nn/quantized/modules.h>
#include <ember/ember.h>
#include <ember/models/quantization/googlenet.h>
#include <ember/models/quantization/inception.h>
#include <ember/models/quantization/mobilenet_v2.h>
#include <ember/models/quantization/mobilenet_v3.h>
#include <ember/models/quantization/resnet.h>
#include <ember/models/quantization/shufflenet_v2.h>
#include <ember/serialize/torch_load.h>

#include "npy.h"

namespace ember {
namespace quantized_models_test {

namespace mq = models::quantization;
namespace nnq = ao::nn::quantized;
using testing::load_npy;

std::string fixture_dir() {
  const char* dir = std::getenv("EMBER_QUANT_MODELS_DIR");
  return dir ? dir : "";
}

// The tests run only under ctest models.quant_models, which writes the
// fixtures and sets EMBER_QUANT_MODELS_DIR (they are left out of discovery).
#define REQUIRE_FIXTURES() \
  ASSERT_FALSE(fixture_dir().empty()) << "run these through ctest models.quant_models (it writes their fixtures)"

std::string path(const std::string& model, const std::string& what) { return fixture_dir() + "/" + model + "_" + what; }
Tensor npy(const std::string& model, const std::string& what) { return load_npy(path(model, what + ".npy")); }
std::vector<Tensor> calibration(const std::string& model) { return {npy(model, "calib0"), npy(model, "calib1")}; }

double max_abs_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }

std::shared_ptr<mq::QuantizableModuleImpl> make(const std::string& model) {
  if (model == "resnet18") return mq::resnet18({.num_classes = 10}).ptr();
  if (model == "resnet50") return mq::resnet50({.num_classes = 10}).ptr();
  if (model == "mobilenet_v2") return mq::mobilenet_v2({.num_classes = 10}).ptr();
  if (model == "shufflenet_v2_x1_0") return mq::shufflenet_v2_x1_0({.num_classes = 10}).ptr();
  if (model == "googlenet") return mq::googlenet({.num_classes = 10}).ptr();
  if (model == "inception_v3") return mq::inception_v3({.num_classes = 10}).ptr();
  if (model == "mobilenet_v3_large") return mq::mobilenet_v3_large({.num_classes = 10}).ptr();
  throw Error("no builder for " + model);
}

// The output scale of torch's fc (the last quantized layer): one quantum of the output.
double fc_scale(const IDict& sd) {
  const IValue* v = sd.find("fc.scale");
  if (v == nullptr) v = sd.find("classifier.1.scale");  // MobileNetV2
  if (v == nullptr) v = sd.find("classifier.3.scale");  // MobileNetV3
  return v->to_double();
}

void expect_output_within_one_quantum(mq::QuantizableModuleImpl& net, const std::string& model, double quantum,
                                      bool expect_exact) {
  NoGradGuard no_grad;
  const Tensor y = net.forward(npy(model, "x"));
  const Tensor expected = npy(model, "y");
  ASSERT_EQ(y.sizes(), expected.sizes());
  const double diff = max_abs_diff(y, expected);
  std::printf("[ %s ] max |ember - torch| = %.3g (one quantum: %.3g)\n", model.c_str(), diff, quantum);
  EXPECT_LE(diff, quantum * 1.0001);
  if (expect_exact) EXPECT_EQ(diff, 0.0);
}

void loads_torch_state_dict(const std::string& model, bool calibrate_float_weights = false) {
  REQUIRE_FIXTURES();
  auto net = make(model);
  if (calibrate_float_weights)
    net->load_state_dict(serialize::load_torch_state_dict(path(model, "float.pt")), true);
  mq::quantize_model(*net, "onednn", calibration(model));
  const auto keys = mq::load_quantized_state_dict(*net, path(model, "quant.pt"));
  EXPECT_GT(keys.size(), 50u);
  const IValue sd = serialize::load_torch(path(model, "quant.pt"));
  expect_output_within_one_quantum(*net, model, fc_scale(sd.to_dict()), /*expect_exact=*/true);
}

// Ember's own workflow against torch's converted model, module by module.
void own_workflow_matches_torch(const std::string& model, double quanta) {
  REQUIRE_FIXTURES();
  auto net = make(model);
  net->load_state_dict(serialize::load_torch_state_dict(path(model, "float.pt")), true);
  mq::quantize_model(*net, "onednn", calibration(model));
  const IValue root = serialize::load_torch(path(model, "quant.pt"));
  const IDict& sd = root.to_dict();
  int weights = 0, qparams = 0;
  double worst_scale = 0;
  int64_t worst_zero_point = 0;
  // Activation qparams come from observers fed by Ember's float32 forward,
  // whose sums round apart from torch's by ulps: the observed min/max, and so
  // the scales, can differ in the last bits (Note in docs/quantization.md,
  // "Quantized models").
  auto expect_qparams = [&](const std::string& p, double scale, int64_t zero_point) {
    ASSERT_NE(sd.find(p + "scale"), nullptr) << p;
    const double theirs = static_cast<float>(sd.find(p + "scale")->to_double());
    worst_scale = std::max(worst_scale, std::abs(static_cast<float>(scale) - theirs) / theirs);
    worst_zero_point =
        std::max(worst_zero_point, std::abs(zero_point - sd.find(p + "zero_point")->to_tensor().item<int64_t>()));
    ++qparams;
  };
  auto expect_weight = [&](const std::string& key, const Tensor& ours) {
    const IValue* v = sd.find(key);
    ASSERT_NE(v, nullptr) << key;
    const Tensor& theirs = v->is_tensor() ? v->to_tensor() : v->to_list()[0].to_tensor();
    EXPECT_TRUE(equal(ours.int_repr(), theirs.int_repr())) << key;
    EXPECT_TRUE(equal(ours.q_per_channel_scales(), theirs.q_per_channel_scales())) << key;
    EXPECT_TRUE(equal(ours.q_per_channel_zero_points(), theirs.q_per_channel_zero_points())) << key;
    ++weights;
  };
  for (const auto& [name, m] : net->named_modules()) {
    const std::string p = name.empty() ? "" : name + ".";
    if (auto* conv = dynamic_cast<nnq::Conv2dImpl*>(m.get())) {
      expect_weight(p + "weight", conv->weight);
      expect_qparams(p, conv->scale, conv->zero_point);
    } else if (auto* fc = dynamic_cast<nnq::LinearImpl*>(m.get())) {
      expect_weight(p + "_packed_params._packed_params", fc->weight);
      expect_qparams(p, fc->scale, fc->zero_point);
    } else if (auto* q = dynamic_cast<nnq::QuantizeImpl*>(m.get())) {
      expect_qparams(p, q->scale, q->zero_point);
    } else if (auto* f = dynamic_cast<nnq::QFunctionalImpl*>(m.get())) {
      expect_qparams(p, f->scale, f->zero_point);
    }
  }
  std::printf("[ %s ] %d weights equal; %d output qparams: scales within %.3g relative, zero points within %lld\n",
              model.c_str(), weights, qparams, worst_scale, static_cast<long long>(worst_zero_point));
  EXPECT_GT(weights, 20);
  EXPECT_LE(worst_scale, 1e-5);
  EXPECT_LE(worst_zero_point, 1);
  // Requantizing with scales an ulp apart flips a few integers, which the
  // following layers carry on: the outputs are compared within `quanta`
  // quanta of the output (measured: resnet18 3, resnet50 see the test log).
  NoGradGuard no_grad;
  const Tensor y = net->forward(npy(model, "x"));
  const double diff = max_abs_diff(y, npy(model, "y"));
  const double quantum = fc_scale(sd);
  std::printf("[ %s ] own workflow: max |ember - torch| = %.3g = %.2f quanta\n", model.c_str(), diff, diff / quantum);
  EXPECT_LE(diff, quanta * quantum * 1.0001);
}

TEST(QuantizedModels, ResNet18LoadsTorchQuantizedStateDict) { loads_torch_state_dict("resnet18"); }
TEST(QuantizedModels, ResNet18OwnWorkflowMatchesTorch) { own_workflow_matches_torch("resnet18", 4); }
TEST(QuantizedModels, ResNet50LoadsTorchQuantizedStateDict) { loads_torch_state_dict("resnet50"); }
TEST(QuantizedModels, ResNet50OwnWorkflowMatchesTorch) { own_workflow_matches_torch("resnet50", 4); }

TEST(QuantizedModels, MobileNetV2LoadsTorchQuantizedStateDict) { loads_torch_state_dict("mobilenet_v2"); }
TEST(QuantizedModels, MobileNetV2OwnWorkflowMatchesTorch) { own_workflow_matches_torch("mobilenet_v2", 4); }

// torch's state_dict has no output qparams for a quantized Hardswish (plain
// attributes in torch 1.13), so the model is calibrated as torch's was first.
TEST(QuantizedModels, MobileNetV3LargeLoadsTorchQuantizedStateDict) { loads_torch_state_dict("mobilenet_v3_large", true); }
TEST(QuantizedModels, MobileNetV3LargeOwnWorkflowMatchesTorch) { own_workflow_matches_torch("mobilenet_v3_large", 4); }

TEST(QuantizedModels, CheckpointEntriesAndErrors) {
  REQUIRE_FIXTURES();
  // The restricted unpickler reads torch.qint8 (a dtype global) as a str.
  const IValue root = serialize::load_torch(path("resnet18", "quant.pt"));
  const IValue* dtype = root.to_dict().find("fc._packed_params.dtype");
  ASSERT_NE(dtype, nullptr);
  EXPECT_EQ(dtype->to_string(), "torch.qint8");
  const IValue* packed = root.to_dict().find("fc._packed_params._packed_params");
  ASSERT_TRUE(packed != nullptr && packed->is_tuple());
  EXPECT_EQ(packed->to_list()[0].to_tensor().dtype(), kQInt8);
  // Another architecture: the first mismatching entry is named.
  auto net50 = mq::resnet50({.num_classes = 10});
  mq::quantize_model(*net50, "onednn", {randn({1, 3, 32, 32})});
  try {
    mq::load_quantized_state_dict(*net50, path("resnet18", "quant.pt"));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("load_quantized_state_dict"), std::string::npos) << e.what();
  }
  // A float model (not converted): torch's quantized entries fit nothing.
  auto float_net = mq::resnet18({.num_classes = 10});
  EXPECT_THROW(mq::load_quantized_state_dict(*float_net, path("resnet18", "quant.pt")), Error);
}

TEST(QuantizedModels, ShuffleNetV2LoadsTorchQuantizedStateDict) { loads_torch_state_dict("shufflenet_v2_x1_0"); }
TEST(QuantizedModels, ShuffleNetV2OwnWorkflowMatchesTorch) { own_workflow_matches_torch("shufflenet_v2_x1_0", 4); }

TEST(QuantizedModels, GoogLeNetLoadsTorchQuantizedStateDict) { loads_torch_state_dict("googlenet"); }
TEST(QuantizedModels, GoogLeNetOwnWorkflowMatchesTorch) { own_workflow_matches_torch("googlenet", 4); }

TEST(QuantizedModels, InceptionV3LoadsTorchQuantizedStateDict) { loads_torch_state_dict("inception_v3"); }
TEST(QuantizedModels, InceptionV3OwnWorkflowMatchesTorch) { own_workflow_matches_torch("inception_v3", 4); }

// Structure checks that need no fixtures.
TEST(QuantizedModels, ResNetHasTorchvisionNames) {
  auto net = mq::resnet50({.num_classes = 10});
  const auto sd = net->state_dict();
  for (const char* key : {"conv1.weight", "bn1.running_mean", "layer1.0.conv3.weight", "layer1.0.downsample.0.weight",
                          "layer1.0.downsample.1.bias", "layer4.2.bn3.num_batches_tracked", "fc.weight", "fc.bias"})
    EXPECT_TRUE(sd.contains(key)) << key;
  const auto children = net->named_modules();
  for (const char* name : {"quant", "dequant", "layer1.0.relu1", "layer1.0.relu2", "layer1.0.skip_add_relu"})
    EXPECT_TRUE(children.contains(name)) << name;
  // ResNeXt-101 32x8d: the grouped 3x3 convolution's width, as torchvision.
  auto resnext = mq::resnext101_32x8d({.num_classes = 10});
  const auto rsd = resnext->state_dict();
  EXPECT_EQ(rsd.at("layer1.0.conv2.weight").sizes(), (std::vector<int64_t>{256, 8, 3, 3}));
  EXPECT_EQ(rsd.at("layer4.2.conv3.weight").sizes(), (std::vector<int64_t>{2048, 2048, 1, 1}));
  EXPECT_TRUE(rsd.contains("layer3.22.bn3.running_var"));
  auto basic = mq::resnet18();
  EXPECT_TRUE(basic->named_modules().contains("layer2.0.add_relu"));
  EXPECT_EQ(basic->state_dict().size(), models::resnet18()->state_dict().size());
}

TEST(QuantizedModels, FuseModelFoldsBatchNormAndKeepsOutputs) {
  manual_seed(3);
  auto net = mq::resnet18({.num_classes = 10});
  net->eval();
  const Tensor x = randn({2, 3, 64, 64});
  NoGradGuard no_grad;
  const Tensor before = net->forward(x);
  net->fuse_model();
  EXPECT_EQ(ao::quantization::module_at(*net, "bn1")->name(), "Identity");
  EXPECT_EQ(ao::quantization::module_at(*net, "layer1.0.bn2")->name(), "Identity");
  EXPECT_EQ(ao::quantization::module_at(*net, "layer2.0.downsample.1")->name(), "Identity");
  const Tensor after = net->forward(x);
  EXPECT_LT(max_abs_diff(before, after), 1e-4 * std::max(1.0, before.abs().max().item<double>()));
}

TEST(QuantizedModels, FuseModelForQatKeepsBatchNorm) {
  auto net = mq::mobilenet_v3_large({.num_classes = 10});
  net->train();
  net->fuse_model();  // is_qat unset: training mode fuses for QAT
  EXPECT_EQ(ao::quantization::module_at(*net, "features.0.0")->name(), "ConvBn2d");
  EXPECT_EQ(ao::quantization::module_at(*net, "features.1.block.0.0")->name(), "ConvBnReLU2d");
  EXPECT_EQ(ao::quantization::module_at(*net, "features.4.block.2.fc1")->name(), "ConvReLU2d");
  ao::quantization::prepare_qat(*net, {{"", ao::quantization::get_default_qat_qconfig("qnnpack")}});
  const Tensor y = net->forward(randn({2, 3, 32, 32}));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 10}));
  net->eval();
  ao::quantization::convert(*net);
  NoGradGuard no_grad;
  EXPECT_FALSE(net->forward(randn({1, 3, 32, 32})).is_quantized());
  EXPECT_NE(std::dynamic_pointer_cast<nnq::Conv2dImpl>(ao::quantization::module_at(*net, "features.0.0")), nullptr);
}

TEST(QuantizedModels, QuantizeModelConvertsEveryLayer) {
  manual_seed(4);
  auto net = mq::resnet18({.num_classes = 10});
  mq::quantize_model(*net, "qnnpack", {randn({1, 3, 64, 64})});
  EXPECT_NE(std::dynamic_pointer_cast<nnq::QuantizeImpl>(ao::quantization::module_at(*net, "quant")), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<nnq::LinearImpl>(ao::quantization::module_at(*net, "fc")), nullptr);
  auto conv = std::dynamic_pointer_cast<nnq::Conv2dImpl>(ao::quantization::module_at(*net, "layer1.0.conv1"));
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->weight.qscheme(), QScheme::kPerTensorAffine);  // qnnpack: per-tensor weights
  NoGradGuard no_grad;
  const Tensor y = net->forward(randn({2, 3, 64, 64}));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 10}));
  EXPECT_FALSE(y.is_quantized());
  EXPECT_THROW(mq::quantize_model(*mq::resnet18(), "tpu"), Error);
}

}  // namespace quantized_models_test
}  // namespace ember
