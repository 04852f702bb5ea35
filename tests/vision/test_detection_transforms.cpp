// vision::detection transforms (torchvision's references/detection/transforms.py):
// the deterministic steps against hand-computed targets and Ember's image
// functionals, the random ones by the invariants they keep under seeded draws.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/vision/detection/transforms.h>
#include <ember/vision/transforms/functional/geometry.h>

namespace ember {
namespace detection_transforms_test {

using namespace vision::detection;
namespace F = vision::transforms::functional;

template <class Fn>
void expect_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

Tensor test_image() { return arange(0, 3 * 20 * 30, kInt64).remainder(251).to(kUInt8).view({3, 20, 30}); }

Target test_target() {
  Tensor masks = zeros({3, 20, 30}, kUInt8);
  masks[0].narrow(0, 2, 5).narrow(1, 1, 9).fill_(1);
  masks[1].narrow(0, 10, 8).narrow(1, 20, 8).fill_(1);
  masks[2].narrow(0, 0, 20).narrow(1, 0, 30).fill_(1);
  return {{"boxes", tensor<float>({{1, 2, 10, 7}, {20, 10, 28, 18}, {0, 0, 30, 20}})},
          {"labels", tensor<int64_t>({3, 1, 2})},
          {"masks", masks},
          {"image_id", tensor<int64_t>({42})}};
}

void expect_tensor(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(got.to(kFloat64).equal(want.to(kFloat64))) << got << "\nvs\n" << want;
}

TEST(DetectionHflip, MovesBoxesMasksKeypoints) {
  Target t = test_target();
  auto [image, out] = hflip(test_image(), t);
  EXPECT_TRUE(image.equal(F::hflip(test_image())));
  // x1' = 30 - x2, x2' = 30 - x1.
  expect_tensor(out["boxes"], tensor<float>({{20, 2, 29, 7}, {2, 10, 10, 18}, {0, 0, 30, 20}}));
  EXPECT_TRUE(out["masks"].equal(t["masks"].flip({-1})));
  EXPECT_TRUE(out["image_id"].equal(tensor<int64_t>({42})));
  // The input target is not modified.
  expect_tensor(t["boxes"], tensor<float>({{1, 2, 10, 7}, {20, 10, 28, 18}, {0, 0, 30, 20}}));
  // COCO person keypoints: left/right swap, x mirrored, invisible ones zeroed.
  Tensor kps = zeros({1, 17, 3});
  for (int64_t j = 0; j < 17; ++j) kps[0][j].copy_(tensor<float>({static_cast<float>(j), 5.f, j == 4 ? 0.f : 2.f}));
  Target kt{{"boxes", tensor<float>({{0, 0, 5, 5}})}, {"keypoints", kps}};
  const Tensor flipped = hflip(test_image(), kt).second["keypoints"];
  // Keypoint 1 (left eye) takes 2's (right eye): x = 30 - 2.
  EXPECT_FLOAT_EQ(flipped[0][1][0].item<float>(), 28.f);
  EXPECT_FLOAT_EQ(flipped[0][0][0].item<float>(), 30.f);
  // Keypoint 3 takes 4's, which was invisible: all zero.
  EXPECT_TRUE(flipped[0][3].eq(0).all().item<bool>());
}

TEST(DetectionCrop, KeepsBoxesWithCentreInside) {
  // Crop rows 5..19, columns 8..29 (top 5, left 8, 15 x 22).
  auto [image, out] = crop(test_image(), test_target(), 5, 8, 15, 22);
  EXPECT_TRUE(image.equal(F::crop(test_image(), 5, 8, 15, 22)));
  // Box 0's centre (5.5, 4.5) is outside; boxes 1 and 2 stay, shifted and clamped.
  expect_tensor(out["boxes"], tensor<float>({{12, 5, 20, 13}, {0, 0, 22, 15}}));
  expect_tensor(out["labels"], tensor<int64_t>({1, 2}));
  EXPECT_EQ(out["masks"].sizes(), (std::vector<int64_t>{2, 15, 22}));
  EXPECT_TRUE(out["masks"][0].equal(F::crop(test_target()["masks"][1], 5, 8, 15, 22)));
  EXPECT_TRUE(out["image_id"].equal(tensor<int64_t>({42})));
  // A crop that keeps no centre leaves empty [0, 4] boxes.
  auto [_, none] = crop(test_image(), test_target(), 0, 0, 2, 2);
  EXPECT_EQ(none["boxes"].sizes(), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(none["labels"].numel(), 0);
}

TEST(DetectionZoomOut, PlacesImageOnCanvas) {
  auto [image, out] = zoom_out(test_image(), test_target(), 30, 50, 4, 7, {10, 20, 30});
  EXPECT_EQ(image.sizes(), (std::vector<int64_t>{3, 30, 50}));
  EXPECT_TRUE(image.narrow(1, 4, 20).narrow(2, 7, 30).equal(test_image()));
  EXPECT_EQ(image[1][0][0].item<int64_t>(), 20);
  EXPECT_EQ(image[2][29][49].item<int64_t>(), 30);
  expect_tensor(out["boxes"], tensor<float>({{8, 6, 17, 11}, {27, 14, 35, 22}, {7, 4, 37, 24}}));
  EXPECT_EQ(out["masks"].sizes(), (std::vector<int64_t>{3, 30, 50}));
  EXPECT_EQ(out["masks"].sum().item<int64_t>(), test_target()["masks"].sum().item<int64_t>());
  expect_error([] { zoom_out(test_image(), test_target(), 20, 30, 1, 0, {0}); }, "does not fit");
}

TEST(DetectionResize, ScalesBoxesWithImage) {
  auto [image, out] = resize(test_image(), test_target(), 40, 45);
  EXPECT_TRUE(image.equal(F::resize(test_image(), {40, 45})));
  // x * 45 / 30, y * 40 / 20.
  expect_tensor(out["boxes"], tensor<float>({{1.5f, 4, 15, 14}, {30, 20, 42, 36}, {0, 0, 45, 40}}));
  EXPECT_EQ(out["masks"].sizes(), (std::vector<int64_t>{3, 40, 45}));
}

TEST(DetectionRandomTransforms, FlipProbabilities) {
  Generator g(1);
  auto [flipped, t1] = RandomHorizontalFlip(1.0)(test_image(), test_target(), &g);
  EXPECT_TRUE(flipped.equal(F::hflip(test_image())));
  auto [same, t0] = RandomHorizontalFlip(0.0)(test_image(), test_target(), &g);
  EXPECT_TRUE(same.equal(test_image()));
  int flips = 0;
  for (int i = 0; i < 200; ++i) flips += !RandomHorizontalFlip(0.5)(test_image(), test_target(), &g).first.equal(test_image());
  EXPECT_GT(flips, 60);
  EXPECT_LT(flips, 140);
}

// Every crop RandomIoUCrop returns keeps boxes inside it, labels and masks
// in step, and one kept box overlapping the crop by the drawn minimum IoU
// (at least the smallest non-zero option when anything was cropped).
TEST(DetectionRandomTransforms, IoUCropInvariants) {
  Generator g(5);
  RandomIoUCrop op;
  int cropped = 0;
  for (int i = 0; i < 50; ++i) {
    auto [image, t] = op(test_image(), test_target(), &g);
    const int64_t h = image.size(1), w = image.size(2);
    const Tensor b = t["boxes"];
    ASSERT_GE(b.size(0), 1);
    EXPECT_EQ(t["labels"].size(0), b.size(0));
    EXPECT_EQ(t["masks"].size(0), b.size(0));
    EXPECT_EQ(t["masks"].size(1), h);
    EXPECT_TRUE(b.ge(0).all().item<bool>());
    EXPECT_TRUE(b.select(1, 2).le(w).all().item<bool>());
    EXPECT_TRUE(b.select(1, 3).le(h).all().item<bool>());
    EXPECT_GE(w, 30 * 3 / 10);
    EXPECT_GE(h, 20 * 3 / 10);
    cropped += (h != 20 || w != 30);
  }
  EXPECT_GT(cropped, 10);
  expect_error([&] { op(test_image(), Target{{"boxes", zeros({0, 4})}}, &g); }, "no boxes");
  expect_error([] { RandomIoUCrop({.min_scale = 0.5, .max_scale = 0.4}); }, "min_scale <= max_scale");
}

TEST(DetectionRandomTransforms, ZoomOutInvariants) {
  Generator g(9);
  RandomZoomOut op({.fill = {1, 2, 3}, .side_range = {1.0, 2.0}, .p = 1.0});
  for (int i = 0; i < 20; ++i) {
    auto [image, t] = op(test_image(), test_target(), &g);
    const int64_t h = image.size(1), w = image.size(2);
    EXPECT_GE(h, 20);
    EXPECT_LE(h, 40);
    EXPECT_GE(w, 30);
    EXPECT_LE(w, 60);
    // The image sits where the boxes moved to: box 2 covered the whole image.
    const int64_t left = t["boxes"][2][0].item<int64_t>(), top = t["boxes"][2][1].item<int64_t>();
    EXPECT_TRUE(image.narrow(1, top, 20).narrow(2, left, 30).equal(test_image()));
  }
  expect_error([] { RandomZoomOut({.side_range = {0.5, 2.0}}); }, "Invalid canvas side range");
}

TEST(DetectionRandomTransforms, PhotometricDistortKeepsTarget) {
  Generator g(3);
  RandomPhotometricDistort op({.p = 1.0});
  const Tensor img = test_image();
  auto [out, t] = op(img, test_target(), &g);
  EXPECT_EQ(out.sizes(), img.sizes());
  EXPECT_EQ(out.dtype(), kUInt8);
  EXPECT_FALSE(out.equal(img));
  expect_tensor(t["boxes"], test_target()["boxes"]);
  // p = 0: nothing changes.
  EXPECT_TRUE(RandomPhotometricDistort({.p = 0.0})(img, test_target(), &g).first.equal(img));
  expect_error([] { RandomPhotometricDistort({.hue = {-0.7, 0.1}}); }, "hue values");
}

TEST(DetectionRandomTransforms, ScaleJitterAndCompose) {
  Generator g(4);
  auto [image, t] = ScaleJitter({40, 60}, {1.0, 1.0})(test_image(), test_target(), &g);
  EXPECT_EQ(image.sizes(), (std::vector<int64_t>{3, 40, 60}));
  expect_tensor(t["boxes"], test_target()["boxes"] * 2);
  Compose pipeline({RandomHorizontalFlip(1.0), RandomHorizontalFlip(1.0)});
  auto [back, tb] = pipeline(test_image(), test_target(), &g);
  EXPECT_TRUE(back.equal(test_image()));
  expect_tensor(tb["boxes"], test_target()["boxes"]);
  // The same seed gives the same sample.
  Compose random({RandomPhotometricDistort(), RandomZoomOut(), RandomIoUCrop(), RandomHorizontalFlip()});
  Generator a(11), b(11);
  auto s1 = random(test_image(), test_target(), &a);
  auto s2 = random(test_image(), test_target(), &b);
  EXPECT_TRUE(s1.first.equal(s2.first));
  EXPECT_TRUE(s1.second["boxes"].equal(s2.second["boxes"]));
}

TEST(DetectionTransforms, BadTargets) {
  Target mismatched = test_target();
  mismatched["labels"] = tensor<int64_t>({1, 2});
  expect_error([&] { hflip(test_image(), mismatched); }, "target[\"labels\"] has 2 rows for 3 boxes");
  expect_error([] { hflip(test_image(), Target{{"labels", zeros({1}, kInt64)}}); }, "no \"boxes\"");
  expect_error([] { hflip(test_image(), Target{{"boxes", zeros({2, 5})}}); }, "[N, 4]");
  expect_error([] { hflip(test_image(), Target{{"boxes", zeros({2, 4}, kInt64)}}); }, "floating point");
  Target bad_masks = test_target();
  bad_masks["masks"] = zeros({3, 10, 30}, kUInt8);
  expect_error([&] { crop(test_image(), bad_masks, 0, 0, 5, 5); }, "target[\"masks\"] should be [N, 20, 30]");
  expect_error([] { hflip(zeros({20, 30}), test_target()); }, "[C, H, W]");
  expect_error([] { crop(test_image(), test_target(), 0, 0, 0, 5); }, "non-empty");
}

}  // namespace detection_transforms_test
}  // namespace ember
