// nms and batched_nms: the checks (torchvision's messages) and the
// coordinate trick here; the suppression loop behind nms_slot
// (kernels/cpu/nms_kernels.cpp).
#include "ember/vision/ops/nms.h"

#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(nms_slot, NmsFn, "vision.nms");

}  // namespace ember::vision

namespace ember::vision::ops {
namespace {

void check_nms(const char* op, const Tensor& boxes, const Tensor& scores) {
  EMBER_CHECK(boxes.defined() && scores.defined(), op, ": boxes and scores must be defined");
  EMBER_CHECK(boxes.dim() == 2, op, ": boxes should be a 2d tensor, got ", boxes.dim(), "D");
  EMBER_CHECK(boxes.size(1) == 4, op, ": boxes should have 4 elements in dimension 1, got ", boxes.size(1));
  EMBER_CHECK(scores.dim() == 1, op, ": scores should be a 1d tensor, got ", scores.dim(), "D");
  EMBER_CHECK(boxes.size(0) == scores.size(0), op,
              ": boxes and scores should have same number of elements in dimension 0, got ", boxes.size(0), " and ",
              scores.size(0));
  EMBER_CHECK(boxes.dtype() == scores.dtype(), op, ": boxes (", boxes.dtype(), ") and scores (", scores.dtype(),
              ") should have the same dtype");
  EMBER_CHECK(boxes.device() == scores.device(), op, ": boxes (", boxes.device(), ") and scores (", scores.device(),
              ") should be on the same device");
}

}  // namespace

Tensor nms(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  check_nms("nms", boxes, scores);
  const Device device = boxes.device();
  if (boxes.size(0) == 0) return empty({0}, TensorOptions().dtype(kInt64).device(device));
  EMBER_CHECK(nms_slot.supports(device, boxes.dtype()), "nms: no kernel for ", boxes.dtype(), " boxes on ", device,
              " (float32 and float64 are supported)");
  return nms_slot(device)(boxes.contiguous(), scores.contiguous(), iou_threshold).to(device);
}

Tensor batched_nms(const Tensor& boxes, const Tensor& scores, const Tensor& idxs, double iou_threshold) {
  check_nms("batched_nms", boxes, scores);
  EMBER_CHECK(idxs.defined() && idxs.dim() == 1 && idxs.size(0) == boxes.size(0),
              "batched_nms: idxs should be a 1d tensor with one category per box (", boxes.size(0), "), got ",
              idxs.defined() ? idxs.sizes() : IntArrayRef{});
  if (boxes.numel() == 0) return empty({0}, TensorOptions().dtype(kInt64).device(boxes.device()));
  // Note [batched_nms coordinate trick]: shifting each category's boxes by
  // idx * (max coordinate + 1) puts the categories in disjoint regions, so
  // one nms never lets boxes of two categories suppress each other. The
  // arithmetic is torchvision's, in the boxes' dtype.
  const Tensor max_coordinate = boxes.max();
  const Tensor offsets = idxs.to(boxes.dtype()).to(boxes.device()) * (max_coordinate + 1);
  return nms(boxes + offsets.unsqueeze(1), scores, iou_threshold);
}

}  // namespace ember::vision::ops
