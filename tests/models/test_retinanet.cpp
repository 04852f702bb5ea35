// RetinaNet (models::detection) against torchvision 0.14 on the fixtures of
// scripts/fixtures/models_detection_retinanet.py: state_dict names and
// shapes of retinanet_resnet50_fpn(_v2), strict loading of torchvision's
// pickle, eval outputs and a float64 training step of two light models with
// hashed weights, the backbone helpers, and torchvision's input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include <ember/ember.h>
#include <ember/models/detection/retinanet.h>
#include <ember/serialize/torch_load.h>
#include <ember/vision/ops/frozen_batch_norm.h>

#include "models_test_util.h"
#include "npy.h"

namespace ember {
namespace retinanet_test {

using namespace models::detection;
using testing::fixture_path;

std::string path(const std::string& name) { return fixture_path("models/models_detection_retinanet/" + name); }
Tensor fx(const std::string& name) { return testing::load_npy(path(name + ".npy")); }

template <class Fn>
void expect_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Every state_dict entry has torchvision's key, dtype and shape, in order.
void expect_arch(const nn::Module& model, const std::string& name) {
  std::ifstream f(path("arch_" + name + ".txt"));
  ASSERT_TRUE(f.good()) << name;
  const auto sd = model.state_dict();
  std::string line;
  size_t i = 0;
  auto it = sd.begin();
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    std::string key, dtype, dims;
    ss >> key >> dtype >> dims;
    ASSERT_NE(it, sd.end()) << name << ": Ember's state_dict ends at entry " << i << " (" << key << ")";
    const auto& [got_key, t] = *it;
    ASSERT_EQ(got_key, key) << name << " entry " << i;
    EXPECT_EQ(testing::arch_dtype(t.dtype()), dtype) << key;
    std::vector<int64_t> shape;
    std::stringstream ds(dims);
    for (std::string d; std::getline(ds, d, ',');) shape.push_back(std::stoll(d));
    EXPECT_EQ(t.sizes().vec(), shape) << key;
    ++it;
    ++i;
  }
  EXPECT_EQ(it, sd.end()) << name << ": Ember has more than torchvision's " << i << " entries";
}

// The light models of the fixture script: a ResNet-18 FPN backbone
// (FrozenBatchNorm2d, trainable_layers 3, layers 2..4) and 5 classes.
RetinaNet light_model(const std::string& version) {
  auto extra = version == "v1" ? vision::ops::LastLevelP6P7(256, 256) : vision::ops::LastLevelP6P7(512, 256);
  BackboneWithFPN backbone = resnet_fpn_backbone(
      "resnet18", {.trainable_layers = 3, .returned_layers = {2, 3, 4}, .extra_blocks = extra.ptr()});
  AnchorGenerator anchors(retinanet_anchor_generator());
  vision::ops::NormLayer norm = nullptr;
  if (version == "v2") norm = [](int64_t c) { return nn::AnyModule(nn::GroupNorm(32, c)); };
  RetinaNetHead head(256, anchors->num_anchors_per_location()[0], 5, norm);
  if (version == "v2") head->regression_head->loss_type = "giou";
  RetinaNet model(backbone, RetinaNetOptions{.num_classes = 5, .min_size = {256}, .max_size = 320, .anchor_generator = anchors,
                             .head = head});
  testing::fill_hashed(*model);
  NoGradGuard no_grad;
  model->head->classification_head->cls_logits->bias.fill_(static_cast<float>(-std::log(99.0)));
  return model;
}

std::vector<Tensor> fixture_images() { return {fx("image0"), fx("image1")}; }
std::vector<Target> fixture_targets() {
  return {{{"boxes", fx("target0_boxes")}, {"labels", fx("target0_labels")}},
          {{"boxes", fx("target1_boxes")}, {"labels", fx("target1_labels")}}};
}

// Detections as sets: every torch detection clearly above the last kept
// score has an Ember detection of the same label with score within 1e-4 and
// box within 1e-4 of the image size (near-equal scores may come in either order, and the cut at
// detections_per_img may keep either of two near-equal ones).
void expect_same_detections(const Target& got, const std::string& prefix, double image_side) {
  // Boxes within 1e-4 of the image's size: a box is the anchor's centre plus
  // exp(regression) times its size, so float32 rounding in the head (about
  // 1e-6 relative) moves large boxes' corners by up to ~1e-3 pixels.
  const double box_tolerance = 1e-4 * image_side;
  const Tensor want_boxes = fx(prefix + "_boxes"), want_scores = fx(prefix + "_scores"),
               want_labels = fx(prefix + "_labels");
  const Tensor& boxes = got.at("boxes");
  const Tensor& scores = got.at("scores");
  const Tensor& labels = got.at("labels");
  ASSERT_EQ(boxes.sizes(), want_boxes.sizes()) << prefix;
  ASSERT_EQ(labels.dtype(), kInt64);
  ASSERT_GT(want_scores.numel(), 0) << prefix;
  // Sorted by score, as torchvision's.
  if (scores.numel() > 1) {
    EXPECT_TRUE(scores.slice(0, 1).le(scores.slice(0, 0, -1)).all().item<bool>()) << prefix;
  }
  const int64_t n = want_scores.size(0);
  const double cut = want_scores[n - 1].item<float>() + 1e-4;
  std::vector<bool> used(static_cast<size_t>(boxes.size(0)), false);
  int64_t matched = 0, checked = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double s = want_scores[i].item<float>();
    if (s <= cut) continue;
    ++checked;
    bool found = false;
    for (int64_t j = 0; j < boxes.size(0); ++j) {
      if (used[static_cast<size_t>(j)] || labels[j].item<int64_t>() != want_labels[i].item<int64_t>()) continue;
      if (std::abs(scores[j].item<float>() - s) > 1e-4) continue;
      if ((boxes[j].to(kFloat64) - want_boxes[i].to(kFloat64)).abs().max().item<double>() > box_tolerance) continue;
      used[static_cast<size_t>(j)] = true;
      ++matched;
      found = true;
      break;
    }
    if (!found) {
      // Report the nearest Ember detection of the label.
      double best = 1e30;
      int64_t best_j = -1;
      for (int64_t j = 0; j < boxes.size(0); ++j) {
        if (labels[j].item<int64_t>() != want_labels[i].item<int64_t>()) continue;
        const double d = (boxes[j].to(kFloat64) - want_boxes[i].to(kFloat64)).abs().max().item<double>();
        if (d < best) best = d, best_j = j;
      }
      ADD_FAILURE() << prefix << ": torchvision's detection " << i << " (score " << s << ", label "
                    << want_labels[i].item<int64_t>() << ") unmatched; nearest box " << best_j << " at " << best
                    << (best_j >= 0 ? ", score " + std::to_string(scores[best_j].item<float>()) : std::string());
    }
  }
  EXPECT_GT(checked, n / 2) << prefix;
  EXPECT_EQ(matched, checked) << prefix << ": " << checked - matched << " torchvision detections without a match";
}

TEST(RetinaNet, ResNet50FPNStateDictIsTorchvisions) {
  expect_arch(*retinanet_resnet50_fpn(), "retinanet_resnet50_fpn");
  expect_arch(*retinanet_resnet50_fpn_v2(), "retinanet_resnet50_fpn_v2");
}

TEST(RetinaNet, ResNet50FPNLoadsTorchvisionCheckpointStrictly) {
  for (const std::string name : {"retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2"}) {
    const std::string file = path(name + "_const.pt");
    RetinaNet model = name == "retinanet_resnet50_fpn" ? retinanet_resnet50_fpn({.num_classes = 91})
                                                       : retinanet_resnet50_fpn_v2({.num_classes = 91});
    model->load_state_dict(serialize::load_torch_state_dict(file), /*strict=*/true);
    // Entry k holds values[k % 61] = (k % 61) * 0.125 - 3 (floats), (k % 61) + 100 (integers).
    int64_t k = 0;
    for (const auto& [key, t] : model->state_dict()) {
      const double want = t.is_floating_point() ? (k % 61) * 0.125 - 3.0 : static_cast<double>(k % 61 + 100);
      EXPECT_EQ(t.flatten()[0].to(kFloat64).item<double>(), want) << key;
      ++k;
    }
    // Through the builder's weights path: a model trained elsewhere
    // (v1: FrozenBatchNorm2d, whose state has no num_batches_tracked, as torchvision drops it).
    if (name == "retinanet_resnet50_fpn_v2") {
      RetinaNet loaded = retinanet_resnet50_fpn_v2({.num_classes = 91, .weights = file});
      EXPECT_EQ(loaded->head->regression_head->loss_type, "giou");
    }
  }
}

TEST(RetinaNet, BuildersFollowTorchvision) {
  RetinaNet v1 = retinanet_resnet50_fpn({.num_classes = 7});
  EXPECT_EQ(v1->head->classification_head->cls_logits->weight.size(0), 9 * 7);
  EXPECT_EQ(v1->head->regression_head->loss_type, "l1");
  // No weights: every layer trainable whatever was asked (torchvision warns), BatchNorm2d.
  RetinaNet asked = retinanet_resnet50_fpn({.trainable_backbone_layers = 1});
  for (const auto& [name, p] : asked->named_parameters()) EXPECT_TRUE(p.requires_grad()) << name;
  EXPECT_EQ(validate_trainable_layers(true, std::nullopt, 5, 3), 3);
  EXPECT_EQ(validate_trainable_layers(true, 0, 5, 3), 0);
  expect_error([] { validate_trainable_layers(true, 6, 5, 3); }, "should be in the range [0,5], got 6");
  // cls_logits starts at the prior probability 0.01; the other convs at normal(0, 0.01).
  const Tensor bias = v1->head->classification_head->cls_logits->bias;
  EXPECT_NEAR(bias[0].item<float>(), -std::log(99.0), 1e-6);
  const Tensor w = v1->head->regression_head->conv->ptr<vision::ops::Conv2dNormActivationImpl>(0)->conv()->weight;
  EXPECT_NEAR(w.std().item<float>(), 0.01, 1e-3);
  EXPECT_EQ(v1->head->regression_head->bbox_reg->bias.abs().max().item<float>(), 0.0f);
  // P6 from P5 for v1 (LastLevelP6P7(256, 256)), from C5 for v2 (2048 -> 256), as torchvision 0.14.
  auto p6p7 = [](const RetinaNet& m) {
    return std::dynamic_pointer_cast<vision::ops::LastLevelP6P7Impl>(m->backbone->fpn->extra_blocks);
  };
  EXPECT_TRUE(p6p7(v1)->use_P5);
  EXPECT_FALSE(p6p7(retinanet_resnet50_fpn_v2())->use_P5);
}

TEST(BackboneUtils, ResNetFPNBackboneFreezesAndReturnsLevels) {
  BackboneWithFPN b = resnet_fpn_backbone("resnet18", {.trainable_layers = 2});
  for (const auto& [name, p] : b->named_parameters()) {
    const bool trainable = name.rfind("body.layer4", 0) == 0 || name.rfind("body.layer3", 0) == 0 ||
                           name.rfind("fpn.", 0) == 0;
    EXPECT_EQ(p.requires_grad(), trainable) << name;
  }
  // FrozenBatchNorm2d: buffers only.
  EXPECT_TRUE(std::dynamic_pointer_cast<vision::ops::FrozenBatchNorm2dImpl>(b->body->named_children()["bn1"]));
  NoGradGuard no_grad;
  b->eval();
  OrderedDict<Tensor> out = b->forward(rand({1, 3, 64, 64}));
  std::vector<std::string> names;
  for (const auto& [name, t] : out) {
    names.push_back(name);
    EXPECT_EQ(t.size(1), 256);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"0", "1", "2", "3", "pool"}));
  EXPECT_EQ(out["0"].size(2), 16);
  EXPECT_EQ(out["pool"].size(2), 1);
  // Layers after the last returned one are not kept.
  BackboneWithFPN b2 = resnet_fpn_backbone("resnet18", {.returned_layers = {1, 2}});
  EXPECT_FALSE(b2->body->named_children().contains("layer3"));
  EXPECT_FALSE(b2->body->named_children().contains("fc"));
  expect_error([] { resnet_fpn_backbone("resnet18", {.trainable_layers = 6}); },
               "Trainable layers should be in the range [0,5], got 6");
  expect_error([] { resnet_fpn_backbone("resnet18", {.returned_layers = {0, 2}}); },
               "Each returned layer should be in the range [1,4]. Got [0, 2]");
  expect_error([] { resnet_fpn_backbone("resnet9"); }, "unknown backbone_name 'resnet9'");
  models::ResNet r = models::resnet18();
  expect_error([&] { IntermediateLayerGetter(resnet_children(r), std::vector<std::pair<std::string, std::string>>{{"layer5", "0"}}); },
               "return_layers are not present in model");
}

class LightRetinaNet : public ::testing::TestWithParam<std::string> {};

TEST_P(LightRetinaNet, StateDictIsTorchvisions) { expect_arch(*light_model(GetParam()), "light_" + GetParam()); }

TEST_P(LightRetinaNet, EvalMatchesTorchvision) {
  const std::string v = GetParam();
  RetinaNet model = light_model(v);
  model->eval();
  NoGradGuard no_grad;
  const auto out = model->forward(fixture_images());
  EXPECT_TRUE(out.losses.empty());
  ASSERT_EQ(out.detections.size(), 2u);
  const auto images = fixture_images();
  for (int i = 0; i < 2; ++i)
    expect_same_detections(out.detections[i], "light_" + v + "_eval" + std::to_string(i),
                           static_cast<double>(std::max(images[i].size(1), images[i].size(2))));
}

// Note [RetinaNet float64 tolerance]: Ember's float64 step agrees with
// torch's to about 1e-8 relative (a float32 run is 1e-4 off), the same
// relative error in every loss and gradient, which points at the input
// itself: GeneralizedRCNNTransform's bilinear resize is not bit-identical to
// torch's (docs/detection.md). 1e-7 leaves a margin.
constexpr double kFloat64Tolerance = 1e-7;

TEST_P(LightRetinaNet, Float64TrainingStepMatchesTorchvision) {
  const std::string v = GetParam();
  RetinaNet model = light_model(v);
  model->to(kFloat64);
  for (const auto& [name, t] : model->state_dict())
    if (t.is_floating_point()) ASSERT_EQ(t.dtype(), kFloat64) << name;
  model->train();
  model->transform->options.min_size = {128};
  model->transform->options.max_size = 160;
  std::vector<Tensor> images;
  for (const Tensor& im : fixture_images()) images.push_back(im.to(kFloat64));
  std::vector<Target> targets = fixture_targets();
  for (Target& t : targets) t["boxes"] = t["boxes"].to(kFloat64);
  const auto out = model->forward(images, targets);
  ASSERT_EQ(out.losses.size(), 2u);
  EXPECT_TRUE(out.detections.empty());
  const std::string prefix = "light_" + v;
  for (const std::string key : {"classification", "bbox_regression"})
    EXPECT_NEAR(out.losses.at(key).item<double>(), fx(prefix + "_train_" + key).item<double>(), kFloat64Tolerance)
        << key;
  (out.losses.at("classification") + out.losses.at("bbox_regression")).backward();
  const auto params = model->named_parameters();
  for (const std::string key :
       {"head.classification_head.cls_logits.weight", "head.classification_head.conv.0.0.weight",
        "head.regression_head.bbox_reg.weight", "head.regression_head.bbox_reg.bias",
        "backbone.fpn.inner_blocks.0.0.weight", "backbone.fpn.extra_blocks.p6.weight",
        "backbone.body.layer4.1.conv2.weight", "backbone.body.layer2.0.conv1.weight"}) {
    const Tensor* p = params.find(key);
    ASSERT_NE(p, nullptr) << key;
    ASSERT_TRUE(p->grad().defined()) << key;
    const Tensor g = p->grad();
    const double want_norm = fx(prefix + "_gradnorm_" + key).item<double>();
    EXPECT_NEAR(g.norm().item<double>(), want_norm, kFloat64Tolerance * std::max(1.0, want_norm)) << key;
    const Tensor want = fx(prefix + "_grad_" + key);
    const Tensor head = g.reshape({-1}).slice(0, 0, want.numel());
    EXPECT_TRUE(allclose(head, want, kFloat64Tolerance, kFloat64Tolerance * std::max(1.0, want_norm)))
        << key << " max |diff| " << (head - want).abs().max().item<double>();
  }
  // trainable_layers 3: layer1 and the stem are frozen.
  EXPECT_FALSE(params.find("backbone.body.layer1.0.conv1.weight")->requires_grad());
  EXPECT_FALSE(params.find("backbone.body.conv1.weight")->requires_grad());
}

INSTANTIATE_TEST_SUITE_P(Versions, LightRetinaNet, ::testing::Values("v1", "v2"));

// An image without objects: every anchor is background, the box loss 0.
TEST(RetinaNet, TrainingWithAnEmptyTarget) {
  RetinaNet model = light_model("v1");
  model->train();
  model->transform->options.min_size = {64};
  model->transform->options.max_size = 96;
  const auto out = model->forward({rand({3, 40, 50})}, {{{"boxes", zeros({0, 4})}, {"labels", zeros({0}, kInt64)}}});
  EXPECT_EQ(out.losses.at("bbox_regression").item<float>(), 0.0f);
  EXPECT_GT(out.losses.at("classification").item<float>(), 0.0f);
}

TEST(RetinaNet, BadInputRaisesTorchvisionsErrors) {
  RetinaNet model = light_model("v1");
  model->transform->options.min_size = {64};
  model->transform->options.max_size = 96;
  const Tensor img = rand({3, 40, 50});
  model->train();
  expect_error([&] { model->forward({img}); }, "targets should not be none when in training mode");
  expect_error([&] { model->forward({img}, {{{"labels", zeros({1}, kInt64)}}}); }, "a target has no \"boxes\"");
  expect_error([&] { model->forward({img}, {{{"boxes", zeros({4})}, {"labels", zeros({1}, kInt64)}}}); },
               "Expected target boxes to be a tensor of shape [N, 4]");
  expect_error([&] { model->forward({img}, {{{"boxes", zeros({2, 5})}, {"labels", zeros({2}, kInt64)}}}); },
               "Expected target boxes to be a tensor of shape [N, 4]");
  expect_error(
      [&] {
        model->forward({img, img}, {{{"boxes", tensor<float>({1, 1, 5, 5}).view({1, 4})}, {"labels", ones({1}, kInt64)}},
                                    {{"boxes", tensor<float>({1, 1, 5, 5, 10, 10, 10, 20}).view({2, 4})},
                                     {"labels", ones({2}, kInt64)}}});
      },
      "All bounding boxes should have positive height and width. Found invalid box [16.0, 16.0, 16.0, 32.0] for "
      "target at index 1.");
  expect_error([&] { model->forward({img, img}, {{{"boxes", zeros({0, 4})}, {"labels", zeros({0}, kInt64)}}}); },
               "2 images but 1 targets");
  model->eval();
  expect_error([&] { model->forward({rand({40})}); }, "expecting the last two dimensions");
  expect_error([&] { model->forward({rand({1, 3, 40, 50})}); }, "expected to be a list of 3d tensors");
  expect_error([&] { model->forward({}); }, "RetinaNet: no images");
}

}  // namespace retinanet_test
}  // namespace ember
