// vision::ops detection layers against torchvision 0.14 fixtures
// (scripts/fixtures/vision_detection_ops.py): sigmoid_focal_loss,
// FrozenBatchNorm2d, FeaturePyramidNetwork (LastLevelP6P7, LastLevelMaxPool;
// torchvision's state_dicts load strictly), MultiScaleRoIAlign; DropBlock's
// mask and scale against its definition.
#include <gtest/gtest.h>

#include <sstream>

#include <ember/ember.h>
#include <ember/serialize/torch_load.h>
#include <ember/vision/ops.h>

#include "detection_fixtures.h"

namespace ember {
namespace detection_layers_test {

namespace ops = vision::ops;
using autograd::variable_list;
using testing::det_npy;
using testing::det_path;
using testing::expect_close;
using testing::expect_error;
using testing::grads_of;

std::string repr(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

TEST(DetectionFocalLoss, MatchesTorchvisionWithGradients) {
  const Tensor logits = det_npy("focal_logits").requires_grad_(), targets = det_npy("focal_targets");
  const Tensor out = ops::sigmoid_focal_loss(logits, targets);
  expect_close(out, det_npy("focal_none_out"), 1e-12, 1e-12, "focal none");
  expect_close(grads_of(out, det_npy("focal_none_gout"), {logits})[0], det_npy("focal_none_gx"), 1e-12, 1e-12,
               "focal gradient");
  expect_close(ops::sigmoid_focal_loss(logits, targets, -1.0, 0.0, "mean"), det_npy("focal_mean_a-1_g0"), 1e-12, 1e-12,
               "focal alpha -1 gamma 0 mean");
  expect_close(ops::sigmoid_focal_loss(logits, targets, 0.5, 1.5, "sum"), det_npy("focal_sum_a05_g15"), 1e-12, 1e-12,
               "focal alpha 0.5 gamma 1.5 sum");
  EXPECT_TRUE(autograd::gradcheck(
      [&](const variable_list& v) { return variable_list{ops::sigmoid_focal_loss(v[0], targets, 0.25, 2.0, "sum")}; },
      {logits}));
  expect_error([&] { ops::sigmoid_focal_loss(logits, targets, 0.25, 2.0, "max"); },
               "sigmoid_focal_loss: Invalid Value for arg 'reduction': 'max'");
  expect_error([&] { ops::sigmoid_focal_loss(logits, targets.slice(0, 1)); }, "should have the same shape");
}

TEST(DetectionFrozenBatchNorm, LoadsTorchvisionsStateDictAndMatches) {
  ops::FrozenBatchNorm2d bn(4);
  EXPECT_TRUE(bn->parameters().empty());
  EXPECT_EQ(bn->state_dict().keys(), (std::vector<std::string>{"weight", "bias", "running_mean", "running_var"}));
  EXPECT_EQ(repr(*bn), "FrozenBatchNorm2d(4, eps=1e-05)");
  bn->to(kFloat64);
  bn->load_state_dict(serialize::load_torch_state_dict(det_path("frozen_bn.pt")));
  const Tensor x = det_npy("frozen_bn_in").requires_grad_();
  expect_close(bn(x), det_npy("frozen_bn_out"), 1e-12, 1e-12, "FrozenBatchNorm2d");
  // Training mode changes nothing: the statistics are frozen.
  bn->train();
  expect_close(bn(x), det_npy("frozen_bn_out"), 1e-12, 1e-12, "FrozenBatchNorm2d in training mode");
  EXPECT_TRUE(autograd::gradcheck([&](const variable_list& v) { return variable_list{bn(v[0])}; }, {x}));
  expect_error([&] { bn(zeros({2, 3, 4, 4}, kFloat64)); }, "FrozenBatchNorm2d: expected input [N, 4, H, W]");
}

TEST(DetectionFpn, TorchvisionNamesStateDictAndOutputs) {
  struct Case {
    const char* name;
    std::shared_ptr<ops::ExtraFPNBlockImpl> extra;
  };
  const Case cases[] = {{"fpn_p6p7", ops::LastLevelP6P7(8, 5).ptr()}, {"fpn_pool", ops::LastLevelMaxPool().ptr()}};
  for (const Case& c : cases) {
    const std::string n = c.name;
    ops::FeaturePyramidNetwork fpn({.in_channels_list = {4, 6, 8}, .out_channels = 5, .extra_blocks = c.extra});
    fpn->to(kFloat64);
    const auto sd = serialize::load_torch_state_dict(det_path(n + ".pt"));
    EXPECT_EQ(fpn->state_dict().keys(), sd.keys()) << n;
    fpn->load_state_dict(sd);
    OrderedDict<Tensor> feats;
    feats.insert("a", det_npy(n + "_in0"));
    feats.insert("b", det_npy(n + "_in1"));
    feats.insert("c", det_npy(n + "_in2"));
    const OrderedDict<Tensor> out = fpn->forward(feats);
    std::ifstream names_file(det_path(n + "_names.txt"));
    std::vector<std::string> names;
    for (std::string s; names_file >> s;) names.push_back(s);
    EXPECT_EQ(out.keys(), names) << n;
    for (size_t i = 0; i < out.size(); ++i)
      expect_close(out.item(i).second, det_npy(n + "_out" + std::to_string(i)), 1e-11, 1e-11,
                   n + " level " + out.item(i).first);
  }
  // Fresh weights: kaiming_uniform_(a = 1) bounds (sqrt(3 / fan_in)), zero biases.
  ops::FeaturePyramidNetwork fpn({.in_channels_list = {16, 32}, .out_channels = 8});
  const Tensor w = fpn->named_parameters()["layer_blocks.1.0.weight"];
  EXPECT_LE(w.abs().max().item<double>(), std::sqrt(3.0 / (8 * 9)) + 1e-7);
  EXPECT_EQ(fpn->named_parameters()["inner_blocks.0.0.bias"].abs().sum().item<double>(), 0.0);
  expect_error(
      [] {
        ops::FeaturePyramidNetwork({.in_channels_list = {4, 0}, .out_channels = 2});
      },
      "in_channels=0 is currently not supported");
}

TEST(DetectionMultiScaleRoIAlign, MatchesTorchvision) {
  ops::MultiScaleRoIAlign pooler(std::vector<std::string>{"p2", "p3"}, 3, 2, /*canonical_scale=*/56);
  OrderedDict<Tensor> feats;
  feats.insert("p2", det_npy("msroi_p2"));
  feats.insert("skip", zeros({2, 3, 1, 1}, kFloat64));
  feats.insert("p3", det_npy("msroi_p3"));
  const std::vector<Tensor> boxes{det_npy("msroi_boxes0"), det_npy("msroi_boxes1")};
  const Tensor out = pooler->forward(feats, boxes, {{64, 48}, {60, 40}});
  expect_close(out, det_npy("msroi_out"), 1e-12, 1e-12, "MultiScaleRoIAlign");
  EXPECT_EQ(pooler->scales, (std::vector<double>{0.25, 0.125}));
  EXPECT_EQ(pooler->map_levels->k_min, 2);
  EXPECT_EQ(pooler->map_levels->k_max, 3);
  // Both levels are used (the boxes span the two scales).
  const Tensor lv = (*pooler->map_levels)(boxes);
  EXPECT_GT(lv.eq(0).sum().item<int64_t>(), 0);
  EXPECT_GT(lv.eq(1).sum().item<int64_t>(), 0);
  EXPECT_EQ(repr(*pooler), "MultiScaleRoIAlign(featmap_names=['p2', 'p3'], output_size=(3, 3), sampling_ratio=2)");
}

// The LevelMapper's rule on hand-computed boxes: sqrt(area) 224 is level 4,
// doubling the side adds a level, clamped to [k_min, k_max].
TEST(DetectionMultiScaleRoIAlign, LevelMapperRule) {
  const ops::LevelMapper mapper{2, 5};
  const Tensor boxes = tensor({{0.0, 0.0, 224.0, 224.0},
                               {0.0, 0.0, 448.0, 448.0},
                               {0.0, 0.0, 111.0, 111.0},
                               {0.0, 0.0, 10.0, 10.0},
                               {0.0, 0.0, 5000.0, 5000.0}},
                              kFloat32);
  EXPECT_TRUE(mapper({boxes}).equal(tensor({2, 3, 0, 0, 3}, kInt64)));
}

TEST(DetectionDropBlock, DropsWholeBlocksAndRescales) {
  Generator gen(9);
  const Tensor x = ones({4, 3, 12, 12}, kFloat64).requires_grad_();
  const Tensor y = ops::drop_block2d(x, 0.3, 3, false, 1e-6, true, &gen);
  // Kept values all equal the scale numel / kept; dropped ones are 0.
  const Tensor kept = y.detach().ne(0);
  const double n_kept = kept.sum().item<double>();
  ASSERT_GT(n_kept, 0);
  const double scale = static_cast<double>(y.numel()) / (1e-6 + n_kept);
  expect_close(y.detach(), kept.to(kFloat64) * scale, 1e-12, 1e-12, "drop_block2d values");
  // Every dropped pixel lies in a dropped 3x3 block (one the mask covers whole).
  const Tensor dropped = kept.logical_not().to(kFloat64);
  const Tensor block_corners = -nn::functional::max_pool2d(-dropped, 3, {.stride = 1});
  const Tensor covered = nn::functional::max_pool2d(pad(block_corners, {2, 2, 2, 2}), 3, {.stride = 1});
  EXPECT_TRUE(covered.ge(dropped).all().item<bool>());
  // The gradient is the same mask and scale.
  const Tensor g = autograd::grad({y.sum()}, {x})[0];
  expect_close(g, y.detach(), 1e-12, 1e-12, "drop_block2d gradient");
  // The drop rate is about p (gamma is chosen so that blocks cover p of the map).
  double total = 0;
  for (int i = 0; i < 50; ++i)
    total += ops::drop_block2d(ones({8, 4, 20, 20}), 0.2, 5, false, 1e-6, true, &gen)
                 .eq(0)
                 .to(kFloat64)
                 .mean()
                 .item<double>();
  EXPECT_NEAR(total / 50, 0.2, 0.05);
  // 3d, eval mode, p = 0, inplace.
  EXPECT_TRUE(ops::drop_block2d(x, 0.5, 3, false, 1e-6, false).is_same(x));
  const Tensor z = ops::drop_block3d(ones({2, 2, 6, 6, 6}), 0.2, 3, false, 1e-6, true, &gen);
  EXPECT_EQ(z.sizes(), IntArrayRef({2, 2, 6, 6, 6}));
  Tensor w = ones({1, 1, 8, 8});
  const Tensor r = ops::drop_block2d(w, 0.4, 3, true, 1e-6, true, &gen);
  EXPECT_TRUE(r.is_same(w));
  ops::DropBlock2d module(0.1, 3);
  EXPECT_EQ(repr(*module), "DropBlock2d(p=0.1, block_size=3, inplace=False)");
  module->eval();
  EXPECT_TRUE(module(x).is_same(x));
  expect_error([] { ops::drop_block2d(ones({2, 3, 4}), 0.1, 3); }, "input should be 4 dimensional. Got 3 dimensions.");
  expect_error(
      [] {
        ops::drop_block2d(ones({1, 1, 8, 8}), 0.4, 2);
      },
      "drop_block2d: the block size (2, from block_size 2");
  expect_error([] { ops::drop_block2d(ones({1, 1, 8, 4}), 0.4, 5); }, "the block size (4, from block_size 5");
  expect_error([] { ops::DropBlock3d(1.5, 3); }, "drop probability has to be between 0 and 1, but got 1.5");
}

}  // namespace detection_layers_test
}  // namespace ember
