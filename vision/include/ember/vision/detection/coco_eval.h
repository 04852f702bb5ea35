#pragma once
// COCO evaluation: pycocotools' COCOeval (iouType "bbox" and "segm") in C++,
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
  // area and its tight box, as loadRes.
  double area = -1;
};

// A results JSON: a list of {"image_id", "category_id", "bbox", "score"}
// and/or "segmentation" (an RLE {"size": [h, w], "counts": string or list}).
std::vector<CocoDetectionResult> load_coco_results(const std::string& path);
std::vector<CocoDetectionResult> coco_results_from_json_text(const std::string& text);

// COCOeval.params, with its defaults.
struct CocoEvalParams {
  // "bbox" (box IoU) or "segm" (mask IoU on RLEs); pycocotools' iouType.
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
};

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
  // summarize()'s twelve numbers: AP, AP50, AP75, AP small/medium/large,
  // AR@1, AR@10, AR@100, AR small/medium/large (-1 when nothing counts).
  std::array<double, 12> stats{};
  // summarize()'s text, twelve lines as pycocotools prints them.
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
  void add(const CocoDetectionResult& detection) { detections_.push_back(detection); }
  const std::vector<CocoDetectionResult>& detections() const { return detections_; }
  CocoEvalResult evaluate() const;

 private:
  CocoGroundTruth ground_truth_;
  CocoEvalParams params_;
  std::vector<CocoDetectionResult> detections_;
};

}  // namespace ember::vision::detection
