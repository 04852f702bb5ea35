// vision::ops box utilities, IoU losses and NMS against torchvision 0.14
// fixtures (scripts/fixtures/vision_detection_ops.py): values and gradients
// in float64, float32 runs, degenerate boxes (zero area, x2 < x1), empty
// inputs, float64 gradchecks and the errors of bad input.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/vision/ops.h>

#include "detection_fixtures.h"

namespace ember {
namespace detection_boxes_test {

namespace ops = vision::ops;
using autograd::variable_list;
using testing::det_npy;
using testing::expect_close;
using testing::expect_error;
using testing::grads_of;

Tensor zeros_if_undefined(const Tensor& g, const Tensor& like) {
  return g.defined() ? g : zeros_like(like);
}

TEST(DetectionBoxes, AreaMatchesTorchvision) {
  expect_close(ops::box_area(det_npy("boxes_b1")), det_npy("boxes_area"), 0, 0, "box_area");
  // Integer boxes compute in their integer dtype (int16 upcast to int32).
  const Tensor ib = tensor({1, 2, 4, 7, 0, 0, 3, 3}, kInt16).reshape({2, 4});
  const Tensor area = ops::box_area(ib);
  EXPECT_EQ(area.dtype(), kInt32);
  EXPECT_EQ(area[0].item<int64_t>(), 15);
  EXPECT_EQ(area[1].item<int64_t>(), 9);
}

// IoU, GIoU, DIoU and CIoU of all pairs, with the gradients of both box sets.
TEST(DetectionBoxes, PairwiseIousAndGradientsMatchTorchvision) {
  const Tensor b1 = det_npy("boxes_b1"), b2 = det_npy("boxes_b2");
  struct Case {
    const char* name;
    Tensor (*fn)(const Tensor&, const Tensor&);
  };
  const Case cases[] = {
      {"iou", [](const Tensor& a, const Tensor& b) { return ops::box_iou(a, b); }},
      {"giou", [](const Tensor& a, const Tensor& b) { return ops::generalized_box_iou(a, b); }},
      {"diou", [](const Tensor& a, const Tensor& b) { return ops::distance_box_iou(a, b); }},
      {"ciou", [](const Tensor& a, const Tensor& b) { return ops::complete_box_iou(a, b); }},
  };
  for (const Case& c : cases) {
    const std::string n = std::string("boxes_") + c.name;
    const Tensor x1 = b1.clone().requires_grad_(), x2 = b2.clone().requires_grad_();
    const Tensor out = c.fn(x1, x2);
    expect_close(out, det_npy(n + "_out"), 1e-12, 1e-12, n);
    const auto g = grads_of(out, det_npy(n + "_gout"), {x1, x2});
    expect_close(zeros_if_undefined(g[0], b1), det_npy(n + "_g1"), 1e-10, 1e-10, n + " grad boxes1");
    expect_close(zeros_if_undefined(g[1], b2), det_npy(n + "_g2"), 1e-10, 1e-10, n + " grad boxes2");
    // float32 boxes give float32 values close to the float64 ones.
    const Tensor out32 = c.fn(b1.to(kFloat32), b2.to(kFloat32));
    EXPECT_EQ(out32.dtype(), kFloat32);
    expect_close(out32, det_npy(n + "_out"), 1e-5, 1e-5, n + " float32");
  }
}

TEST(DetectionBoxes, IouLossesMatchTorchvision) {
  const Tensor p1 = det_npy("loss_p1"), p2 = det_npy("loss_p2");
  using LossFn = Tensor (*)(const Tensor&, const Tensor&, const std::string&, double);
  const std::pair<const char*, LossFn> cases[] = {
      {"giou", [](const Tensor& a, const Tensor& b, const std::string& r,
                  double e) { return ops::generalized_box_iou_loss(a, b, r, e); }},
      {"diou", [](const Tensor& a, const Tensor& b, const std::string& r,
                  double e) { return ops::distance_box_iou_loss(a, b, r, e); }},
      {"ciou", [](const Tensor& a, const Tensor& b, const std::string& r,
                  double e) { return ops::complete_box_iou_loss(a, b, r, e); }},
  };
  for (const auto& [name, fn] : cases) {
    const std::string n = std::string("loss_") + name;
    const Tensor x1 = p1.clone().requires_grad_(), x2 = p2.clone().requires_grad_();
    const Tensor out = fn(x1, x2, "none", 1e-7);
    expect_close(out, det_npy(n + "_out"), 1e-12, 1e-12, n);
    const auto g = grads_of(out, det_npy(n + "_gout"), {x1, x2});
    expect_close(g[0], det_npy(n + "_g1"), 1e-10, 1e-10, n + " grad boxes1");
    expect_close(g[1], det_npy(n + "_g2"), 1e-10, 1e-10, n + " grad boxes2");
    expect_close(fn(p1, p2, "mean", 1e-7), det_npy(n + "_mean"), 1e-12, 1e-12, n + " mean");
    expect_close(fn(p1, p2, "sum", 1e-7), det_npy(n + "_sum"), 1e-12, 1e-12, n + " sum");
    expect_close(fn(p1, p2, "none", 0.5), det_npy(n + "_eps"), 1e-12, 1e-12, n + " eps 0.5");
    // No pairs: "mean" is 0 and still connected to the graph, as torchvision's.
    const Tensor none = zeros({0, 4}, kFloat64).requires_grad_();
    const Tensor m = fn(none, zeros({0, 4}, kFloat64), "mean", 1e-7);
    EXPECT_EQ(m.item<double>(), 0.0);
    EXPECT_TRUE(m.requires_grad());
    // Integer boxes compute in float32.
    EXPECT_EQ(fn(p1.round().to(kInt64), p2.round().to(kInt64), "none", 1e-7).dtype(), kFloat32);
  }
}

TEST(DetectionBoxes, ConvertClipRemoveSmallAndMasksMatchTorchvision) {
  const Tensor b = det_npy("boxes_b2") + 0.25;
  for (const char* a : {"xyxy", "xywh", "cxcywh"})
    for (const char* c : {"xyxy", "xywh", "cxcywh"})
      expect_close(ops::box_convert(b, a, c), det_npy(std::string("convert_") + a + "_" + c), 1e-12, 0,
                   std::string("box_convert ") + a + " -> " + c);
  // Round trips, and a copy for the same format.
  expect_close(ops::box_convert(ops::box_convert(b, "xyxy", "cxcywh"), "cxcywh", "xyxy"), b, 1e-12, 0, "round trip");
  const Tensor same = ops::box_convert(b, "xywh", "xywh");
  EXPECT_FALSE(same.is_same(b));
  expect_close(ops::clip_boxes_to_image(det_npy("clip_in"), {20, 30}), det_npy("clip_out"), 0, 0, "clip");
  EXPECT_TRUE(ops::remove_small_boxes(det_npy("small_in"), 2.5).equal(det_npy("small_keep")));
  expect_close(ops::masks_to_boxes(det_npy("masks_in")), det_npy("masks_boxes"), 0, 0, "masks_to_boxes");
  EXPECT_EQ(ops::masks_to_boxes(zeros({0, 5, 6}, kUInt8)).sizes(), IntArrayRef({0, 4}));
  EXPECT_EQ(ops::box_iou(zeros({0, 4}), ones({3, 4})).sizes(), IntArrayRef({0, 3}));
}

TEST(DetectionBoxes, GradchecksInFloat64) {
  // Boxes in general position (no ties of min/max, no zero areas), where
  // every op is differentiable.
  Generator gen(5);
  auto boxes = [&](int64_t n) {
    const Tensor xy = rand({n, 2}, kFloat64, &gen) * 6;
    return cat({xy, xy + rand({n, 2}, kFloat64, &gen) * 4 + 0.5}, 1).requires_grad_();
  };
  const Tensor a = boxes(3), b = boxes(4), c = boxes(4);
  auto check = [](const char* what, const autograd::GradcheckFn& fn, const variable_list& in) {
    EXPECT_TRUE(autograd::gradcheck(fn, in)) << what;
  };
  check("box_iou", [](const variable_list& v) { return variable_list{ops::box_iou(v[0], v[1])}; }, {a, b});
  check("generalized_box_iou",
        [](const variable_list& v) { return variable_list{ops::generalized_box_iou(v[0], v[1])}; }, {a, b});
  check("distance_box_iou", [](const variable_list& v) { return variable_list{ops::distance_box_iou(v[0], v[1])}; },
        {a, b});
  check("generalized_box_iou_loss",
        [](const variable_list& v) { return variable_list{ops::generalized_box_iou_loss(v[0], v[1], "sum")}; }, {b, c});
  check("distance_box_iou_loss",
        [](const variable_list& v) { return variable_list{ops::distance_box_iou_loss(v[0], v[1], "mean")}; }, {b, c});
  check("box_convert", [](const variable_list& v) { return variable_list{ops::box_convert(v[0], "cxcywh", "xywh")}; },
        {a});
  check("clip_boxes_to_image",
        [](const variable_list& v) {
          return variable_list{ops::clip_boxes_to_image(v[0] * 2 - 3, {5, 6})};
        },
        {a});
  check("box_area", [](const variable_list& v) { return variable_list{ops::box_area(v[0])}; }, {a});
}

// CIoU's alpha is a constant for autograd (computed under no_grad, as
// torchvision): the analytic gradient is d(diou)/dx - alpha * dv/dx, which
// central differences of the whole function do not see. Check it against
// that formula with alpha frozen.
TEST(DetectionBoxes, CompleteIouTreatsAlphaAsConstant) {
  const Tensor p1 = det_npy("loss_p1").slice(0, 3), p2 = det_npy("loss_p2").slice(0, 3);
  const Tensor x = p1.clone().requires_grad_();
  const Tensor loss = ops::complete_box_iou_loss(x, p2, "sum");
  const Tensor g = autograd::grad({loss}, {x})[0];
  // The same loss with alpha passed in as data.
  const double k = 4 / (M_PI * M_PI);
  auto v_of = [&](const Tensor& b) {
    const auto c = b.unbind(-1), t = p2.unbind(-1);
    return k * ((t[2] - t[0]) / (t[3] - t[1])).atan().sub(((c[2] - c[0]) / (c[3] - c[1])).atan()).pow(2);
  };
  const Tensor v0 = v_of(p1);
  const Tensor inter_iou = ops::box_iou(p1, p2).diagonal();
  const Tensor alpha = v0 / (1 - inter_iou + v0 + 1e-7);
  const Tensor y = x.detach().clone().requires_grad_();
  const Tensor frozen = (ops::distance_box_iou_loss(y, p2) + alpha * v_of(y)).sum();
  const Tensor g_frozen = autograd::grad({frozen}, {y})[0];
  expect_close(g, g_frozen, 1e-6, 1e-6, "ciou loss gradient with alpha frozen");
}

TEST(DetectionBoxes, BadInputRaisesClearErrors) {
  expect_error([] { ops::box_iou(zeros({3, 5}), zeros({2, 4})); }, "box_iou: boxes1 should be a [N, 4] tensor");
  expect_error([] { ops::box_area(zeros({2, 3, 4})); }, "box_area: boxes should be a [N, 4] tensor");
  expect_error([] { ops::box_convert(zeros({2, 4}), "xyxy", "yxyx"); }, "box_convert: Unsupported");
  expect_error([] { ops::generalized_box_iou_loss(zeros({2, 4}), zeros({3, 4})); }, "should have the same shape");
  expect_error(
      [] {
        ops::distance_box_iou_loss(zeros({2, 4}), zeros({2, 4}), "avg");
      },
      "reduction should be 'none', 'mean' or 'sum', got 'avg'");
  Tensor m = zeros({2, 4, 4}, kUInt8);
  m.index_put_({0, 1, 1}, 1);
  expect_error([&] { ops::masks_to_boxes(m); }, "masks_to_boxes: mask 1 has no non-zero pixel");
  expect_error([] { ops::masks_to_boxes(zeros({4, 4})); }, "masks should be a [N, H, W] tensor");
}

// ---- nms ----

TEST(DetectionNms, KeepsTorchvisionsIndicesWithTiedScores) {
  const Tensor boxes = det_npy("nms_boxes"), scores = det_npy("nms_scores"), idxs = det_npy("nms_idxs");
  for (const char* t : {"03", "05", "07"}) {
    const double thr = std::stod(std::string("0.") + (t + 1));
    const Tensor keep = ops::nms(boxes, scores, thr);
    EXPECT_EQ(keep.dtype(), kInt64);
    EXPECT_TRUE(keep.equal(det_npy(std::string("nms_keep_") + t))) << "nms threshold " << thr;
    EXPECT_TRUE(
        ops::nms(boxes.to(kFloat64), scores.to(kFloat64), thr).equal(det_npy(std::string("nms_keep_") + t + "_f64")))
        << "float64 nms threshold " << thr;
    EXPECT_TRUE(ops::batched_nms(boxes, scores, idxs, thr).equal(det_npy(std::string("batched_nms_keep_") + t)))
        << "batched_nms threshold " << thr;
  }
}

// The rules spelled out: kept boxes come by decreasing score, equal scores in
// index order, and a box is dropped only for IoU strictly above the threshold.
TEST(DetectionNms, OrderTiesAndThresholdRules) {
  const Tensor boxes = tensor({0.0, 0.0, 10.0, 10.0,  // 0
                               0.0, 0.0, 10.0, 10.0,  // 1: same box and score as 0: 0 comes first
                               0.0, 5.0, 10.0, 15.0,  // 2: IoU with 0 (and 1) is 1/3
                               20.0, 20.0, 30.0, 30.0},
                              kFloat64)
                           .reshape({4, 4});
  const Tensor scores = tensor({0.5, 0.5, 0.9, 0.1}, kFloat64);
  // 2 first (best score); 0 overlaps it by exactly 1/3, which is not > 1/3.
  EXPECT_TRUE(ops::nms(boxes, scores, 1.0 / 3).equal(tensor({2, 0, 3}, kInt64)));
  EXPECT_TRUE(ops::nms(boxes, scores, 0.3).equal(tensor({2, 3}, kInt64)));
  // Categories keep overlapping boxes of different classes.
  EXPECT_TRUE(ops::batched_nms(boxes, scores, tensor({0, 1, 0, 0}, kInt64), 0.5).equal(tensor({2, 0, 1, 3}, kInt64)));
}

TEST(DetectionNms, EmptyInputsGiveEmptyIndices) {
  const Tensor keep = ops::nms(zeros({0, 4}), zeros({0}), 0.5);
  EXPECT_EQ(keep.numel(), 0);
  EXPECT_EQ(keep.dtype(), kInt64);
  EXPECT_EQ(ops::batched_nms(zeros({0, 4}), zeros({0}), zeros({0}, kInt64), 0.5).numel(), 0);
}

TEST(DetectionNms, BadInputRaisesTorchvisionsMessages) {
  expect_error([] { ops::nms(zeros({2, 3, 4}), zeros({2}), 0.5); }, "nms: boxes should be a 2d tensor, got 3D");
  expect_error([] { ops::nms(zeros({2, 5}), zeros({2}), 0.5); }, "boxes should have 4 elements in dimension 1, got 5");
  expect_error([] { ops::nms(zeros({2, 4}), zeros({2, 1}), 0.5); }, "scores should be a 1d tensor, got 2D");
  expect_error(
      [] {
        ops::nms(zeros({2, 4}), zeros({3}), 0.5);
      },
      "boxes and scores should have same number of elements in dimension 0, got 2 and 3");
  expect_error([] { ops::nms(zeros({2, 4}), zeros({2}, kFloat64), 0.5); }, "should have the same dtype");
  expect_error(
      [] {
        ops::batched_nms(zeros({2, 4}), zeros({2}), zeros({3}, kInt64), 0.5);
      },
      "batched_nms: idxs should be a 1d tensor with one category per box (2)");
}

}  // namespace detection_boxes_test
}  // namespace ember
