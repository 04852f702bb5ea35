#include "ember/models/detection/box_coder.h"

#include <ember/core/error.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>

namespace ember::models::detection {

namespace {

void check_boxes(const Tensor& boxes, const char* op, const char* name) {
  EMBER_CHECK(boxes.defined() && boxes.dim() == 2 && boxes.size(1) == 4, op, ": ", name,
              " should be a [N, 4] tensor of boxes, got ", boxes.defined() ? boxes.sizes() : IntArrayRef{});
  EMBER_CHECK(is_floating_point(boxes.dtype()), op, ": ", name, " must be floating point, got ", boxes.dtype());
}

// boxes[:, k].unsqueeze(1)
Tensor column(const Tensor& boxes, int64_t k) { return boxes.select(1, k).unsqueeze(1); }

}  // namespace

Tensor encode_boxes(const Tensor& reference_boxes, const Tensor& proposals, const Tensor& weights) {
  check_boxes(reference_boxes, "encode_boxes", "reference_boxes");
  check_boxes(proposals, "encode_boxes", "proposals");
  EMBER_CHECK(reference_boxes.size(0) == proposals.size(0), "encode_boxes: expected as many proposals as reference ",
              "boxes, got ", proposals.size(0), " and ", reference_boxes.size(0));
  EMBER_CHECK(weights.dim() == 1 && weights.size(0) == 4, "encode_boxes: weights must be [4], got ", weights.sizes());
  const Tensor wx = weights.select(0, 0), wy = weights.select(0, 1), ww = weights.select(0, 2),
               wh = weights.select(0, 3);
  const Tensor px1 = column(proposals, 0), py1 = column(proposals, 1), px2 = column(proposals, 2),
               py2 = column(proposals, 3);
  const Tensor gx1 = column(reference_boxes, 0), gy1 = column(reference_boxes, 1),
               gx2 = column(reference_boxes, 2), gy2 = column(reference_boxes, 3);
  const Tensor ex_widths = px2 - px1, ex_heights = py2 - py1;
  const Tensor ex_ctr_x = px1 + 0.5 * ex_widths, ex_ctr_y = py1 + 0.5 * ex_heights;
  const Tensor gt_widths = gx2 - gx1, gt_heights = gy2 - gy1;
  const Tensor gt_ctr_x = gx1 + 0.5 * gt_widths, gt_ctr_y = gy1 + 0.5 * gt_heights;
  const Tensor dx = wx * (gt_ctr_x - ex_ctr_x) / ex_widths;
  const Tensor dy = wy * (gt_ctr_y - ex_ctr_y) / ex_heights;
  const Tensor dw = ww * (gt_widths / ex_widths).log();
  const Tensor dh = wh * (gt_heights / ex_heights).log();
  return cat({dx, dy, dw, dh}, 1);
}

BoxCoder::BoxCoder(std::array<double, 4> weights, double bbox_xform_clip)
    : weights_(weights), bbox_xform_clip_(bbox_xform_clip) {
  for (double w : weights_) EMBER_CHECK(w != 0 && std::isfinite(w), "BoxCoder: weights must be finite and non-zero, got ", w);
}

Tensor BoxCoder::encode_single(const Tensor& reference_boxes, const Tensor& proposals) const {
  check_boxes(reference_boxes, "BoxCoder.encode_single", "reference_boxes");
  Tensor weights = tensor<double>({weights_[0], weights_[1], weights_[2], weights_[3]})
                       .to(TensorOptions(reference_boxes.dtype()).device(reference_boxes.device()));
  return encode_boxes(reference_boxes, proposals, weights);
}

std::vector<Tensor> BoxCoder::encode(const std::vector<Tensor>& reference_boxes,
                                     const std::vector<Tensor>& proposals) const {
  EMBER_CHECK(reference_boxes.size() == proposals.size(), "BoxCoder.encode: expected one proposal tensor per ",
              "reference tensor, got ", proposals.size(), " and ", reference_boxes.size());
  EMBER_CHECK(!reference_boxes.empty(), "BoxCoder.encode: no boxes given");
  std::vector<int64_t> per_image;
  for (size_t i = 0; i < reference_boxes.size(); ++i) {
    check_boxes(reference_boxes[i], "BoxCoder.encode", "reference_boxes");
    check_boxes(proposals[i], "BoxCoder.encode", "proposals");
    EMBER_CHECK(reference_boxes[i].size(0) == proposals[i].size(0), "BoxCoder.encode: image ", i, " has ",
                reference_boxes[i].size(0), " reference boxes and ", proposals[i].size(0), " proposals");
    per_image.push_back(reference_boxes[i].size(0));
  }
  return encode_single(cat(reference_boxes, 0), cat(proposals, 0)).split_with_sizes(per_image, 0);
}

Tensor BoxCoder::decode_single(const Tensor& rel_codes, const Tensor& boxes_in) const {
  check_boxes(boxes_in, "BoxCoder.decode_single", "boxes");
  EMBER_CHECK(rel_codes.dim() == 2 && rel_codes.size(1) % 4 == 0 && rel_codes.size(0) == boxes_in.size(0),
              "BoxCoder.decode_single: rel_codes should be [N, 4 * K] for ", boxes_in.size(0), " boxes, got ",
              rel_codes.sizes());
  EMBER_CHECK(is_floating_point(rel_codes.dtype()), "BoxCoder.decode_single: rel_codes must be floating point, got ",
              rel_codes.dtype());
  const Tensor boxes = boxes_in.to(rel_codes.dtype());
  const Tensor widths = boxes.select(1, 2) - boxes.select(1, 0);
  const Tensor heights = boxes.select(1, 3) - boxes.select(1, 1);
  const Tensor ctr_x = boxes.select(1, 0) + 0.5 * widths;
  const Tensor ctr_y = boxes.select(1, 1) + 0.5 * heights;
  const auto [wx, wy, ww, wh] = weights_;
  const Tensor dx = rel_codes.slice(1, 0, std::nullopt, 4) / wx;
  const Tensor dy = rel_codes.slice(1, 1, std::nullopt, 4) / wy;
  // Prevent sending too large values into exp.
  const Tensor dw = clamp(rel_codes.slice(1, 2, std::nullopt, 4) / ww, std::nullopt, bbox_xform_clip_);
  const Tensor dh = clamp(rel_codes.slice(1, 3, std::nullopt, 4) / wh, std::nullopt, bbox_xform_clip_);
  const Tensor pred_ctr_x = dx * widths.unsqueeze(1) + ctr_x.unsqueeze(1);
  const Tensor pred_ctr_y = dy * heights.unsqueeze(1) + ctr_y.unsqueeze(1);
  const Tensor pred_w = dw.exp() * widths.unsqueeze(1);
  const Tensor pred_h = dh.exp() * heights.unsqueeze(1);
  const Tensor c_to_c_h = 0.5 * pred_h;
  const Tensor c_to_c_w = 0.5 * pred_w;
  return stack({pred_ctr_x - c_to_c_w, pred_ctr_y - c_to_c_h, pred_ctr_x + c_to_c_w, pred_ctr_y + c_to_c_h}, 2)
      .flatten(1);
}

Tensor BoxCoder::decode(const Tensor& rel_codes, const std::vector<Tensor>& boxes) const {
  EMBER_CHECK(!boxes.empty(), "BoxCoder.decode: This function expects boxes of type list or tuple (got no tensors).");
  int64_t box_sum = 0;
  for (const Tensor& b : boxes) {
    check_boxes(b, "BoxCoder.decode", "boxes");
    box_sum += b.size(0);
  }
  Tensor codes = rel_codes;
  if (box_sum > 0) {
    EMBER_CHECK(rel_codes.numel() % (box_sum * 4) == 0, "BoxCoder.decode: rel_codes of shape ", rel_codes.sizes(),
                " do not hold 4 * K codes for each of the ", box_sum, " boxes");
    codes = rel_codes.reshape({box_sum, -1});
  }
  Tensor pred = decode_single(codes, cat(boxes, 0));
  return box_sum > 0 ? pred.reshape({box_sum, -1, 4}) : pred;
}

}  // namespace ember::models::detection
