// ember-detect's built-in dataset (apps/detect/shapes_coco.h): the COCO
// layout it writes is read by datasets::CocoDetection and
// vision::detection::CocoGroundTruth, its annotations agree with each other
// (boxes, polygons, COCO mask areas) and with the pixels, and it is
// deterministic.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <ember/datasets/coco.h>
#include <ember/ember.h>
#include <ember/io/file.h>
#include <ember/vision/detection/coco_eval.h>

#include "../temp_dir.h"  // tests/temp_dir.h
#include "detect/shapes_coco.h"

namespace ember::apps::detect {
namespace {

namespace fs = std::filesystem;
namespace M = vision::detection::mask;

const fs::path& scratch() {
  static const ember::testing::TempDir root("ember_detect_shapes");
  return root.path();
}

constexpr ShapesCocoOptions kSmall{.train_images = 24, .val_images = 6, .image_width = 128, .image_height = 96,
                                   .seed = 3};

// The small dataset, written once per process.
std::string small_dataset() {
  static const std::string root = [] {
    const std::string r = (scratch() / "small").string();
    write_shapes_coco(r, kSmall);
    return r;
  }();
  return root;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(DetectShapes, CocoLayoutReadByCocoDetection) {
  const std::string root = small_dataset();
  datasets::CocoDetection train(root + "/train", root + "/annotations/instances_train.json");
  datasets::CocoDetection val(root + "/val", root + "/annotations/instances_val.json");
  ASSERT_EQ(train.size(), 24);
  ASSERT_EQ(val.size(), 6);
  ASSERT_EQ(train.categories().size(), 5u);
  for (size_t c = 0; c < 5; ++c) {
    EXPECT_EQ(train.categories()[c].id, static_cast<int64_t>(c) + 1);
    EXPECT_EQ(train.categories()[c].name, shapes_coco_categories()[c]);
  }
  std::set<int64_t> seen_categories;
  int64_t objects = 0, small = 0, pngs = 0;
  for (int64_t i = 0; i < train.size(); ++i) {
    const auto [image, target] = train.get(i);
    EXPECT_EQ(image.sizes(), (std::vector<int64_t>{3, 96, 128}));
    EXPECT_EQ(train.image_info(i).width, 128);
    EXPECT_EQ(train.image_info(i).height, 96);
    pngs += train.image_info(i).file_name.ends_with(".png");
    EXPECT_GE(target.boxes.size(0), 1);
    for (const auto& a : target.annotations) {
      seen_categories.insert(a.category_id);
      EXPECT_EQ(a.iscrowd, 0);
      // Inside the image, with some extent.
      EXPECT_GE(a.bbox[0], 0);
      EXPECT_GE(a.bbox[1], 0);
      EXPECT_LE(a.bbox[0] + a.bbox[2], 128);
      EXPECT_LE(a.bbox[1] + a.bbox[3], 96);
      EXPECT_GT(a.bbox[2], 4);
      EXPECT_GT(a.bbox[3], 4);
      EXPECT_GT(a.area, 0);
      EXPECT_LT(a.area, a.bbox[2] * a.bbox[3] + a.bbox[2] + a.bbox[3] + 1);
      small += a.area < 32 * 32;
      ++objects;
    }
  }
  EXPECT_EQ(seen_categories.size(), 5u);
  EXPECT_GE(objects, 2 * 24);  // several objects per image
  EXPECT_GE(small, objects / 8);  // some small
  EXPECT_LT(small, objects);      // not all
  EXPECT_EQ(pngs, 4);             // every fifth image
}

TEST(DetectShapes, SegmentationsAgreeWithBoxesAreasAndPixels) {
  const std::string root = small_dataset();
  const auto gt = vision::detection::CocoGroundTruth::from_json(root + "/annotations/instances_train.json");
  datasets::CocoDetection train(root + "/train", root + "/annotations/instances_train.json");
  for (const auto& a : gt.annotations) {
    ASSERT_TRUE(a.has_segmentation);
    // The "area" is the COCO mask's pixel count, and the mask lies in the box.
    EXPECT_DOUBLE_EQ(a.area, M::area(a.segmentation)) << a.id;
    const auto mb = M::to_bbox(a.segmentation);
    EXPECT_GE(mb[0], std::floor(a.bbox[0]) - 1) << a.id;
    EXPECT_LE(mb[0] + mb[2], std::ceil(a.bbox[0] + a.bbox[2]) + 1) << a.id;
    EXPECT_GE(mb[1], std::floor(a.bbox[1]) - 1) << a.id;
    EXPECT_LE(mb[1] + mb[3], std::ceil(a.bbox[1] + a.bbox[3]) + 1) << a.id;
  }
  // Pixels: inside an object its colour is near uniform (noise and JPEG only),
  // and it differs from the ring of background just outside its box.
  for (int64_t i = 0; i < 6; ++i) {
    const auto [image, target] = train.get(i);
    const Tensor img = image.to(kFloat64);
    for (const auto& a : target.annotations) {
      const vision::detection::CocoGroundTruthBox* g = nullptr;
      for (const auto& b : gt.annotations)
        if (b.id == a.id) g = &b;
      ASSERT_NE(g, nullptr);
      // The mask eroded by a pixel: away from the antialiased edge.
      const Tensor m = M::decode(g->segmentation).to(kFloat64);
      const Tensor core = (m.slice(0, 1, -1).slice(1, 1, -1) * m.slice(0, 0, -2).slice(1, 1, -1) *
                           m.slice(0, 2).slice(1, 1, -1) * m.slice(0, 1, -1).slice(1, 0, -2) *
                           m.slice(0, 1, -1).slice(1, 2));
      const double n = core.sum().item<double>();
      if (n < 4) continue;
      const Tensor inner = img.slice(1, 1, -1).slice(2, 1, -1);
      const Tensor mean = (inner * core).sum({1, 2}) / n;
      const Tensor spread = (((inner - mean.reshape({3, 1, 1})) * core).abs().sum({1, 2}) / n).max();
      EXPECT_LT(spread.item<double>(), 20.0) << "annotation " << a.id;
    }
  }
}

TEST(DetectShapes, GroundTruthScoresPerfectlyAgainstItself) {
  // The files as a COCO evaluation reads them: the ground truth given back as
  // detections scores 1 for boxes and for masks.
  const std::string root = small_dataset();
  const auto gt = vision::detection::CocoGroundTruth::from_json(root + "/annotations/instances_val.json");
  std::vector<vision::detection::CocoDetectionResult> dets;
  for (const auto& a : gt.annotations) {
    vision::detection::CocoDetectionResult d{a.image_id, a.category_id, a.bbox, 1.0};
    d.segmentation = a.segmentation, d.has_segmentation = true;
    dets.push_back(d);
  }
  EXPECT_DOUBLE_EQ(vision::detection::coco_evaluate(gt, dets).stats[1], 1.0);
  vision::detection::CocoEvalParams segm;
  segm.iou_type = "segm";
  EXPECT_DOUBLE_EQ(vision::detection::coco_evaluate(gt, dets, segm).stats[1], 1.0);
}

TEST(DetectShapes, DeterministicPerSeed) {
  const std::string a = (scratch() / "a").string(), b = (scratch() / "b").string(), c = (scratch() / "c").string();
  ShapesCocoOptions o{.train_images = 5, .val_images = 2, .image_width = 64, .image_height = 64, .seed = 11};
  const ShapesCocoSummary sa = write_shapes_coco(a, o);
  write_shapes_coco(b, o);
  o.seed = 12;
  write_shapes_coco(c, o);
  EXPECT_EQ(sa.images, 7);
  EXPECT_GT(sa.annotations, 0);
  for (const char* f : {"annotations/instances_train.json", "annotations/instances_val.json", "train/000001.jpg",
                        "train/000005.png", "val/000002.jpg"}) {
    EXPECT_EQ(read_text(fs::path(a) / f), read_text(fs::path(b) / f)) << f;
    EXPECT_NE(read_text(fs::path(a) / f), read_text(fs::path(c) / f)) << f;
  }
}

TEST(DetectShapes, BadOptions) {
  const std::string r = (scratch() / "bad").string();
  EXPECT_THROW(write_shapes_coco(r, {.train_images = -1}), Error);
  EXPECT_THROW(write_shapes_coco(r, {.image_width = 20}), Error);
  EXPECT_THROW(write_shapes_coco(r, {.min_objects = 3, .max_objects = 2}), Error);
  EXPECT_THROW(write_shapes_coco(r, {.small_fraction = 1.5}), Error);
}

}  // namespace
}  // namespace ember::apps::detect
