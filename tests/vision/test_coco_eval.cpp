// vision::detection::coco_evaluate: pycocotools' COCOeval (bbox) against the
// numpy reimplementation in scripts/fixtures/vision_coco_eval.py (random
// detections over random ground truth with crowds, ties, empty categories,
// images without ground truth), and hand-computed cases that pin each rule.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <ember/ember.h>
#include <ember/vision/detection/coco_eval.h>

#include "npy.h"

namespace ember {
namespace coco_eval_test {

using namespace vision::detection;
using testing::fixture_path;
using testing::load_npy;

template <class Fn>
void expect_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class CocoEvalFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CocoEvalFixture, MatchesReferenceImplementation) {
  const std::string dir = fixture_path("vision/vision_coco_eval/") + GetParam();
  const CocoGroundTruth gt = CocoGroundTruth::from_json(dir + "_gt.json");
  const auto dets = load_coco_results(dir + "_dt.json");
  const CocoEvalResult r = coco_evaluate(gt, dets);
  const Tensor precision = load_npy(dir + "_precision.npy");
  const Tensor recall = load_npy(dir + "_recall.npy");
  const Tensor stats = load_npy(dir + "_stats.npy");
  ASSERT_EQ(r.precision.sizes(), precision.sizes());
  ASSERT_EQ(r.recall.sizes(), recall.sizes());
  EXPECT_TRUE(allclose(r.precision, precision, 0, 1e-12));
  EXPECT_TRUE(allclose(r.recall, recall, 0, 1e-12));
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(r.stats[i], stats[i].item<double>(), 1e-12) << "stat " << i;
  EXPECT_EQ(r.summary(), read_text(dir + "_summary.txt"));
  // Every fixture has a category without ground truth: -1 throughout.
  EXPECT_TRUE((r.precision.select(2, r.precision.size(2) - 1) == -1).all().item<bool>());
}

INSTANTIATE_TEST_SUITE_P(Cases, CocoEvalFixture, ::testing::Values("small", "crowded", "many", "ties"));

// iouType "segm": polygon ground truth (some in two parts), uncompressed crowd
// RLEs, detections as compressed RLE strings without boxes (empty masks among
// them), against the reference's pixel-mask IoUs.
class CocoSegmEvalFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CocoSegmEvalFixture, MatchesReferenceImplementation) {
  const std::string dir = fixture_path("vision/vision_coco_eval/") + GetParam();
  const CocoGroundTruth gt = CocoGroundTruth::from_json(dir + "_gt.json");
  const auto dets = load_coco_results(dir + "_dt.json");
  CocoEvalParams params;
  params.iou_type = "segm";
  const CocoEvalResult r = coco_evaluate(gt, dets, params);
  EXPECT_TRUE(allclose(r.precision, load_npy(dir + "_precision.npy"), 0, 1e-12));
  EXPECT_TRUE(allclose(r.recall, load_npy(dir + "_recall.npy"), 0, 1e-12));
  const Tensor stats = load_npy(dir + "_stats.npy");
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(r.stats[i], stats[i].item<double>(), 1e-12) << "stat " << i;
  EXPECT_EQ(r.summary(), read_text(dir + "_summary.txt"));
  // The same detections through CocoEvaluator.update_masks (decoded masks).
  CocoEvaluator ev(gt, params);
  for (const auto& d : dets)
    ev.update_masks(d.image_id, mask::decode(d.segmentation).unsqueeze(0).to(kFloat32),
                    full({1}, d.score, kFloat64), full({1}, d.category_id, kInt64));
  const CocoEvalResult r2 = ev.evaluate();
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(r2.stats[i], stats[i].item<double>(), 1e-12) << "stat " << i;
}

INSTANTIATE_TEST_SUITE_P(Cases, CocoSegmEvalFixture, ::testing::Values("segm_small", "segm_crowded"));

// A 10 x 10 image's mask of the rectangle [x0, x1) x [y0, y1).
mask::Rle rect(int64_t x0, int64_t y0, int64_t x1, int64_t y1, int64_t h = 10, int64_t w = 10) {
  Tensor m = zeros({h, w}, kUInt8);
  if (x1 > x0 && y1 > y0) m.slice(0, y0, y1).slice(1, x0, x1).fill_(1);
  return mask::encode(m);
}

CocoGroundTruthBox mask_gt(int64_t id, int64_t image, const mask::Rle& r, bool crowd = false) {
  CocoGroundTruthBox a{id, image, 1, mask::to_bbox(r), mask::area(r), crowd};
  a.segmentation = r, a.has_segmentation = true;
  return a;
}

CocoDetectionResult mask_det(int64_t image, const mask::Rle& r, double score) {
  CocoDetectionResult d{image, 1, mask::to_bbox(r), score};
  d.segmentation = r, d.has_segmentation = true, d.area = mask::area(r);
  return d;
}

CocoGroundTruth mask_ground_truth(std::vector<CocoGroundTruthBox> anns) {
  CocoGroundTruth gt;
  gt.image_ids = {1};
  gt.image_sizes = {{10, 10}};
  gt.category_ids = {1};
  gt.annotations = std::move(anns);
  return gt;
}

CocoEvalParams segm_params() {
  CocoEvalParams p;
  p.iou_type = "segm";
  return p;
}

TEST(CocoSegmEvalRules, ExactMasksScoreOneAndBoxesDoNot) {
  // An L-shaped object: its box covers pixels the mask does not.
  const mask::Rle l = mask::merge({rect(0, 0, 2, 8), rect(0, 6, 8, 8)});
  const auto gt = mask_ground_truth({mask_gt(1, 1, l)});
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, {mask_det(1, l, 0.9)}, segm_params()).stats[0], 1.0);
  // The box as the detection's mask: IoU 28 / 64 < 0.5, no match.
  const mask::Rle box = rect(0, 0, 8, 8);
  EXPECT_DOUBLE_EQ(mask::iou(box, l, false), 28.0 / 64.0);
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, {mask_det(1, box, 0.9)}, segm_params()).stats[0], 0.0);
  // The same as boxes: identical boxes, AP 1.
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, {mask_det(1, box, 0.9)}).stats[0], 1.0);
}

TEST(CocoSegmEvalRules, CrowdRegionAbsorbsDetections) {
  // A regular object and a crowd region; two detections inside the crowd
  // (IoU against the crowd = |d & crowd| / |d| = 1) are ignored, not false.
  const auto gt = mask_ground_truth({mask_gt(1, 1, rect(0, 0, 3, 3)), mask_gt(2, 1, rect(5, 0, 10, 10), true)});
  const auto dets = {mask_det(1, rect(6, 1, 8, 3), 0.95), mask_det(1, rect(6, 5, 9, 9), 0.9),
                     mask_det(1, rect(0, 0, 3, 3), 0.5)};
  const CocoEvalResult r = coco_evaluate(gt, dets, segm_params());
  EXPECT_DOUBLE_EQ(r.stats[0], 1.0);
  EXPECT_DOUBLE_EQ(r.stats[8], 1.0);
  // Half outside the crowd: IoU 0.5 with it, so ignored at 0.50 only and a
  // false positive above (AP@0.5 stays 1, AP@[.5:.95] drops).
  const CocoEvalResult r2 =
      coco_evaluate(gt, {mask_det(1, rect(3, 5, 7, 7), 0.95), mask_det(1, rect(0, 0, 3, 3), 0.5)}, segm_params());
  EXPECT_DOUBLE_EQ(r2.stats[1], 1.0);
  EXPECT_LT(r2.stats[0], 1.0);
}

TEST(CocoSegmEvalRules, OverlappingMasksAndEmptyMasks) {
  // Two overlapping objects; each detection overlaps both, the greedy match
  // takes the higher IoU; an empty mask detection scores above them and is a
  // false positive (IoU 0 with everything, area 0: in the "small" range).
  const mask::Rle a = rect(0, 0, 6, 6), b = rect(3, 3, 9, 9);
  const auto gt = mask_ground_truth({mask_gt(1, 1, a), mask_gt(2, 1, b)});
  const mask::Rle da = rect(0, 0, 6, 5), db = rect(3, 4, 9, 9);  // IoU 30/36 with a, 30/36 with b
  EXPECT_NEAR(mask::iou(da, a, false), 30.0 / 36.0, 1e-15);
  EXPECT_NEAR(mask::iou(da, b, false), 6.0 / 60.0, 1e-15);
  const CocoEvalResult r = coco_evaluate(gt, {mask_det(1, da, 0.8), mask_det(1, db, 0.7)}, segm_params());
  EXPECT_DOUBLE_EQ(r.stats[1], 1.0);
  const mask::Rle empty = rect(0, 0, 0, 0);
  const CocoEvalResult r2 =
      coco_evaluate(gt, {mask_det(1, empty, 0.99), mask_det(1, da, 0.8), mask_det(1, db, 0.7)}, segm_params());
  // At 0.5: precision 1/2 at recall 0.5, 2/3 at recall 1: the envelope is 2/3 throughout.
  EXPECT_NEAR(r2.stats[1], 2.0 / 3.0, 1e-12);
  // An empty ground-truth mask matches nothing.
  const auto gt_empty = mask_ground_truth({mask_gt(1, 1, empty)});
  EXPECT_DOUBLE_EQ(coco_evaluate(gt_empty, {mask_det(1, empty, 0.9)}, segm_params()).stats[1], 0.0);
}

TEST(CocoSegmEvalRules, PolygonsAndBoxOnlyResults) {
  // Ground truth as a polygon in the JSON, rasterized at the image's size; a
  // result without a mask is evaluated as its box polygon (loadRes).
  const auto gt = CocoGroundTruth::from_json_text(R"({
    "images": [{"id": 1, "height": 10, "width": 12}], "categories": [{"id": 1}],
    "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [2, 2, 4, 3], "area": 12,
                     "segmentation": [[2, 2, 6, 2, 6, 5, 2, 5]]}]})");
  ASSERT_TRUE(gt.annotations[0].has_segmentation);
  EXPECT_EQ(gt.annotations[0].segmentation, rect(2, 2, 6, 5, 10, 12));
  EXPECT_EQ(gt.image_sizes, (std::vector<std::array<int64_t, 2>>{{10, 12}}));
  const auto dets = coco_results_from_json_text(R"([{"image_id": 1, "category_id": 1, "bbox": [2, 2, 4, 3], "score": 1}])");
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, dets, segm_params()).stats[0], 1.0);
  // A results file of RLEs: bbox and area from the mask.
  const auto rle_dets = coco_results_from_json_text(
      "[{\"image_id\": 1, \"category_id\": 1, \"score\": 1, \"segmentation\": {\"size\": [10, 12], \"counts\": \"" +
      mask::to_string(rect(2, 2, 6, 5, 10, 12)) + "\"}}]");
  ASSERT_EQ(rle_dets.size(), 1u);
  EXPECT_EQ(rle_dets[0].bbox, (std::array<double, 4>{2, 2, 4, 3}));
  EXPECT_DOUBLE_EQ(rle_dets[0].area, 12);
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, rle_dets, segm_params()).stats[0], 1.0);
}

TEST(CocoSegmEvalRules, Errors) {
  CocoGroundTruth gt = mask_ground_truth({mask_gt(1, 1, rect(0, 0, 3, 3))});
  CocoEvalParams p = segm_params();
  p.iou_type = "keypoints";
  EXPECT_THROW(coco_evaluate(gt, {}, p), Error);
  // A mask of another size than the image's.
  EXPECT_THROW(coco_evaluate(gt, {mask_det(1, rect(0, 0, 3, 3, 8, 8), 0.5)}, segm_params()), Error);
  // Ground truth without a segmentation.
  gt.annotations[0].has_segmentation = false;
  EXPECT_THROW(coco_evaluate(gt, {mask_det(1, rect(0, 0, 3, 3), 0.5)}, segm_params()), Error);
  // Polygons of an image without a size: fine for boxes, an error for masks.
  const auto no_size = CocoGroundTruth::from_json_text(R"({"images": [{"id": 1}], "categories": [{"id": 1}],
    "annotations": [{"id": 4, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2],
                     "segmentation": [[0, 0, 2, 0, 2, 2, 0, 2]]}]})");
  EXPECT_FALSE(no_size.annotations[0].has_segmentation);
  const std::vector<CocoDetectionResult> box_dets{{1, 1, {0, 0, 2, 2}, 0.5}};
  EXPECT_DOUBLE_EQ(coco_evaluate(no_size, box_dets).stats[0], 1.0);
  try {
    coco_evaluate(no_size, box_dets, segm_params());
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("annotation 4 (image 1) has none"), std::string::npos) << e.what();
  }
  EXPECT_THROW(coco_results_from_json_text(
                   R"([{"image_id": 1, "category_id": 1, "score": 1, "segmentation": [[0, 0, 1, 0, 1, 1]]}])"),
               Error);
}

// A ground truth of images 1..n_images and categories 1..n_cats.
CocoGroundTruth make_gt(int64_t n_images, int64_t n_cats, std::vector<CocoGroundTruthBox> anns) {
  CocoGroundTruth gt;
  for (int64_t i = 1; i <= n_images; ++i) gt.image_ids.push_back(i);
  for (int64_t c = 1; c <= n_cats; ++c) gt.category_ids.push_back(c);
  int64_t id = 1;
  for (auto& a : anns) {
    a.id = id++;
    if (a.area == 0) a.area = a.bbox[2] * a.bbox[3];
  }
  gt.annotations = std::move(anns);
  return gt;
}

CocoGroundTruthBox box(int64_t image, int64_t cat, std::array<double, 4> xywh, bool crowd = false,
                       double area = 0) {
  return {0, image, cat, xywh, area, crowd};
}

TEST(CocoEvalRules, PerfectDetectionScoresOne) {
  const auto gt = make_gt(1, 1, {box(1, 1, {10, 10, 50, 40})});
  const auto r = coco_evaluate(gt, {{1, 1, {10, 10, 50, 40}, 0.9}});
  EXPECT_DOUBLE_EQ(r.stats[0], 1.0);
  EXPECT_DOUBLE_EQ(r.stats[1], 1.0);
  EXPECT_DOUBLE_EQ(r.stats[8], 1.0);
  // A 50 x 40 box is medium: small and large have no ground truth.
  EXPECT_DOUBLE_EQ(r.stats[3], -1.0);
  EXPECT_DOUBLE_EQ(r.stats[4], 1.0);
  EXPECT_DOUBLE_EQ(r.stats[5], -1.0);
}

// IoU exactly 0.5 (a half-height box) matches at 0.50 only: one threshold of ten.
TEST(CocoEvalRules, IouEqualToThresholdMatches) {
  const auto gt = make_gt(1, 1, {box(1, 1, {0, 0, 10, 10})});
  const auto r = coco_evaluate(gt, {{1, 1, {0, 0, 10, 5}, 0.8}});
  EXPECT_DOUBLE_EQ(r.stats[1], 1.0);   // AP50
  EXPECT_DOUBLE_EQ(r.stats[2], 0.0);   // AP75
  EXPECT_DOUBLE_EQ(r.stats[0], 0.1);   // mean over ten thresholds
  EXPECT_DOUBLE_EQ(r.stats[8], 0.1);
}

// Equal scores keep result-file order (numpy's stable mergesort): a false
// positive listed first halves the precision; listed second, it comes after
// full recall and costs nothing.
TEST(CocoEvalRules, ScoreTiesKeepFileOrder) {
  const auto gt = make_gt(1, 1, {box(1, 1, {0, 0, 20, 20})});
  const CocoDetectionResult hit{1, 1, {0, 0, 20, 20}, 0.5};
  const CocoDetectionResult miss{1, 1, {50, 50, 20, 20}, 0.5};
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, {miss, hit}).stats[0], 0.5);
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, {hit, miss}).stats[0], 1.0);
}

// A detection on a crowd is ignored (neither true nor false positive), and a
// crowd absorbs any number of them; IoU with a crowd is the overlap over the
// detection's own area.
TEST(CocoEvalRules, CrowdsAbsorbDetections) {
  const auto gt = make_gt(1, 1, {box(1, 1, {0, 0, 100, 100}, /*crowd=*/true), box(1, 1, {200, 200, 40, 40})});
  // Three small detections inside the crowd (IoU 1 by the crowd rule) score
  // above the true positive: without the rule precision would be 1/4.
  std::vector<CocoDetectionResult> dets = {
      {1, 1, {10, 10, 10, 10}, 0.9}, {1, 1, {30, 30, 10, 10}, 0.85}, {1, 1, {60, 60, 10, 10}, 0.8},
      {1, 1, {200, 200, 40, 40}, 0.7}};
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, dets).stats[0], 1.0);
  // Only a crowd: nothing to find, -1 everywhere.
  const auto crowd_only = make_gt(1, 1, {box(1, 1, {0, 0, 100, 100}, true)});
  EXPECT_DOUBLE_EQ(coco_evaluate(crowd_only, dets).stats[0], -1.0);
}

// A regular ground truth is matched once: a duplicate is a false positive.
TEST(CocoEvalRules, DuplicateIsFalsePositive) {
  const auto gt = make_gt(1, 1, {box(1, 1, {0, 0, 20, 20})});
  const CocoDetectionResult a{1, 1, {0, 0, 20, 20}, 0.9};
  const CocoDetectionResult b{1, 1, {1, 0, 20, 20}, 0.8};
  const auto r = coco_evaluate(gt, {a, b});
  EXPECT_DOUBLE_EQ(r.stats[0], 1.0);  // the duplicate comes after full recall
  // Precision of the second detection's prefix, read off the curve at recall 1:
  // the envelope keeps 1.
  EXPECT_DOUBLE_EQ(r.precision.index({0, 100, 0, 0, 2}).item<double>(), 1.0);
}

// The area range is decided by the record's "area" (a segmentation's), not
// by the box; an unmatched detection outside the range is ignored there.
TEST(CocoEvalRules, AreaRangesUseAnnotationArea) {
  // A 100 x 100 box whose "area" is 500: small.
  const auto gt = make_gt(1, 1, {box(1, 1, {0, 0, 100, 100}, false, 500)});
  const auto r = coco_evaluate(gt, {{1, 1, {0, 0, 100, 100}, 0.9}, {1, 1, {300, 300, 100, 100}, 0.95}});
  // small: one true positive; the large false positive is outside the range: ignored.
  EXPECT_DOUBLE_EQ(r.stats[3], 1.0);
  EXPECT_DOUBLE_EQ(r.stats[5], -1.0);
  // all: the false positive ranks first, so precision at every recall is 1/2.
  EXPECT_DOUBLE_EQ(r.stats[0], 0.5);
}

// maxDets cuts each image's detections by score; AR@1 sees only the best.
TEST(CocoEvalRules, MaxDetsCutsPerImage) {
  const auto gt = make_gt(1, 1, {box(1, 1, {0, 0, 20, 20}), box(1, 1, {100, 100, 20, 20})});
  const auto r = coco_evaluate(gt, {{1, 1, {0, 0, 20, 20}, 0.6}, {1, 1, {100, 100, 20, 20}, 0.9}});
  EXPECT_DOUBLE_EQ(r.stats[6], 0.5);  // AR@1
  EXPECT_DOUBLE_EQ(r.stats[7], 1.0);  // AR@10
}

// Categories without ground truth are -1 and left out of the means; images
// without ground truth still count their false positives.
TEST(CocoEvalRules, EmptyCategoriesAndImages) {
  const auto gt = make_gt(2, 2, {box(1, 1, {0, 0, 20, 20})});
  const auto r = coco_evaluate(gt, {{1, 1, {0, 0, 20, 20}, 0.5}, {2, 1, {0, 0, 20, 20}, 0.9},
                                    {1, 2, {0, 0, 20, 20}, 0.9}});
  EXPECT_DOUBLE_EQ(r.precision.index({0, 0, 1, 0, 2}).item<double>(), -1.0);
  EXPECT_DOUBLE_EQ(r.recall.index({0, 1, 0, 2}).item<double>(), -1.0);
  // Category 1: the false positive on image 2 ranks first: precision 1/2.
  EXPECT_DOUBLE_EQ(r.stats[0], 0.5);
  // No ground truth at all: every stat is -1, printed as pycocotools does.
  const auto none = coco_evaluate(make_gt(1, 1, {}), {});
  for (double s : none.stats) EXPECT_DOUBLE_EQ(s, -1.0);
  EXPECT_NE(none.summary().find("maxDets=100 ] = -1.000"), std::string::npos) << none.summary();
}

// An annotation of an image the file does not list is never evaluated.
TEST(CocoEvalRules, AnnotationsOfUnlistedImagesIgnored) {
  auto gt = make_gt(1, 1, {box(1, 1, {0, 0, 20, 20}), box(5, 1, {0, 0, 20, 20})});
  EXPECT_DOUBLE_EQ(coco_evaluate(gt, {{1, 1, {0, 0, 20, 20}, 0.5}}).stats[8], 1.0);
}

TEST(CocoEvalRules, SummaryLayout) {
  const auto gt = make_gt(1, 1, {box(1, 1, {10, 10, 50, 40})});
  const std::string s = coco_evaluate(gt, {{1, 1, {10, 10, 50, 40}, 0.9}}).summary();
  EXPECT_EQ(s.substr(0, s.find('\n')),
            " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 1.000");
  EXPECT_NE(s.find(" Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000"),
            std::string::npos);
}

TEST(CocoEvaluator, UpdateConvertsXyxyModelOutputs) {
  const auto gt = make_gt(2, 2, {box(1, 1, {10, 10, 50, 40}), box(2, 2, {0, 0, 30, 30})});
  CocoEvaluator ev(gt);
  ev.update(1, tensor<float>({{10, 10, 60, 50}}), tensor<float>({0.9f}), tensor<int64_t>({1}));
  ev.update(2, tensor<float>({{0, 0, 30, 30}, {5, 5, 9, 9}}), tensor<float>({0.8f, 0.1f}),
            tensor<int64_t>({2, 2}));
  ASSERT_EQ(ev.detections().size(), 3u);
  EXPECT_DOUBLE_EQ(ev.detections()[0].bbox[2], 50.0);
  EXPECT_DOUBLE_EQ(ev.evaluate().stats[0], 1.0);
  expect_error([&] { ev.update(1, zeros({2, 4}), zeros({3}), zeros({2}, kInt64)); }, "scores and labels");
  expect_error([&] { ev.update(1, zeros({2, 5}), zeros({2}), zeros({2}, kInt64)); }, "boxes must be [N, 4]");
}

TEST(CocoEvalErrors, BadInputs) {
  const auto gt = make_gt(1, 1, {box(1, 1, {0, 0, 20, 20})});
  expect_error([&] { coco_evaluate(gt, {{7, 1, {0, 0, 1, 1}, 0.5}}); }, "image_id 7");
  expect_error([] { coco_results_from_json_text(R"([{"image_id": 1, "bbox": [0, 0, 1, 1], "score": 1}])"); },
               "no \"category_id\"");
  expect_error([] { coco_results_from_json_text(R"([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1], "score": 1}])"); },
               "bbox of 3 numbers");
  expect_error([] { CocoGroundTruth::from_json_text(R"({"images": [], "annotations": []})"); }, "categories");
  expect_error([] { CocoGroundTruth::from_json("/nonexistent/instances.json"); }, "instances.json");
  CocoEvalParams p;
  p.max_dets = {};
  expect_error([&] { coco_evaluate(gt, {}, p); }, "max_dets is empty");
}

TEST(CocoEvalJson, ReadsInstancesFile) {
  const auto gt = CocoGroundTruth::from_json_text(R"({
    "images": [{"id": 3, "file_name": "a.jpg"}, {"id": 1, "file_name": "b.jpg"}],
    "categories": [{"id": 5, "name": "x"}],
    "annotations": [{"id": 9, "image_id": 3, "category_id": 5, "bbox": [1, 2, 3, 4], "iscrowd": 1,
                     "segmentation": {"counts": "538", "size": [4, 4]}},
                    {"id": 10, "image_id": 1, "category_id": 5, "bbox": [0, 0, 2, 2], "area": 3.5}]})");
  ASSERT_EQ(gt.annotations.size(), 2u);
  EXPECT_EQ(gt.image_ids, (std::vector<int64_t>{3, 1}));
  EXPECT_TRUE(gt.annotations[0].iscrowd);
  EXPECT_DOUBLE_EQ(gt.annotations[0].area, 12.0);  // no "area": w * h
  EXPECT_DOUBLE_EQ(gt.annotations[1].area, 3.5);
  // The compressed RLE is read (a malformed one is an error, even for bbox evaluation).
  EXPECT_TRUE(gt.annotations[0].has_segmentation);
  EXPECT_EQ(gt.annotations[0].segmentation.counts, (std::vector<uint32_t>{5, 3, 8}));
  EXPECT_FALSE(gt.annotations[1].has_segmentation);
  EXPECT_THROW(CocoGroundTruth::from_json_text(R"({"images": [{"id": 1}], "categories": [],
    "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1],
                     "segmentation": {"counts": "abc", "size": [4, 4]}}]})"), Error);
}

}  // namespace coco_eval_test
}  // namespace ember
