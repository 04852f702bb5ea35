#pragma once
// Non-maximum suppression, as torchvision.ops.nms / batched_nms.
//
//   Tensor keep = vision::ops::nms(boxes, scores, 0.5);               // int64 indices
//   Tensor keep = vision::ops::batched_nms(boxes, scores, labels, 0.5);
#include <ember/core/tensor.h>

namespace ember::vision::ops {

// boxes [N, 4] (x1, y1, x2, y2) and scores [N], float32 or float64 (one dtype).
// Visits the boxes by decreasing score (a stable sort: equal scores in index
// order, as torchvision's CPU kernel) and drops every later box whose IoU with
// a kept one is > iou_threshold. Returns the kept indices, int64, by
// decreasing score; no boxes give an empty tensor.
Tensor nms(const Tensor& boxes, const Tensor& scores, double iou_threshold);

// nms within each category: idxs [N] (integer) gives each box's category;
// boxes of different categories never suppress each other. Computed as
// torchvision's coordinate trick: one nms over the boxes shifted by
// idx * (max coordinate + 1), so the categories cannot overlap.
Tensor batched_nms(const Tensor& boxes, const Tensor& scores, const Tensor& idxs, double iou_threshold);

}  // namespace ember::vision::ops
