// vision::detection::coco_evaluate with iouType "keypoints": pycocotools'
// computeOks / setKpParams / _summarizeKps against the numpy reimplementation
// in scripts/fixtures/vision_coco_eval.py (cases kp_*: random people with
// occluded and unlabeled keypoints, num_keypoints 0, crowds, images without
// ground truth, more than maxDets detections, results with and without boxes),
// and hand-computed cases that pin OKS and the ignore rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <ember/ember.h>
#include <ember/vision/detection/coco_eval.h>

#include "npy.h"

namespace ember {
namespace coco_eval_keypoints_test {

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

class CocoKeypointsEvalFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CocoKeypointsEvalFixture, MatchesReferenceImplementation) {
  const std::string dir = fixture_path("vision/vision_coco_eval/") + GetParam();
  const CocoGroundTruth gt = CocoGroundTruth::from_json(dir + "_gt.json");
  const auto dets = load_coco_results(dir + "_dt.json");
  const CocoEvalResult r = coco_evaluate(gt, dets, CocoEvalParams("keypoints"));
  const Tensor precision = load_npy(dir + "_precision.npy");
  const Tensor recall = load_npy(dir + "_recall.npy");
  const Tensor stats = load_npy(dir + "_stats.npy");
  ASSERT_EQ(r.precision.sizes(), precision.sizes());  // [10, 101, K, 3, 1]
  ASSERT_EQ(r.recall.sizes(), recall.sizes());
  EXPECT_TRUE(allclose(r.precision, precision, 0, 1e-12));
  EXPECT_TRUE(allclose(r.recall, recall, 0, 1e-12));
  ASSERT_EQ(r.stats.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(r.stats[i], stats[i].item<double>(), 1e-12) << "stat " << i;
  EXPECT_EQ(r.summary(), read_text(dir + "_summary.txt"));
  // The last category has no ground truth: -1 throughout.
  EXPECT_TRUE((r.precision.select(2, r.precision.size(2) - 1) == -1).all().item<bool>());
}

INSTANTIATE_TEST_SUITE_P(Cases, CocoKeypointsEvalFixture, ::testing::Values("kp_small", "kp_crowded", "kp_boxes"));

// The box-free results through CocoEvaluator.update_keypoints ([N, K, 3]
// tensors, as Keypoint R-CNN's output): the same evaluation.
TEST(CocoKeypointsEval, UpdateKeypointsMatchesResultsFile) {
  const std::string dir = fixture_path("vision/vision_coco_eval/kp_small");
  const CocoGroundTruth gt = CocoGroundTruth::from_json(dir + "_gt.json");
  const auto dets = load_coco_results(dir + "_dt.json");
  CocoEvaluator ev(gt, CocoEvalParams("keypoints"));
  for (const auto& d : dets) {
    Tensor kp = empty({1, 17, 3}, kFloat64);
    for (int j = 0; j < 51; ++j) kp.data_ptr<double>()[j] = d.keypoints[j];
    ev.update_keypoints(d.image_id, kp, full({1}, d.score, kFloat64), full({1}, d.category_id, kInt64));
  }
  const CocoEvalResult r = ev.evaluate();
  const Tensor stats = load_npy(dir + "_stats.npy");
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(r.stats[i], stats[i].item<double>(), 1e-12) << "stat " << i;
}

TEST(CocoKeypointsEval, ParamsAreSetKpParams) {
  const CocoEvalParams p("keypoints");
  EXPECT_EQ(p.max_dets, std::vector<int64_t>{20});
  EXPECT_EQ(p.area_labels, (std::vector<std::string>{"all", "medium", "large"}));
  ASSERT_EQ(p.kpt_oks_sigmas.size(), 17u);
  EXPECT_DOUBLE_EQ(p.kpt_oks_sigmas[0], 0.026);
  EXPECT_DOUBLE_EQ(p.kpt_oks_sigmas[11], 0.107);
  // "bbox" and "segm" keep the default constructor's parameters.
  EXPECT_EQ(CocoEvalParams("segm").max_dets, (std::vector<int64_t>{1, 10, 100}));
}

// One person, 17 keypoints (x = 10 + j, y = 20 + 2j, v = 2), area 2000.
CocoGroundTruthBox person(int64_t id, int64_t image, double area = 2000, int64_t num_keypoints = 17,
                          bool crowd = false) {
  CocoGroundTruthBox a{id, image, 1, {5, 15, 40, 50}, area, crowd};
  for (int j = 0; j < 17; ++j) a.keypoints.insert(a.keypoints.end(), {10.0 + j, 20.0 + 2 * j, 2.0});
  a.num_keypoints = num_keypoints;
  return a;
}

CocoDetectionResult pose(int64_t image, const CocoGroundTruthBox& like, double score, double shift0 = 0) {
  CocoDetectionResult d{image, 1, {5, 15, 40, 50}, score};
  d.keypoints = like.keypoints;
  d.keypoints[0] += shift0;  // the nose moved along x
  return d;
}

CocoGroundTruth people(std::vector<CocoGroundTruthBox> anns, std::vector<int64_t> images = {1}) {
  CocoGroundTruth gt;
  gt.image_ids = std::move(images);
  gt.category_ids = {1};
  gt.annotations = std::move(anns);
  return gt;
}

TEST(CocoKeypointsRules, ExactPoseScoresOne) {
  const auto g = person(1, 1);
  const auto r = coco_evaluate(people({g}), {pose(1, g, 0.9)}, CocoEvalParams("keypoints"));
  for (int i : {0, 1, 2, 3, 5, 6, 7, 8}) EXPECT_DOUBLE_EQ(r.stats[i], 1.0) << "stat " << i;
  // Area 2000 is medium: large has no ground truth.
  EXPECT_DOUBLE_EQ(r.stats[4], -1.0);
  EXPECT_DOUBLE_EQ(r.stats[9], -1.0);
}

// Only the nose is labeled; moved by dx its OKS is exp(-dx^2 / (2 sigma)^2 /
// area / 2) with sigma 0.026. dx chosen for OKS 0.72: matched at 0.50 to
// 0.70, five thresholds of ten.
TEST(CocoKeypointsRules, OksOfOneLabeledKeypoint) {
  auto g = person(1, 1);
  for (int j = 1; j < 17; ++j) g.keypoints[3 * j + 2] = 0;
  g.num_keypoints = 1;
  const double var = (2 * 0.026) * (2 * 0.026);
  const double dx = std::sqrt(-std::log(0.72) * 2 * 2000 * var);
  auto d = pose(1, g, 0.9, dx);
  for (int j = 1; j < 17; ++j) d.keypoints[3 * j] += 100;  // unlabeled points do not count
  const auto r = coco_evaluate(people({g}), {d}, CocoEvalParams("keypoints"));
  EXPECT_DOUBLE_EQ(r.stats[0], 0.5);  // AP: thresholds 0.50..0.70 at precision 1
  EXPECT_DOUBLE_EQ(r.stats[1], 1.0);
  EXPECT_DOUBLE_EQ(r.stats[2], 0.0);
  EXPECT_DOUBLE_EQ(r.stats[5], 0.5);
}

// No keypoint labeled (but num_keypoints as given, 1): the distance outside
// the ground-truth box grown by its size on each side decides, so a pose
// anywhere in [x - w, x + 2w] x [y - h, y + 2h] scores OKS 1.
TEST(CocoKeypointsRules, UnlabeledGroundTruthUsesGrownBox) {
  auto g = person(1, 1, 2000, 1);
  for (int j = 0; j < 17; ++j) g.keypoints[3 * j + 2] = 0;
  CocoDetectionResult inside{1, 1, {0, 0, 1, 1}, 0.9};
  for (int j = 0; j < 17; ++j) inside.keypoints.insert(inside.keypoints.end(), {-30.0 + 5 * j, 110.0, 1.0});
  auto r = coco_evaluate(people({g}), {inside}, CocoEvalParams("keypoints"));
  EXPECT_DOUBLE_EQ(r.stats[0], 1.0);
  CocoDetectionResult outside = inside;
  for (int j = 0; j < 17; ++j) outside.keypoints[3 * j + 1] = 200;  // 85 past y + 2h = 115
  r = coco_evaluate(people({g}), {outside}, CocoEvalParams("keypoints"));
  EXPECT_DOUBLE_EQ(r.stats[1], 0.0);  // exp(-35^2 / var / 2000 / 2) ~ 0
}

// num_keypoints 0 ignores the ground truth as a crowd does: its matches are
// ignored, and without regular ground truth the category counts nowhere.
TEST(CocoKeypointsRules, NoKeypointsAndCrowdsAreIgnored) {
  const auto g = person(1, 1, 2000, 0);
  auto r = coco_evaluate(people({g}), {pose(1, g, 0.9)}, CocoEvalParams("keypoints"));
  EXPECT_DOUBLE_EQ(r.stats[0], -1.0);
  // With a regular person too: the detection on the ignored one is not a false positive.
  const auto regular = person(2, 1);
  auto far = regular;
  for (int j = 0; j < 17; ++j) far.keypoints[3 * j] += 300;
  const auto crowd = person(3, 1, 2000, 17, true);
  r = coco_evaluate(people({g, far, crowd}), {pose(1, g, 0.9), pose(1, far, 0.5), pose(1, crowd, 0.95)},
                    CocoEvalParams("keypoints"));
  EXPECT_DOUBLE_EQ(r.stats[0], 1.0);
}

// Detections on an image without ground truth are false positives: half the
// precision once the true one is found second.
TEST(CocoKeypointsRules, ImageWithoutAnnotations) {
  const auto g = person(1, 1);
  const auto r = coco_evaluate(people({g}, {1, 2}), {pose(2, g, 0.9), pose(1, g, 0.8)}, CocoEvalParams("keypoints"));
  EXPECT_NEAR(r.stats[1], 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(r.stats[6], 1.0);
}

TEST(CocoKeypointsRules, SummaryLayout) {
  const auto g = person(1, 1);
  const std::string s = coco_evaluate(people({g}), {pose(1, g, 0.9)}, CocoEvalParams("keypoints")).summary();
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 10);
  EXPECT_NE(s.find(" Average Recall     (AR) @[ IoU=0.75      | area=   all | maxDets= 20 ] = 1.000\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(" Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets= 20 ] = -1.000\n"),
            std::string::npos)
      << s;
}

TEST(CocoKeypointsJson, ReadsKeypointsAndResultAreas) {
  const auto gt = CocoGroundTruth::from_json_text(R"({
    "images": [{"id": 1}], "categories": [{"id": 1, "name": "person"}],
    "annotations": [
      {"id": 5, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 80,
       "keypoints": [1, 2, 2, 3, 4, 0], "num_keypoints": 1},
      {"id": 6, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "keypoints": [1, 2, 1, 3, 4, 2]}]})");
  ASSERT_EQ(gt.annotations.size(), 2u);
  EXPECT_EQ(gt.annotations[0].keypoints, (std::vector<double>{1, 2, 2, 3, 4, 0}));
  EXPECT_EQ(gt.annotations[0].num_keypoints, 1);
  EXPECT_EQ(gt.annotations[1].num_keypoints, 2);  // counted without the field
  const auto dets = coco_results_from_json_text(R"([
    {"image_id": 1, "category_id": 1, "keypoints": [1, 2, 1, 4, 8, 1, 2, 3, 1], "score": 0.5},
    {"image_id": 1, "category_id": 1, "keypoints": [1, 2, 1, 4, 8, 1, 2, 3, 1], "bbox": [0, 0, 2, 3], "score": 0.5}])");
  EXPECT_EQ(dets[0].bbox, (std::array<double, 4>{1, 2, 3, 6}));  // loadRes: the keypoints' box
  EXPECT_DOUBLE_EQ(dets[0].area, 18);
  EXPECT_EQ(dets[1].bbox, (std::array<double, 4>{0, 0, 2, 3}));
  EXPECT_EQ(dets[1].keypoints.size(), 9u);
}

TEST(CocoKeypointsErrors, BadInputs) {
  const auto g = person(1, 1);
  CocoDetectionResult short_pose = pose(1, g, 0.9);
  short_pose.keypoints.resize(30);
  expect_error([&] { coco_evaluate(people({g}), {short_pose}, CocoEvalParams("keypoints")); },
               "detection 0 (image 1) has 30 numbers");
  auto no_kp = g;
  no_kp.keypoints.clear();
  expect_error([&] { coco_evaluate(people({no_kp}), {}, CocoEvalParams("keypoints")); },
               "annotation 1 (image 1) has 0 numbers");
  CocoEvalParams p("keypoints");
  p.kpt_oks_sigmas[3] = 0;
  expect_error([&] { coco_evaluate(people({g}), {}, p); }, "kpt_oks_sigmas must be positive, got 0");
  CocoEvalParams bad;
  bad.iou_type = "pose";
  expect_error([&] { coco_evaluate(people({g}), {}, bad); }, "got \"pose\"");
  CocoEvaluator ev(people({g}), CocoEvalParams("keypoints"));
  expect_error([&] { ev.update_keypoints(1, zeros({2, 17, 4}), zeros({2}), zeros({2}, kInt64)); },
               "keypoints must be [N, K, 3] or [N, K, 2]");
  expect_error([&] { ev.update_keypoints(1, zeros({2, 17, 3}), zeros({3}), zeros({2}, kInt64)); },
               "scores and labels");
  expect_error([] { coco_results_from_json_text(R"([{"image_id": 1, "category_id": 1, "keypoints": [1, 2], "score": 1}])"); },
               "2 keypoint numbers");
}

}  // namespace coco_eval_keypoints_test
}  // namespace ember
