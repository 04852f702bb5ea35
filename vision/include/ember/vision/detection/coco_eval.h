#pragma once
// COCO evaluation: pycocotools' COCOeval (iouType "bbox", "segm" and
// "keypoints") in C++,
// with its exact rules (Note [COCOeval's rules] in
// vision/src/detection/coco_eval.cpp; masks: <ember/vision/detection/coco_mask.h>).
//
//   auto gt = vision::detection::CocoGroundTruth::from_json("instances_val2017.json");
//   auto dets = vision::detection::load_coco_results("detections.json");
//   vision::detection::CocoEvalResult r = vision::detection::coco_evaluate(gt, dets);
//   std::cout << r.summary();   // the twelve lines COCOeval.summarize() prints
//   double map = r.stats[0];    // mAP@[.5:.95]; stats[1] AP50, stats[2] AP75, ...
//
// Or, during training, from a model's per-image outputs (boxes as x1, y1, x2, y2,
// as torchvision's references/detection/coco_eval.py converts them):
//
//   vision::detection::CocoEvaluator ev(gt);
//   ev.update(image_id, boxes_xyxy, scores, labels);
//   CocoEvalResult r = ev.evaluate();
//
// Masks (iouType "segm"): params.iou_type = "segm", and detections with a
// segmentation (ev.update_masks(image_id, masks, scores, labels), or a results
// file whose records carry "segmentation" RLEs).
//
// Keypoints (iouType "keypoints", OKS with COCO's 17 sigmas):
// CocoEvalParams("keypoints") (pycocotools' setKpParams: maxDets 20, area
// ranges all/medium/large, ten stats), ground truth with "keypoints" and
// "num_keypoints", detections with keypoints (ev.update_keypoints(image_id,
// keypoints [N, K, 3], scores, labels), or results records with "keypoints").
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/vision/detection/coco_mask.h>

namespace ember::vision::detection {

// One ground-truth annotation (an "annotations" record of an instances file).
struct CocoGroundTruthBox {
  int64_t id = 0;  // the annotation id (COCOeval records matches by id)
  int64_t image_id = 0;
  int64_t category_id = 0;
  std::array<double, 4> bbox{};  // x, y, width, height
  double area = 0;               // the record's "area": decides the area range
  bool iscrowd = false;
  // The "segmentation" as an RLE (polygons rasterized with the image's size,
  // several merged; RLEs as given); has_segmentation false without one.
  mask::Rle segmentation{};
  bool has_segmentation = false;
  // "keypoints": x, y, v per keypoint (v 0: not labeled, 1: labeled but not
  // visible, 2: visible); empty without. num_keypoints: the record's
  // "num_keypoints" (0 makes the annotation ignored in keypoints evaluation),
  // or, without the field, the count of keypoints with v > 0.
  std::vector<double> keypoints{};
  int64_t num_keypoints = 0;
};

// The ground truth of an evaluation: every image and category of the file
// (images without annotations and categories without any count: COCOeval's
// imgIds and catIds are all of them) and the annotations in file order.
struct CocoGroundTruth {
  std::vector<int64_t> image_ids;
  // (height, width) of each image of image_ids ({0, 0} when the record has none).
  std::vector<std::array<int64_t, 2>> image_sizes;
  std::vector<int64_t> category_ids;
  std::vector<CocoGroundTruthBox> annotations;

  // Reads an instances JSON (its "images", "categories" and "annotations";
  // an annotation without "area" gets width * height, without "iscrowd" 0;
  // "segmentation" polygons or RLEs, compressed or not, become RLEs).
  static CocoGroundTruth from_json(const std::string& path);
  static CocoGroundTruth from_json_text(const std::string& text);
};

// One detection (a record of a COCO results file).
struct CocoDetectionResult {
  int64_t image_id = 0;
  int64_t category_id = 0;
  std::array<double, 4> bbox{};  // x, y, width, height
  double score = 0;
  // A mask detection's RLE (segm evaluation); without one, segm evaluation
  // uses the box as a polygon, as pycocotools' loadRes.
  mask::Rle segmentation{};
  bool has_segmentation = false;
  // The area that decides its area range: width * height when negative (a
  // record with a "bbox"); a record with only a segmentation gets the mask's
  // area and its tight box, as loadRes; a keypoints record without a "bbox"
  // the area of its keypoints' tight box (loadRes).
  double area = -1;
  // A keypoint detection's x, y, v triples (keypoints evaluation; v unused).
  std::vector<double> keypoints{};
};

// A results JSON: a list of {"image_id", "category_id", "bbox", "score"}
// and/or "segmentation" (an RLE {"size": [h, w], "counts": string or list})
// and/or "keypoints" ([x0, y0, v0, x1, ...]).
std::vector<CocoDetectionResult> load_coco_results(const std::string& path);
std::vector<CocoDetectionResult> coco_results_from_json_text(const std::string& text);

// COCOeval.params, with its defaults.
struct CocoEvalParams {
  CocoEvalParams() = default;
  // pycocotools' Params(iouType): "bbox" and "segm" as the default
  // constructor; "keypoints" as setKpParams (max_dets {20}, area ranges all,
  // medium, large). Setting iou_type alone keeps the other fields as they are
  // (then keypoints' summary, at maxDets 20, reads -1 as pycocotools would).
  explicit CocoEvalParams(const std::string& type);
  // "bbox" (box IoU), "segm" (mask IoU on RLEs) or "keypoints" (object
  // keypoint similarity); pycocotools' iouType.
  std::string iou_type = "bbox";
  // Empty: all of the ground truth's, sorted (COCOeval's defaults).
  std::vector<int64_t> image_ids{};
  std::vector<int64_t> category_ids{};
  // Empty: np.linspace(.5, .95, 10) and np.linspace(0, 1, 101), as COCOeval computes them.
  std::vector<double> iou_thresholds{};
  std::vector<double> recall_thresholds{};
  std::vector<int64_t> max_dets{1, 10, 100};
  // [min, max] areas, labels "all", "small", "medium", "large".
  std::vector<std::array<double, 2>> area_ranges{
      {0.0, 1e10}, {0.0, 32.0 * 32.0}, {32.0 * 32.0, 96.0 * 96.0}, {96.0 * 96.0, 1e10}};
  std::vector<std::string> area_labels{"all", "small", "medium", "large"};
  // false: every category pooled as one (COCOeval's useCats = 0).
  bool use_cats = true;
  // keypoints: the per-keypoint OKS sigmas; empty: COCO's 17 (person) sigmas.
  std::vector<double> kpt_oks_sigmas{};
};

// COCO's person keypoint sigmas (pycocotools' kpt_oks_sigmas: nose, eyes,
// ears, shoulders, elbows, wrists, hips, knees, ankles).
const std::vector<double>& coco_keypoint_oks_sigmas();

// COCOeval.eval after accumulate(), and summarize()'s stats.
struct CocoEvalResult {
  CocoEvalParams params;  // with the defaults filled in
  // float64 [T, R, K, A, M]: the interpolated precision at each recall
  // threshold; -1 where a category has no ground truth in the area range.
  Tensor precision;
  // float64 [T, K, A, M]: the recall reached; -1 as precision.
  Tensor recall;
  // float64 [T, R, K, A, M]: the score at which each recall threshold is reached.
  Tensor scores;
  // summarize()'s numbers (-1 when nothing counts). bbox and segm, twelve:
  // AP, AP50, AP75, AP small/medium/large, AR@1, AR@10, AR@100, AR
  // small/medium/large. keypoints, ten (at maxDets 20): AP, AP50, AP75, AP
  // medium/large, AR, AR50, AR75, AR medium/large.
  std::vector<double> stats{};
  // summarize()'s text, one line per stat as pycocotools prints them.
  std::string summary() const;
};

// evaluate() + accumulate() + summarize() of pycocotools' COCOeval.
CocoEvalResult coco_evaluate(const CocoGroundTruth& ground_truth,
                             const std::vector<CocoDetectionResult>& detections,
                             const CocoEvalParams& params = {});

// Collects a detection model's per-image outputs for coco_evaluate.
class CocoEvaluator {
 public:
  explicit CocoEvaluator(CocoGroundTruth ground_truth, CocoEvalParams params = {});

  // boxes: [N, 4] x1, y1, x2, y2 (converted to COCO's x, y, width, height);
  // scores: [N]; labels: [N] category ids. image_id must be one of the ground truth's.
  void update(int64_t image_id, const Tensor& boxes, const Tensor& scores, const Tensor& labels);
  // masks: [N, H, W] or [N, 1, H, W] (a Mask R-CNN's output) at the image's
  // size, binarized as mask > threshold (torchvision's references: 0.5) and
  // encoded as RLEs, with their tight boxes; for iou_type "segm".
  void update_masks(int64_t image_id, const Tensor& masks, const Tensor& scores, const Tensor& labels,
                    double threshold = 0.5);
  // keypoints: [N, K, 3] (x, y, score or visibility, as Keypoint R-CNN's
  // output) or [N, K, 2]; written as results without a box (torchvision's
  // references), so each detection's area is its keypoints' tight box.
  void update_keypoints(int64_t image_id, const Tensor& keypoints, const Tensor& scores, const Tensor& labels);
  void add(const CocoDetectionResult& detection) { detections_.push_back(detection); }
  const std::vector<CocoDetectionResult>& detections() const { return detections_; }
  CocoEvalResult evaluate() const;

 private:
  CocoGroundTruth ground_truth_;
  CocoEvalParams params_;
  std::vector<CocoDetectionResult> detections_;
};

}  // namespace ember::vision::detection
