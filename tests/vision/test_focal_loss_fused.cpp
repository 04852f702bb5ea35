// The fused sigmoid_focal_loss (one forward pass, one backward node; Note
// [Fused focal loss] in vision/src/kernels/cpu/focal_loss_kernels.cpp)
// against torchvision.ops.sigmoid_focal_loss (fixtures focal_fused_* of
// scripts/fixtures/vision_detection_ops.py: every reduction, several alpha and
// gamma, saturated logits, a soft target, float32), finite differences, and
// the unfused composition it falls back to.
#include <gtest/gtest.h>

#include <string>

#include <ember/ember.h>
#include <ember/vision/ops.h>

#include "detection_fixtures.h"

namespace ember {
namespace focal_loss_fused_test {

namespace ops = vision::ops;
using autograd::variable_list;
using testing::det_npy;
using testing::expect_close;
using testing::grads_of;

struct Case {
  const char* name;
  double alpha, gamma;
  const char* reduction;
};
const Case kCases[] = {{"a025_g2_none", 0.25, 2.0, "none"}, {"a025_g2_mean", 0.25, 2.0, "mean"},
                       {"a025_g2_sum", 0.25, 2.0, "sum"},   {"a-1_g0_sum", -1.0, 0.0, "sum"},
                       {"a05_g15_mean", 0.5, 1.5, "mean"},  {"a075_g3_none", 0.75, 3.0, "none"}};

TEST(FusedFocalLoss, MatchesTorchvisionValuesAndGradients) {
  const Tensor targets = det_npy("focal_fused_targets");
  for (const Case& c : kCases) {
    const std::string name = std::string("focal_fused_") + c.name;
    const Tensor logits = det_npy("focal_fused_logits").requires_grad_();
    const Tensor out = ops::sigmoid_focal_loss(logits, targets, c.alpha, c.gamma, c.reduction);
    // One node: the loss's grad_fn is the fused function (not a mul/sum chain).
    ASSERT_TRUE(out.grad_fn() != nullptr);
    EXPECT_NE(out.grad_fn()->name().find("SigmoidFocalLoss"), std::string::npos) << out.grad_fn()->name();
    expect_close(out, det_npy(name + "_out"), 1e-12, 1e-12, name);
    expect_close(grads_of(out, det_npy(name + "_gout"), {logits})[0], det_npy(name + "_gx"), 1e-12, 1e-12,
                 name + " gradient");
  }
}

TEST(FusedFocalLoss, Float32MatchesTorchvision) {
  const Tensor logits = det_npy("focal_fused_logits").to(kFloat32).requires_grad_();
  const Tensor targets = det_npy("focal_fused_targets").to(kFloat32);
  const Tensor out = ops::sigmoid_focal_loss(logits, targets, 0.25, 2.0, "sum");
  EXPECT_EQ(out.dtype(), kFloat32);
  expect_close(out, det_npy("focal_fused_f32_out"), 1e-5, 1e-5, "float32 sum");
  const Tensor gx = grads_of(out, det_npy("focal_fused_f32_gout"), {logits})[0];
  EXPECT_EQ(gx.dtype(), kFloat32);
  expect_close(gx, det_npy("focal_fused_f32_gx"), 1e-5, 1e-6, "float32 gradient");
}

TEST(FusedFocalLoss, GradcheckEveryReduction) {
  const Tensor targets = det_npy("focal_fused_targets").slice(0, 0, 8);
  for (const Case& c : kCases) {
    const Tensor logits = det_npy("focal_fused_logits").slice(0, 0, 8).clone().requires_grad_();
    EXPECT_TRUE(autograd::gradcheck(
        [&](const variable_list& v) {
          return variable_list{ops::sigmoid_focal_loss(v[0], targets, c.alpha, c.gamma, c.reduction)};
        },
        {logits}))
        << c.name;
  }
}

// Targets that need a gradient take torchvision's composition (the fused node
// has none for them): the same values and input gradients, and a target gradient.
TEST(FusedFocalLoss, CompositeFallbackAgrees) {
  const Tensor logits = det_npy("focal_fused_logits").requires_grad_();
  const Tensor targets = det_npy("focal_fused_targets").clone().requires_grad_();
  const Tensor composite = ops::sigmoid_focal_loss(logits, targets, 0.5, 1.5, "mean");
  expect_close(composite, det_npy("focal_fused_a05_g15_mean_out"), 1e-12, 1e-12, "composite");
  EXPECT_EQ(composite.grad_fn()->name().find("SigmoidFocalLoss"), std::string::npos);
  const variable_list g = grads_of(composite, det_npy("focal_fused_a05_g15_mean_gout"), {logits, targets});
  expect_close(g[0], det_npy("focal_fused_a05_g15_mean_gx"), 1e-12, 1e-12, "composite gradient");
  EXPECT_TRUE(g[1].defined());
  // An empty input: an empty loss, 0 summed, NaN averaged (as torch's mean).
  const Tensor none = ops::sigmoid_focal_loss(zeros({0, 9}, kFloat64), zeros({0, 9}, kFloat64));
  EXPECT_EQ(none.sizes(), (std::vector<int64_t>{0, 9}));
  EXPECT_EQ(ops::sigmoid_focal_loss(zeros({0, 9}), zeros({0, 9}), 0.25, 2.0, "sum").item<float>(), 0.0f);
}

}  // namespace focal_loss_fused_test
}  // namespace ember
