#pragma once
// torchvision.models.detection._utils.Matcher: assigns each prediction
// (anchor) the ground-truth box it overlaps best, or a negative code.
//
//   detection::Matcher matcher(0.5, 0.4, /*allow_low_quality_matches=*/true);  // RetinaNet's
//   Tensor matched = matcher(box_iou(gt_boxes, anchors));  // int64 [N]: gt index, -1 or -2
#include <cstdint>

#include <ember/core/tensor.h>

namespace ember::models::detection {

class Matcher {
 public:
  static constexpr int64_t BELOW_LOW_THRESHOLD = -1;
  static constexpr int64_t BETWEEN_THRESHOLDS = -2;

  // Quality >= high_threshold: a match; in [low, high): BETWEEN_THRESHOLDS;
  // below low: BELOW_LOW_THRESHOLD. allow_low_quality_matches: every
  // ground truth also keeps the predictions of its highest quality (ties
  // included) matched to their best ground truth, however low.
  Matcher(double high_threshold, double low_threshold, bool allow_low_quality_matches = false);

  // match_quality_matrix: [M ground truths, N predictions], floating point.
  // Returns int64 [N]. An empty matrix is an error (no ground truth, or no
  // predictions), as torchvision's.
  Tensor operator()(const Tensor& match_quality_matrix) const;

  double high_threshold() const { return high_threshold_; }
  double low_threshold() const { return low_threshold_; }
  bool allow_low_quality_matches() const { return allow_low_quality_matches_; }

 private:
  double high_threshold_;
  double low_threshold_;
  bool allow_low_quality_matches_;
};

}  // namespace ember::models::detection
