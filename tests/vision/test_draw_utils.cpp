// vision::utils: draw_bounding_boxes, draw_segmentation_masks, draw_keypoints,
// make_grid and save_image against torchvision 0.14's output bytes
// (scripts/fixtures/vision_draw.py); labels (Ember's own font) by placement
// and colour.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include <ember/ember.h>
#include <ember/io/image.h>
#include <ember/vision/utils.h>

#include "common/device_test.h"
#include "npy.h"
#include "temp_dir.h"

namespace ember {
namespace draw_utils_test {

namespace U = vision::utils;

Tensor fx(const std::string& name) { return testing::load_npy(testing::fixture_path("vision/vision_draw/" + name + ".npy")); }

template <class Fn>
void expect_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

void expect_same_pixels(const Tensor& got, const std::string& name) {
  const Tensor want = fx(name);
  ASSERT_EQ(got.sizes(), want.sizes()) << name;
  ASSERT_EQ(got.dtype(), want.dtype()) << name;
  const Tensor diff = got.ne(want);
  const int64_t bad = diff.sum().item<int64_t>();
  EXPECT_EQ(bad, 0) << name << ": " << bad << " values differ; first at " << nonzero(diff).narrow(0, 0, 1);
}

std::vector<U::Color> fixture_colors() {
  return {"red", U::Color(240, 10, 157), "#00FF00", "navy", "#abc", "rgb(1, 2, 3)", "yellow", "darkslategray"};
}

TEST(DrawBoundingBoxes, MatchesTorchvisionPixels) {
  const Tensor img = fx("input_image"), boxes = fx("input_boxes");
  expect_same_pixels(U::draw_bounding_boxes(img, boxes), "boxes_default");
  expect_same_pixels(U::draw_bounding_boxes(img, boxes, {.colors = {"red"}, .width = 3}), "boxes_width3_named");
  expect_same_pixels(U::draw_bounding_boxes(img, boxes, {.colors = fixture_colors(), .width = 2}), "boxes_colors");
  expect_same_pixels(U::draw_bounding_boxes(img, boxes, {.colors = fixture_colors(), .fill = true, .width = 2}),
                     "boxes_fill");
  expect_same_pixels(U::draw_bounding_boxes(img, boxes.narrow(0, 0, 3), {.fill = true, .width = 0}),
                     "boxes_fill_width0");
  expect_same_pixels(U::draw_bounding_boxes(fx("input_gray"), boxes.narrow(0, 0, 4)), "boxes_gray");
}

// Labels: Ember's glyphs, torchvision's place (from (x1 + width + 1, y1 +
// width + 1), one 6-pixel cell per character) and the box's colour; nothing
// else changes.
TEST(DrawBoundingBoxes, LabelsPlacedInBoxColour) {
  const Tensor img = zeros({3, 40, 120}, kUInt8);
  const Tensor boxes = tensor<float>({{5, 4, 110, 35}});
  const Tensor plain = U::draw_bounding_boxes(img, boxes, {.colors = {"yellow"}, .width = 2});
  const Tensor labelled = U::draw_bounding_boxes(img, boxes, {.labels = {"cat 1"}, .colors = {"yellow"}, .width = 2});
  const Tensor changed = labelled.ne(plain).any(0);
  const auto where = nonzero(changed);
  ASSERT_GT(where.size(0), 10);
  const int64_t x0 = 5 + 3, y0 = 4 + 3;
  EXPECT_GE(where.select(1, 0).min().item<int64_t>(), y0);
  EXPECT_LT(where.select(1, 0).max().item<int64_t>(), y0 + 11);
  EXPECT_GE(where.select(1, 1).min().item<int64_t>(), x0);
  EXPECT_LT(where.select(1, 1).max().item<int64_t>(), x0 + 5 * 6);
  // Every changed pixel is the box's colour (255, 255, 0).
  const Tensor ink = labelled.permute({1, 2, 0}).index({changed});
  EXPECT_TRUE(ink.eq(tensor<int64_t>({255, 255, 0}).to(kUInt8)).all().item<bool>());
  // font_size 20 doubles the glyphs: four pixels for each.
  const Tensor big = U::draw_bounding_boxes(img, boxes, {.labels = {"cat 1"}, .colors = {"yellow"}, .width = 2,
                                                         .font_size = 20});
  EXPECT_EQ(big.ne(plain).any(0).sum().item<int64_t>(), 4 * changed.sum().item<int64_t>());
}

// The caller's image is never drawn on, whatever its strides: an RGB view of
// an HWC buffer (contiguous after the permute the drawing makes) included.
TEST(DrawBoundingBoxes, InputUntouched) {
  const Tensor hwc = fx("input_image").permute({1, 2, 0}).contiguous();
  const Tensor chw = hwc.permute({2, 0, 1});
  const Tensor before = hwc.clone();
  expect_same_pixels(U::draw_bounding_boxes(chw, fx("input_boxes")), "boxes_default");
  EXPECT_TRUE(hwc.equal(before));
  U::draw_keypoints(chw, fx("input_keypoints"), {.connectivity = {{0, 1}}, .colors = U::Color("red")});
  EXPECT_TRUE(hwc.equal(before));
}

TEST(DrawBoundingBoxes, BadInput) {
  const Tensor img = zeros({3, 10, 10}, kUInt8);
  expect_error([&] { U::draw_bounding_boxes(img, tensor<float>({{5, 0, 2, 4}})); },
               "Boxes need to be in (xmin, ymin, xmax, ymax) format");
  expect_error([&] { U::draw_bounding_boxes(img, tensor<float>({{0, 5, 2, 4}})); }, "(xmin, ymin, xmax, ymax)");
  expect_error([&] { U::draw_bounding_boxes(img, zeros({2, 5})); }, "[N, 4]");
  expect_error([&] { U::draw_bounding_boxes(img.to(kFloat32), zeros({1, 4})); }, "Tensor uint8 expected");
  expect_error([&] { U::draw_bounding_boxes(zeros({1, 3, 10, 10}, kUInt8), zeros({1, 4})); }, "not batches");
  expect_error([&] { U::draw_bounding_boxes(zeros({2, 10, 10}, kUInt8), zeros({1, 4})); },
               "Only grayscale and RGB");
  expect_error([&] { U::draw_bounding_boxes(img, zeros({2, 4}), {.labels = {"a"}}); },
               "Number of boxes (2) and labels (1) mismatch");
  expect_error([&] { U::draw_bounding_boxes(img, zeros({3, 4}), {.colors = {"red", "blue"}}); },
               "Number of colors (2) is less than number of boxes (3)");
  expect_error([] { U::Color("not-a-colour"); }, "unknown color specifier");
  expect_error([] { U::Color(256, 0, 0); }, "[0, 255]");
  // No boxes: the image back, with a warning.
  WarningCapture capture;
  EXPECT_TRUE(U::draw_bounding_boxes(img, zeros({0, 4})).is_same(img));
}

TEST(DrawSegmentationMasks, MatchesTorchvisionPixels) {
  const Tensor img = fx("input_image"), masks = fx("input_masks");
  expect_same_pixels(U::draw_segmentation_masks(img, masks), "masks_default");
  expect_same_pixels(U::draw_segmentation_masks(img, masks, {.alpha = 0.3, .colors = {"blue", U::Color(10, 200, 30), "#ff8800"}}),
                     "masks_alpha_colors");
  expect_same_pixels(U::draw_segmentation_masks(img, masks.select(0, 0), {.alpha = 0.55, .colors = {"red"}}),
                     "masks_single");
}

TEST(DrawSegmentationMasks, BadInput) {
  const Tensor img = zeros({3, 10, 10}, kUInt8);
  expect_error([&] { U::draw_segmentation_masks(img, zeros({2, 10, 10}, kUInt8)); }, "must be of dtype bool");
  expect_error([&] { U::draw_segmentation_masks(img, zeros({2, 9, 10}, kBool)); }, "same height and width");
  expect_error([&] { U::draw_segmentation_masks(img, zeros({2, 2, 9, 10}, kBool)); }, "(H, W) or (batch_size, H, W)");
  expect_error([&] { U::draw_segmentation_masks(zeros({1, 10, 10}, kUInt8), zeros({10, 10}, kBool)); },
               "Pass an RGB image");
  expect_error([&] { U::draw_segmentation_masks(img, zeros({3, 10, 10}, kBool), {.colors = {"red", "blue"}}); },
               "There are more masks (3) than colors (2)");
}

TEST(DrawKeypoints, MatchesTorchvisionPixels) {
  const Tensor img = fx("input_image"), kp = fx("input_keypoints");
  const std::vector<std::pair<int64_t, int64_t>> conn = {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {3, 4}, {4, 4}};
  expect_same_pixels(U::draw_keypoints(img, kp, {.connectivity = conn, .colors = U::Color("red")}), "kp_red_r2_w3");
  expect_same_pixels(
      U::draw_keypoints(img, kp, {.connectivity = conn, .colors = U::Color(0, 0, 255), .radius = 4, .width = 5}),
      "kp_blue_r4_w5");
  expect_same_pixels(
      U::draw_keypoints(img, kp, {.connectivity = conn, .colors = U::Color("lime"), .radius = 1, .width = 1}),
      "kp_green_r1_w1");
  expect_same_pixels(
      U::draw_keypoints(img, kp, {.connectivity = conn, .colors = U::Color("#123456"), .radius = 3, .width = 2}),
      "kp_r3_w2");
  expect_same_pixels(U::draw_keypoints(img, kp, {.connectivity = conn}), "kp_nocolor");
}

TEST(DrawKeypoints, BadInput) {
  const Tensor img = zeros({3, 10, 10}, kUInt8);
  expect_error([&] { U::draw_keypoints(img, zeros({4, 2})); }, "(num_instances, K, 2)");
  expect_error([&] { U::draw_keypoints(img, zeros({1, 3, 2}), {.connectivity = {{0, 3}}}); }, "outside [0, 3)");
  expect_error([&] { U::draw_keypoints(zeros({3, 10, 10}), zeros({1, 3, 2})); }, "uint8");
}

TEST(MakeGrid, MatchesTorchvision) {
  const Tensor batch = fx("input_batch");
  auto same = [](const Tensor& got, const std::string& name) {
    const Tensor want = fx(name);
    ASSERT_EQ(got.sizes(), want.sizes()) << name;
    EXPECT_TRUE(allclose(got, want, 0, 1e-6)) << name;
  };
  same(U::make_grid(batch), "grid_default");
  same(U::make_grid(batch, {.nrow = 2, .padding = 1, .pad_value = 0.5}), "grid_nrow2_pad1");
  same(U::make_grid(batch, {.nrow = 3, .normalize = true}), "grid_normalize");
  same(U::make_grid(batch, {.nrow = 3, .normalize = true, .value_range = std::pair{-0.5, 2.0}}), "grid_range");
  same(U::make_grid(batch, {.nrow = 4, .normalize = true, .scale_each = true}), "grid_scale_each");
  same(U::make_grid(batch.narrow(1, 0, 1), {.nrow = 3, .padding = 0}), "grid_one_channel");
  std::vector<Tensor> list;
  for (int64_t i = 0; i < 5; ++i) list.push_back(batch[i]);
  same(U::make_grid(list), "grid_default");
  // One image comes back as itself (three channels from one).
  EXPECT_TRUE(U::make_grid(batch.narrow(0, 0, 1)).equal(batch[0]));
  EXPECT_EQ(U::make_grid(zeros({4, 5})).sizes(), (std::vector<int64_t>{3, 4, 5}));
  // normalize does not touch the input.
  const Tensor before = batch.clone();
  U::make_grid(batch, {.normalize = true});
  EXPECT_TRUE(batch.equal(before));
  expect_error([] { U::make_grid(zeros({1, 2, 3, 4, 5})); }, "make_grid: expected");
  expect_error([] { U::make_grid(std::vector<Tensor>{}); }, "empty");
}

TEST(SaveImage, PngPixelsMatchTorchvision) {
  testing::TempDir dir;
  const std::string path = dir / "grid.png";
  U::save_image(fx("input_batch"), path, {.nrow = 3, .normalize = true});
  expect_same_pixels(io::read_image(path), "saved_grid_png");
  // JPEG through Ember::io: lossy, close to the PNG.
  const std::string jpg = dir / "grid.jpg";
  U::save_image(fx("input_batch"), jpg, {.nrow = 3, .normalize = true});
  const Tensor decoded = io::read_image(jpg);
  EXPECT_EQ(decoded.sizes(), fx("saved_grid_png").sizes());
  expect_error([&] { U::save_image(fx("input_batch"), dir / "grid.bmp"); }, "unsupported format \"bmp\"");
}

// Images on any device: drawn (on the CPU, for boxes and keypoints) and
// returned on the image's device, with torchvision's pixels.
class DrawOnDevice : public testing::OnEachDevice {};

TEST_P(DrawOnDevice, SamePixelsOnTheImagesDevice) {
  const Tensor img = on_device(fx("input_image"));
  Tensor out = U::draw_bounding_boxes(img, on_device(fx("input_boxes")), {.colors = fixture_colors(), .fill = true, .width = 2});
  EXPECT_EQ(out.device(), device());
  expect_same_pixels(out.cpu(), "boxes_fill");
  out = U::draw_segmentation_masks(img, on_device(fx("input_masks")));
  EXPECT_EQ(out.device(), device());
  expect_same_pixels(out.cpu(), "masks_default");
  out = U::draw_keypoints(img, on_device(fx("input_keypoints")),
                          {.connectivity = {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {3, 4}, {4, 4}}, .colors = U::Color("red")});
  EXPECT_EQ(out.device(), device());
  expect_same_pixels(out.cpu(), "kp_red_r2_w3");
}

EMBER_INSTANTIATE_ON_EACH_DEVICE(DrawOnDevice);

}  // namespace draw_utils_test
}  // namespace ember
