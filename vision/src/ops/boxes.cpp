// torchvision.ops box utilities and IoU losses as tensor-op compositions,
// written expression by expression after torchvision 0.14 (boxes.py,
// _utils.py, giou_loss.py, diou_loss.py, ciou_loss.py) so that values and
// gradients (including the subgradients of min/max at ties) are torchvision's.
#include "ember/vision/ops/boxes.h"

#include <numbers>
#include <vector>

#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/indexing.h>
#include <ember/ops/reduce.h>
#include <ember/ops/shape.h>

namespace ember::vision::ops {
namespace {

using indexing::None;
using indexing::Slice;

// torchvision's _upcast: float16/bfloat16 to float32, small integers to int32.
Tensor upcast(const Tensor& t) {
  if (is_floating_point(t.dtype())) return t.dtype() == kFloat32 || t.dtype() == kFloat64 ? t : t.to(kFloat32);
  return t.dtype() == kInt32 || t.dtype() == kInt64 ? t : t.to(kInt32);
}

// torchvision's _upcast_non_float: anything but float32/float64 to float32.
Tensor upcast_non_float(const Tensor& t) {
  return t.dtype() == kFloat32 || t.dtype() == kFloat64 ? t : t.to(kFloat32);
}

void check_boxes(const char* op, const char* name, const Tensor& boxes) {
  EMBER_CHECK(boxes.defined(), op, ": ", name, " is undefined");
  EMBER_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, op, ": ", name, " should be a [N, 4] tensor, got ",
              boxes.sizes());
}

void check_paired(const char* op, const Tensor& boxes1, const Tensor& boxes2) {
  EMBER_CHECK(boxes1.defined() && boxes2.defined(), op, ": boxes are undefined");
  EMBER_CHECK(boxes1.dim() >= 1 && boxes1.size(-1) == 4, op, ": boxes1 should be a [..., 4] tensor, got ",
              boxes1.sizes());
  EMBER_CHECK(boxes1.sizes() == boxes2.sizes(), op, ": boxes1 ", boxes1.sizes(), " and boxes2 ", boxes2.sizes(),
              " should have the same shape");
}

// (inter, union) of all pairs: torchvision's _box_inter_union.
std::pair<Tensor, Tensor> box_inter_union(const Tensor& boxes1, const Tensor& boxes2) {
  const Tensor area1 = box_area(boxes1), area2 = box_area(boxes2);
  const Tensor lt = maximum(boxes1.index({Slice(), None, Slice(None, 2)}), boxes2.index({Slice(), Slice(None, 2)}));
  const Tensor rb = minimum(boxes1.index({Slice(), None, Slice(2, None)}), boxes2.index({Slice(), Slice(2, None)}));
  const Tensor wh = upcast(rb - lt).clamp_min(0);
  const Tensor inter = wh.select(2, 0) * wh.select(2, 1);
  return {inter, area1.unsqueeze(1) + area2 - inter};
}

// The enclosing boxes' (width, height) of all pairs, [N, M, 2].
Tensor enclosing_wh(const Tensor& boxes1, const Tensor& boxes2) {
  const Tensor lti = minimum(boxes1.index({Slice(), None, Slice(None, 2)}), boxes2.index({Slice(), Slice(None, 2)}));
  const Tensor rbi = maximum(boxes1.index({Slice(), None, Slice(2, None)}), boxes2.index({Slice(), Slice(2, None)}));
  return upcast(rbi - lti).clamp_min(0);
}

// (DIoU, IoU) of all pairs: torchvision's _box_diou_iou.
std::pair<Tensor, Tensor> box_diou_iou(const Tensor& boxes1, const Tensor& boxes2, double eps) {
  const Tensor iou = box_iou(boxes1, boxes2);
  const Tensor whi = enclosing_wh(boxes1, boxes2);
  const Tensor diagonal_sq = whi.select(2, 0).pow(2) + whi.select(2, 1).pow(2) + eps;
  const Tensor x_p = (boxes1.select(1, 0) + boxes1.select(1, 2)) / 2;
  const Tensor y_p = (boxes1.select(1, 1) + boxes1.select(1, 3)) / 2;
  const Tensor x_g = (boxes2.select(1, 0) + boxes2.select(1, 2)) / 2;
  const Tensor y_g = (boxes2.select(1, 1) + boxes2.select(1, 3)) / 2;
  const Tensor centers_sq =
      upcast(x_p.unsqueeze(1) - x_g.unsqueeze(0)).pow(2) + upcast(y_p.unsqueeze(1) - y_g.unsqueeze(0)).pow(2);
  return {iou - centers_sq / diagonal_sq, iou};
}

// Per pair: torchvision's _loss_inter_union (the intersection is 0 unless
// both overlaps are positive; no gradient flows there).
std::pair<Tensor, Tensor> loss_inter_union(const std::vector<Tensor>& b1, const std::vector<Tensor>& b2) {
  const Tensor xkis1 = maximum(b1[0], b2[0]), ykis1 = maximum(b1[1], b2[1]);
  const Tensor xkis2 = minimum(b1[2], b2[2]), ykis2 = minimum(b1[3], b2[3]);
  const Tensor mask = ykis2.gt(ykis1).logical_and(xkis2.gt(xkis1));
  const Tensor inter = where(mask, (xkis2 - xkis1) * (ykis2 - ykis1), zeros_like(b1[0]));
  const Tensor uni = (b1[2] - b1[0]) * (b1[3] - b1[1]) + (b2[2] - b2[0]) * (b2[3] - b2[1]) - inter;
  return {inter, uni};
}

// (1 - DIoU, IoU) per pair: torchvision's _diou_iou_loss.
std::pair<Tensor, Tensor> diou_iou_loss(const std::vector<Tensor>& b1, const std::vector<Tensor>& b2, double eps) {
  const auto [inter, uni] = loss_inter_union(b1, b2);
  const Tensor iou = inter / (uni + eps);
  const Tensor xc1 = minimum(b1[0], b2[0]), yc1 = minimum(b1[1], b2[1]);
  const Tensor xc2 = maximum(b1[2], b2[2]), yc2 = maximum(b1[3], b2[3]);
  const Tensor diagonal_sq = (xc2 - xc1).pow(2) + (yc2 - yc1).pow(2) + eps;
  const Tensor x_p = (b1[2] + b1[0]) / 2, y_p = (b1[3] + b1[1]) / 2;
  const Tensor x_g = (b2[0] + b2[2]) / 2, y_g = (b2[1] + b2[3]) / 2;
  const Tensor centers_sq = (x_p - x_g).pow(2) + (y_p - y_g).pow(2);
  return {1 - iou + centers_sq / diagonal_sq, iou};
}

void check_reduction(const char* op, const std::string& reduction) {
  EMBER_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", op,
              ": reduction should be 'none', 'mean' or 'sum', got '", reduction, "'");
}

Tensor reduce_loss(const Tensor& loss, const std::string& reduction) {
  if (reduction == "mean") return loss.numel() > 0 ? loss.mean() : 0.0 * loss.sum();
  if (reduction == "sum") return loss.sum();
  return loss;
}

}  // namespace

Tensor box_area(const Tensor& boxes) {
  check_boxes("box_area", "boxes", boxes);
  const Tensor b = upcast(boxes);
  return (b.select(1, 2) - b.select(1, 0)) * (b.select(1, 3) - b.select(1, 1));
}

Tensor box_convert(const Tensor& boxes, const std::string& in_fmt, const std::string& out_fmt) {
  auto allowed = [](const std::string& f) { return f == "xyxy" || f == "xywh" || f == "cxcywh"; };
  EMBER_CHECK(allowed(in_fmt) && allowed(out_fmt),
              "box_convert: Unsupported Bounding Box Conversions for given in_fmt '", in_fmt, "' and out_fmt '",
              out_fmt, "' (allowed: xyxy, xywh, cxcywh)");
  EMBER_CHECK(boxes.defined(), "box_convert: boxes is undefined");
  EMBER_CHECK(boxes.dim() >= 1 && boxes.size(-1) == 4, "box_convert: boxes should be a [..., 4] tensor, got ",
              boxes.sizes());
  if (in_fmt == out_fmt) return boxes.clone();
  std::vector<Tensor> c = boxes.unbind(-1);
  // To corners first (torchvision's _box_xywh_to_xyxy / _box_cxcywh_to_xyxy).
  if (in_fmt == "xywh") {
    c = {c[0], c[1], c[0] + c[2], c[1] + c[3]};
  } else if (in_fmt == "cxcywh") {
    c = {c[0] - 0.5 * c[2], c[1] - 0.5 * c[3], c[0] + 0.5 * c[2], c[1] + 0.5 * c[3]};
  }
  if (out_fmt == "xywh") {
    c = {c[0], c[1], c[2] - c[0], c[3] - c[1]};
  } else if (out_fmt == "cxcywh") {
    c = {(c[0] + c[2]) / 2, (c[1] + c[3]) / 2, c[2] - c[0], c[3] - c[1]};
  }
  return stack(c, -1);
}

Tensor box_iou(const Tensor& boxes1, const Tensor& boxes2) {
  check_boxes("box_iou", "boxes1", boxes1);
  check_boxes("box_iou", "boxes2", boxes2);
  const auto [inter, uni] = box_inter_union(boxes1, boxes2);
  return inter / uni;
}

Tensor generalized_box_iou(const Tensor& boxes1, const Tensor& boxes2) {
  check_boxes("generalized_box_iou", "boxes1", boxes1);
  check_boxes("generalized_box_iou", "boxes2", boxes2);
  const auto [inter, uni] = box_inter_union(boxes1, boxes2);
  const Tensor iou = inter / uni;
  const Tensor whi = enclosing_wh(boxes1, boxes2);
  const Tensor areai = whi.select(2, 0) * whi.select(2, 1);
  return iou - (areai - uni) / areai;
}

Tensor distance_box_iou(const Tensor& boxes1, const Tensor& boxes2, double eps) {
  check_boxes("distance_box_iou", "boxes1", boxes1);
  check_boxes("distance_box_iou", "boxes2", boxes2);
  return box_diou_iou(upcast(boxes1), upcast(boxes2), eps).first;
}

Tensor complete_box_iou(const Tensor& boxes1, const Tensor& boxes2, double eps) {
  check_boxes("complete_box_iou", "boxes1", boxes1);
  check_boxes("complete_box_iou", "boxes2", boxes2);
  const Tensor b1 = upcast(boxes1), b2 = upcast(boxes2);
  const auto [diou, iou] = box_diou_iou(b1, b2, eps);
  const Tensor w_pred = b1.select(1, 2).unsqueeze(1) - b1.select(1, 0).unsqueeze(1);
  const Tensor h_pred = b1.select(1, 3).unsqueeze(1) - b1.select(1, 1).unsqueeze(1);
  const Tensor w_gt = b2.select(1, 2) - b2.select(1, 0);
  const Tensor h_gt = b2.select(1, 3) - b2.select(1, 1);
  const double k = 4 / (std::numbers::pi * std::numbers::pi);
  const Tensor v = k * ((w_pred / h_pred).atan() - (w_gt / h_gt).atan()).pow(2);
  Tensor alpha;
  {
    NoGradGuard no_grad;
    alpha = v / (1 - iou + v + eps);
  }
  return diou - alpha * v;
}

Tensor generalized_box_iou_loss(const Tensor& boxes1, const Tensor& boxes2, const std::string& reduction, double eps) {
  check_paired("generalized_box_iou_loss", boxes1, boxes2);
  check_reduction("generalized_box_iou_loss", reduction);
  const std::vector<Tensor> b1 = upcast_non_float(boxes1).unbind(-1), b2 = upcast_non_float(boxes2).unbind(-1);
  const auto [inter, uni] = loss_inter_union(b1, b2);
  const Tensor iou = inter / (uni + eps);
  const Tensor xc1 = minimum(b1[0], b2[0]), yc1 = minimum(b1[1], b2[1]);
  const Tensor xc2 = maximum(b1[2], b2[2]), yc2 = maximum(b1[3], b2[3]);
  const Tensor area_c = (xc2 - xc1) * (yc2 - yc1);
  const Tensor miou = iou - (area_c - uni) / (area_c + eps);
  return reduce_loss(1 - miou, reduction);
}

Tensor distance_box_iou_loss(const Tensor& boxes1, const Tensor& boxes2, const std::string& reduction, double eps) {
  check_paired("distance_box_iou_loss", boxes1, boxes2);
  check_reduction("distance_box_iou_loss", reduction);
  const std::vector<Tensor> b1 = upcast_non_float(boxes1).unbind(-1), b2 = upcast_non_float(boxes2).unbind(-1);
  return reduce_loss(diou_iou_loss(b1, b2, eps).first, reduction);
}

Tensor complete_box_iou_loss(const Tensor& boxes1, const Tensor& boxes2, const std::string& reduction, double eps) {
  check_paired("complete_box_iou_loss", boxes1, boxes2);
  check_reduction("complete_box_iou_loss", reduction);
  const std::vector<Tensor> b1 = upcast_non_float(boxes1).unbind(-1), b2 = upcast_non_float(boxes2).unbind(-1);
  const auto [diou_loss, iou] = diou_iou_loss(b1, b2, 1e-7);
  const Tensor w_pred = b1[2] - b1[0], h_pred = b1[3] - b1[1];
  const Tensor w_gt = b2[2] - b2[0], h_gt = b2[3] - b2[1];
  const double k = 4 / (std::numbers::pi * std::numbers::pi);
  const Tensor v = k * ((w_gt / h_gt).atan() - (w_pred / h_pred).atan()).pow(2);
  Tensor alpha;
  {
    NoGradGuard no_grad;
    alpha = v / (1 - iou + v + eps);
  }
  return reduce_loss(diou_loss + alpha * v, reduction);
}

Tensor clip_boxes_to_image(const Tensor& boxes, std::array<int64_t, 2> size) {
  EMBER_CHECK(boxes.defined(), "clip_boxes_to_image: boxes is undefined");
  EMBER_CHECK(boxes.dim() >= 1 && boxes.size(-1) == 4, "clip_boxes_to_image: boxes should be a [..., 4] tensor, got ",
              boxes.sizes());
  const int64_t dim = boxes.dim();
  const Tensor x = boxes.slice(-1, 0, std::nullopt, 2).clamp(0, size[1]);
  const Tensor y = boxes.slice(-1, 1, std::nullopt, 2).clamp(0, size[0]);
  return stack({x, y}, dim).reshape(boxes.sizes());
}

Tensor remove_small_boxes(const Tensor& boxes, double min_size) {
  check_boxes("remove_small_boxes", "boxes", boxes);
  const Tensor ws = boxes.select(1, 2) - boxes.select(1, 0), hs = boxes.select(1, 3) - boxes.select(1, 1);
  return where(ws.ge(min_size).logical_and(hs.ge(min_size)))[0];
}

Tensor masks_to_boxes(const Tensor& masks) {
  EMBER_CHECK(masks.defined(), "masks_to_boxes: masks is undefined");
  EMBER_CHECK(masks.dim() == 3, "masks_to_boxes: masks should be a [N, H, W] tensor, got ", masks.sizes());
  const int64_t n = masks.size(0);
  if (masks.numel() == 0) return zeros({0, 4}, TensorOptions().device(masks.device()).dtype(kFloat32));
  // Which rows and columns of each mask hold a non-zero pixel (computed where
  // the masks are; only these [N, H] and [N, W] flags come to the host).
  const Tensor nonzero = masks.ne(0);
  const Tensor rows = nonzero.any(2).to(kCPU).contiguous(), cols = nonzero.any(1).to(kCPU).contiguous();
  const int64_t h = masks.size(1), w = masks.size(2);
  Tensor out = empty({n, 4}, kFloat32);
  const bool* r = rows.data_ptr<bool>();
  const bool* c = cols.data_ptr<bool>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    int64_t y0 = 0, y1 = h - 1, x0 = 0, x1 = w - 1;
    while (y0 < h && !r[i * h + y0]) ++y0;
    EMBER_CHECK(y0 < h, "masks_to_boxes: mask ", i, " has no non-zero pixel, so it has no bounding box");
    while (!r[i * h + y1]) --y1;
    while (!c[i * w + x0]) ++x0;
    while (!c[i * w + x1]) --x1;
    o[i * 4 + 0] = static_cast<float>(x0);
    o[i * 4 + 1] = static_cast<float>(y0);
    o[i * 4 + 2] = static_cast<float>(x1);
    o[i * 4 + 3] = static_cast<float>(y1);
  }
  return out.to(masks.device());
}

}  // namespace ember::vision::ops
