#pragma once
// torchvision.models.detection._utils.BoxCoder: boxes as offsets from
// reference boxes (the regression targets of R-CNN and RetinaNet heads).
//
//   detection::BoxCoder coder({1.0, 1.0, 1.0, 1.0});          // RetinaNet's weights
//   Tensor targets = coder.encode_single(matched_gt, anchors);  // [N, 4] dx, dy, dw, dh
//   Tensor boxes = coder.decode_single(regression, anchors);    // [N, 4] x1, y1, x2, y2
#include <array>
#include <cmath>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::models::detection {

// torchvision's encode_boxes: for boxes (x1, y1, x2, y2),
// (wx (gx - px) / pw, wy (gy - py) / ph, ww log(gw / pw), wh log(gh / ph))
// with (g*) the reference (ground-truth) boxes' centres and sizes and (p*)
// the proposals'. weights: a [4] tensor.
Tensor encode_boxes(const Tensor& reference_boxes, const Tensor& proposals, const Tensor& weights);

class BoxCoder {
 public:
  explicit BoxCoder(std::array<double, 4> weights, double bbox_xform_clip = std::log(1000.0 / 16));

  // Offsets of reference_boxes [N, 4] from proposals [N, 4], in the reference dtype.
  Tensor encode_single(const Tensor& reference_boxes, const Tensor& proposals) const;
  // Per image: one [N_i, 4] tensor of offsets.
  std::vector<Tensor> encode(const std::vector<Tensor>& reference_boxes, const std::vector<Tensor>& proposals) const;

  // Boxes from rel_codes [N, 4 * K] against boxes [N, 4]: [N, 4 * K]; dw and
  // dh are clamped to bbox_xform_clip before exp.
  Tensor decode_single(const Tensor& rel_codes, const Tensor& boxes) const;
  // boxes: one [N_i, 4] tensor per image; rel_codes: [sum N_i, ...] reshaped to
  // [sum N_i, 4 * K]. Returns [sum N_i, K, 4] (with no boxes: decode_single's [0, ...]).
  Tensor decode(const Tensor& rel_codes, const std::vector<Tensor>& boxes) const;

  const std::array<double, 4>& weights() const { return weights_; }
  double bbox_xform_clip() const { return bbox_xform_clip_; }

 private:
  std::array<double, 4> weights_;
  double bbox_xform_clip_;
};

}  // namespace ember::models::detection
