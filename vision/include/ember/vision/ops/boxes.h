#pragma once
// Box utilities of torchvision.ops (boxes.py and the IoU losses), same names
// and semantics. Boxes are [N, 4] in (x1, y1, x2, y2) unless a format says
// otherwise; torchvision expects 0 <= x1 < x2 and 0 <= y1 < y2 but computes
// with any values (a box with x2 < x1 has a negative area), and so does Ember.
// Every function is a composition of differentiable tensor ops, as in
// torchvision, so gradients flow wherever torchvision's do.
//
//   Tensor iou = vision::ops::box_iou(pred, gt);                         // [N, M]
//   Tensor loss = vision::ops::generalized_box_iou_loss(pred, gt, "mean");
//   Tensor xywh = vision::ops::box_convert(boxes, "xyxy", "xywh");
#include <array>
#include <cstdint>
#include <string>

#include <ember/core/tensor.h>

namespace ember::vision::ops {

// (x2 - x1) * (y2 - y1) per box: [N]. Integer boxes compute in int32/int64,
// float16/bfloat16 in float32 (torchvision's _upcast).
Tensor box_area(const Tensor& boxes);

// Converts between "xyxy" (corners), "xywh" (top-left corner, width, height)
// and "cxcywh" (centre, width, height). boxes [..., 4]; the same format in and
// out returns a copy.
Tensor box_convert(const Tensor& boxes, const std::string& in_fmt, const std::string& out_fmt);

// Pairwise IoU of boxes1 [N, 4] and boxes2 [M, 4]: [N, M].
Tensor box_iou(const Tensor& boxes1, const Tensor& boxes2);
// IoU - (C - union) / C with C the area of the smallest enclosing box.
Tensor generalized_box_iou(const Tensor& boxes1, const Tensor& boxes2);
// IoU - d^2 / (c^2 + eps): d the distance of the centres, c the enclosing box's diagonal.
Tensor distance_box_iou(const Tensor& boxes1, const Tensor& boxes2, double eps = 1e-7);
// DIoU - alpha * v, v = 4 / pi^2 (atan(w1 / h1) - atan(w2 / h2))^2 and
// alpha = v / (1 - IoU + v + eps) treated as a constant (no gradient), as torchvision.
Tensor complete_box_iou(const Tensor& boxes1, const Tensor& boxes2, double eps = 1e-7);

// Losses of paired boxes (boxes1 [..., 4] and boxes2 [..., 4] of one shape):
// 1 - GIoU / DIoU / CIoU per pair, with eps in the denominators as
// torchvision's. reduction: "none" (per pair), "mean" (0 for no pairs, still
// connected to the graph) or "sum". Integer and float16 boxes compute in float32.
Tensor generalized_box_iou_loss(const Tensor& boxes1, const Tensor& boxes2, const std::string& reduction = "none",
                                double eps = 1e-7);
Tensor distance_box_iou_loss(const Tensor& boxes1, const Tensor& boxes2, const std::string& reduction = "none",
                             double eps = 1e-7);
// eps applies to alpha's denominator and the IoU; the DIoU part uses
// torchvision's default 1e-7 whatever eps is (as complete_box_iou_loss in 0.14).
Tensor complete_box_iou_loss(const Tensor& boxes1, const Tensor& boxes2, const std::string& reduction = "none",
                             double eps = 1e-7);

// Clamps x to [0, width] and y to [0, height]; boxes [..., 4], size {height, width}.
Tensor clip_boxes_to_image(const Tensor& boxes, std::array<int64_t, 2> size);

// Indices (int64, ascending) of the boxes whose width and height are both >= min_size.
Tensor remove_small_boxes(const Tensor& boxes, double min_size);

// The bounding box (x_min, y_min, x_max, y_max of the non-zero pixels, float32)
// of each mask of masks [N, H, W]: [N, 4]; no masks gives [0, 4]. An empty
// mask is an ember::Error (torchvision fails on it too).
Tensor masks_to_boxes(const Tensor& masks);

}  // namespace ember::vision::ops
