// models::detection's box machinery (AnchorGenerator, BoxCoder, Matcher,
// GeneralizedRCNNTransform) against torchvision 0.14's on the fixtures of
// scripts/fixtures/models_detection_box.py.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include <ember/ember.h>
#include <ember/models/detection/anchor_utils.h>
#include <ember/models/detection/box_coder.h>
#include <ember/models/detection/matcher.h>
#include <ember/models/detection/transform.h>

#include "npy.h"

namespace ember {
namespace detection_box_test {

using namespace models::detection;
using testing::fixture_path;

Tensor fx(const std::string& name) {
  return testing::load_npy(fixture_path("models/models_detection_box/" + name + ".npy"));
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

void expect_equal(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  ASSERT_EQ(got.dtype(), want.dtype());
  EXPECT_TRUE(equal(got, want)) << "max |diff| " << (got.to(kFloat64) - want.to(kFloat64)).abs().max().item<double>();
}

void expect_close(const Tensor& got, const Tensor& want, double rtol, double atol) {
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(allclose(got.to(kFloat64), want.to(kFloat64), rtol, atol))
      << "max |diff| " << (got.to(kFloat64) - want.to(kFloat64)).abs().max().item<double>();
}

// Cell anchors are rounded float32 values and the shifts integers: equal bit for bit.
TEST(AnchorGenerator, RetinaNetAnchorsMatchTorchvision) {
  AnchorGenerator gen(retinanet_anchor_generator());
  EXPECT_EQ(gen->options.sizes[0], (std::vector<double>{32, 40, 50}));
  EXPECT_EQ(gen->num_anchors_per_location(), (std::vector<int64_t>(5, 9)));
  for (int l = 0; l < 5; ++l) expect_equal(gen->cell_anchors()[l], fx("anchors_retinanet_cell" + std::to_string(l)));
  ImageList images{zeros({2, 3, 256, 320}), {{256, 320}, {246, 317}}};
  std::vector<Tensor> feats;
  for (auto [h, w] : std::vector<std::pair<int64_t, int64_t>>{{32, 40}, {16, 20}, {8, 10}, {4, 5}, {2, 3}})
    feats.push_back(zeros({2, 4, h, w}));
  const auto anchors = gen->forward(images, feats);
  ASSERT_EQ(anchors.size(), 2u);
  expect_equal(anchors[0], fx("anchors_retinanet"));
  expect_equal(anchors[1], fx("anchors_retinanet"));
  // Feature maps in float64 give float64 anchors of the same values.
  std::vector<Tensor> feats64;
  for (const Tensor& f : feats) feats64.push_back(f.to(kFloat64));
  expect_equal(gen->forward(images, feats64)[0], fx("anchors_retinanet").to(kFloat64));
}

// Ratios 0.25 and 3 (sqrt not exact in float32) and a stride of 100 // 13 = 7.
TEST(AnchorGenerator, OddRatiosAndStrides) {
  AnchorGenerator gen(AnchorGeneratorOptions{{{128, 256, 512}}, {{0.25, 1.0, 3.0}}});
  expect_equal(gen->cell_anchors()[0], fx("anchors_odd_cell0"));
  ImageList images{zeros({2, 3, 100, 130}), {{100, 130}, {90, 127}}};
  expect_equal(gen->forward(images, {zeros({2, 4, 13, 17})})[0], fx("anchors_odd"));
}

TEST(AnchorGenerator, BadInput) {
  AnchorGenerator gen(retinanet_anchor_generator());
  ImageList images{zeros({1, 3, 64, 64}), {{64, 64}}};
  expect_error([&] { gen->forward(images, {zeros({1, 4, 8, 8})}); }, "got 1 feature maps for 5 levels");
  expect_error([] { AnchorGenerator(AnchorGeneratorOptions{{{32}, {64}}, {{1.0}, {1.0}, {2.0}}}); },
               "one entry per feature map");
  expect_error([] { AnchorGenerator(AnchorGeneratorOptions{{{32}}, {{-1.0}}}); }, "aspect ratios must be positive");
}

class BoxCoderFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(BoxCoderFixture, EncodeDecodeMatchTorchvision) {
  const std::string w = GetParam();
  const BoxCoder coder = w == "unit" ? BoxCoder({1, 1, 1, 1}) : BoxCoder({10, 10, 5, 5});
  const Tensor ref = fx("coder_ref"), proposals = fx("coder_proposals");
  // float32 arithmetic op by op as torchvision's; log and exp may differ by an ulp.
  expect_close(coder.encode_single(ref, proposals), fx("coder_" + w + "_encoded"), 1e-6, 1e-6);
  const auto enc = coder.encode({ref.narrow(0, 0, 25), ref.narrow(0, 25, 15)},
                                {proposals.narrow(0, 0, 25), proposals.narrow(0, 25, 15)});
  ASSERT_EQ(enc.size(), 2u);
  expect_close(enc[0], fx("coder_" + w + "_encoded_list0"), 1e-6, 1e-6);
  expect_close(enc[1], fx("coder_" + w + "_encoded_list1"), 1e-6, 1e-6);
  const Tensor codes = fx("coder_" + w + "_codes");
  // Codes beyond bbox_xform_clip are clipped: boxes stay finite.
  const Tensor decoded = coder.decode_single(codes, proposals);
  EXPECT_TRUE(decoded.isfinite().all().item<bool>());
  expect_close(decoded, fx("coder_" + w + "_decoded_single"), 1e-5, 1e-3);
  const Tensor batched = coder.decode(codes.narrow(1, 0, 4).contiguous(),
                                      {proposals.narrow(0, 0, 25), proposals.narrow(0, 25, 15)});
  EXPECT_EQ(batched.sizes(), (std::vector<int64_t>{40, 1, 4}));
  expect_close(batched, fx("coder_" + w + "_decoded"), 1e-5, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Weights, BoxCoderFixture, ::testing::Values("unit", "rcnn"));

// decode(encode(b)) = b: an independent check of the two formulas.
TEST(BoxCoder, RoundTripInFloat64) {
  const BoxCoder coder({10, 10, 5, 5});
  const Tensor ref = fx("coder_ref").to(kFloat64), proposals = fx("coder_proposals").to(kFloat64);
  expect_close(coder.decode_single(coder.encode_single(ref, proposals), proposals), ref, 0, 1e-10);
}

TEST(BoxCoder, BadInput) {
  const BoxCoder coder({1, 1, 1, 1});
  expect_error([&] { coder.encode_single(zeros({3, 4}), zeros({2, 4})); }, "expected as many proposals");
  expect_error([&] { coder.encode_single(zeros({3, 5}), zeros({3, 4})); }, "[N, 4] tensor of boxes");
  expect_error([&] { coder.decode_single(zeros({3, 6}), zeros({3, 4})); }, "rel_codes should be [N, 4 * K]");
  expect_error([&] { coder.decode(zeros({5, 4}), {zeros({2, 4}), zeros({2, 4})}); }, "do not hold 4 * K codes");
  expect_error([] { BoxCoder({1, 0, 1, 1}); }, "non-zero");
}

TEST(Matcher, MatchesTorchvision) {
  const Tensor quality = fx("matcher_quality");
  expect_equal(Matcher(0.5, 0.4, true)(quality), fx("matcher_retina"));
  expect_equal(Matcher(0.7, 0.3, false)(quality), fx("matcher_strict"));
}

// Hand-computed: thresholds are inclusive above (>= high matches, >= low is
// between), ties go to the first ground truth, and a ground truth whose best
// prediction is low quality takes it back (ties of its best included).
TEST(Matcher, RulesByHand) {
  const Tensor q = tensor<float>({{0.9f, 0.5f, 0.2f, 0.3f, 0.3f}, {0.9f, 0.1f, 0.45f, 0.1f, 0.0f}});
  // 0.9 ties go to gt 0; 0.5 >= high matches; 0.45 is between (-2); 0.3 below (-1).
  expect_equal(Matcher(0.5, 0.4)(q), tensor<int64_t>({0, 0, -2, -1, -1}));
  // Low quality: gt 0's and gt 1's best are both prediction 0 (0.9): nothing
  // else changes (predictions 2-4 are nobody's best).
  expect_equal(Matcher(0.5, 0.4, true)(q), tensor<int64_t>({0, 0, -2, -1, -1}));
  const Tensor low = tensor<float>({{0.3f, 0.3f, 0.1f}, {0.2f, 0.1f, 0.35f}});
  expect_equal(Matcher(0.5, 0.4, false)(low), tensor<int64_t>({-1, -1, -1}));
  // gt 0's best (0.3) is shared by predictions 0 and 1: both matched to gt 0; gt 1 keeps prediction 2.
  expect_equal(Matcher(0.5, 0.4, true)(low), tensor<int64_t>({0, 0, 1}));
  EXPECT_EQ(Matcher::BELOW_LOW_THRESHOLD, -1);
  EXPECT_EQ(Matcher::BETWEEN_THRESHOLDS, -2);
}

TEST(Matcher, BadInput) {
  expect_error([] { Matcher(0.5, 0.4)(zeros({0, 5})); }, "No ground-truth boxes available");
  expect_error([] { Matcher(0.5, 0.4)(zeros({3, 0})); }, "No proposal boxes available");
  expect_error([] { Matcher(0.4, 0.5); }, "low_threshold should be <= high_threshold");
  expect_error([] { Matcher(0.5, 0.4)(zeros({3})); }, "[M ground truths, N predictions]");
}

GeneralizedRCNNTransform make_transform() {
  GeneralizedRCNNTransform t(GeneralizedRCNNTransformOptions{.min_size = {80}, .max_size = 120});
  t->eval();
  return t;
}

TEST(GeneralizedRCNNTransform, ResizeBatchPostprocessMatchTorchvision) {
  auto t = make_transform();
  std::vector<Tensor> images = {fx("transform_image0"), fx("transform_image1")};
  std::vector<Target> targets;
  for (int k = 0; k < 2; ++k)
    targets.push_back({{"boxes", fx("transform_boxes" + std::to_string(k))},
                       {"labels", tensor<int64_t>({1, 2, 3})},
                       {"masks", fx("transform_masks" + std::to_string(k))}});
  auto [batch, out] = t->forward(images, targets);
  // 50 x 70 -> 79 x 111: torchvision's float32 scale 80 * (1 / 50) is 1.5999999.
  const Tensor sizes = fx("transform_image_sizes");
  ASSERT_EQ(batch.image_sizes.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(batch.image_sizes[k].first, sizes[k][0].item<int64_t>());
    EXPECT_EQ(batch.image_sizes[k].second, sizes[k][1].item<int64_t>());
  }
  // Ember's bilinear taps are computed in double, torch's float32 kernel
  // computes source positions in float (up to ~5e-6 of a pixel at 80 pixels):
  // normalized values (range about 5) differ by up to ~2e-5.
  expect_close(batch.tensors, fx("transform_batched"), 0, 5e-5);
  for (int k = 0; k < 2; ++k) {
    expect_equal(out[k]["boxes"], fx("transform_out_boxes" + std::to_string(k)));
    expect_equal(out[k]["masks"], fx("transform_out_masks" + std::to_string(k)));
    expect_equal(out[k]["labels"], tensor<int64_t>({1, 2, 3}));
  }
  std::vector<Target> dets = {{{"boxes", fx("transform_det_boxes0")}}, {{"boxes", fx("transform_det_boxes1")}}};
  const auto post = t->postprocess(dets, batch.image_sizes, {{50, 70}, {64, 37}});
  expect_equal(post[0].at("boxes"), fx("transform_post_boxes0"));
  expect_equal(post[1].at("boxes"), fx("transform_post_boxes1"));
}

TEST(GeneralizedRCNNTransform, Float64AndNoPadding) {
  GeneralizedRCNNTransform t(GeneralizedRCNNTransformOptions{.min_size = {60, 90}, .max_size = 100, .image_mean = {0.5, 0.5, 0.5},
                              .image_std = {0.25, 0.25, 0.25}, .size_divisible = 1});
  t->eval();  // eval uses the last min_size
  auto [batch, out] = t->forward({fx("transform_image64")});
  EXPECT_TRUE(out.empty());
  expect_close(batch.tensors, fx("transform_batched64"), 1e-12, 1e-12);
  EXPECT_EQ(batch.tensors.dtype(), kFloat64);
}

// Training draws one of min_size per image; sizes stay within max_size.
TEST(GeneralizedRCNNTransform, TrainingDrawsMinSize) {
  GeneralizedRCNNTransform t(GeneralizedRCNNTransformOptions{.min_size = {32, 48}, .max_size = 1000});
  t->train();
  Generator g(7);
  t->set_generator(&g);
  std::set<int64_t> seen;
  for (int i = 0; i < 20; ++i) {
    auto [batch, out] = t->forward({rand({3, 20, 30})});
    seen.insert(batch.image_sizes[0].first);
    EXPECT_EQ(batch.tensors.size(2) % 32, 0);
  }
  EXPECT_EQ(seen, (std::set<int64_t>{32, 48}));
  // postprocess leaves training results alone.
  std::vector<Target> r = {{{"boxes", ones({1, 4})}}};
  EXPECT_TRUE(t->postprocess(r, {{10, 10}}, {{20, 20}})[0]["boxes"].equal(ones({1, 4})));
}

TEST(GeneralizedRCNNTransform, BadInput) {
  auto t = make_transform();
  expect_error([&] { t->forward({zeros({3, 10, 10}, kUInt8)}); }, "Expected input images to be of floating type");
  expect_error([&] { t->forward({zeros({1, 3, 10, 10})}); }, "list of 3d tensors");
  expect_error([&] { t->forward({zeros({3, 10, 10}), zeros({3, 10, 10})}, {Target{{"boxes", zeros({0, 4})}}}); },
               "2 images but 1 targets");
  expect_error([&] { t->forward({zeros({3, 10, 10})}, {Target{{"labels", zeros({0}, kInt64)}}}); }, "no \"boxes\"");
  expect_error([&] { t->forward({zeros({3, 10, 10})}, {Target{{"boxes", zeros({2, 3})}}}); }, "[N, 4]");
  expect_error([&] { t->forward({zeros({4, 10, 10})}); }, "4 channels");
  expect_error([&] {
    t->forward({zeros({3, 10, 10})}, {Target{{"boxes", zeros({1, 4})}, {"masks", zeros({1, 9, 10}, kUInt8)}}});
  }, "target masks must be [N, 10, 10]");
  std::ostringstream os;
  os << *t;
  EXPECT_NE(os.str().find("Resize(min_size=(80,), max_size=120, mode='bilinear')"), std::string::npos) << os.str();
}

}  // namespace detection_box_test
}  // namespace ember
