// RetinaNetHead and its two branches (torchvision.models.detection.retinanet).
#include <algorithm>
#include <cmath>

#include <ember/core/error.h>
#include <ember/nn/functional/loss.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/normalization.h>
#include <ember/ops/factories.h>
#include <ember/ops/indexing.h>
#include <ember/ops/shape.h>
#include <ember/vision/ops/boxes.h>
#include <ember/vision/ops/focal_loss.h>

#include "ember/models/detection/retinanet.h"

namespace ember::models::detection {

namespace F = nn::functional;

namespace {

// The four 3x3 Conv2dNormActivation both branches share: "conv.<i>.0" is the
// convolution, "conv.<i>.1" the norm when there is one.
nn::Sequential head_convs(int64_t channels, const vision::ops::NormLayer& norm_layer) {
  nn::Sequential conv;
  for (int i = 0; i < 4; ++i)
    conv->push_back(vision::ops::Conv2dNormActivation(
        vision::ops::Conv2dNormActivationOptions{.in_channels = channels, .out_channels = channels,
                                                 .norm_layer = norm_layer}));
  // torchvision: normal_(weight, std=0.01) and a zero bias for every Conv2d in conv.
  for (const auto& m : conv->modules())
    if (auto* c = dynamic_cast<nn::Conv2dImpl*>(m.get())) {
      nn::init::normal_(c->weight, 0.0, 0.01);
      if (c->bias.defined()) nn::init::zeros_(c->bias);
    }
  return conv;
}

nn::Conv2d conv3x3_out(int64_t in_channels, int64_t out_channels) {
  return nn::Conv2d(nn::Conv2dOptions{
      .in_channels = in_channels, .out_channels = out_channels, .kernel_size = 3, .stride = 1, .padding = 1});
}

// (N, A * K, H, W) -> (N, H W A, K), as torchvision's view/permute/reshape.
Tensor flatten_level(const Tensor& out, int64_t k) {
  const int64_t n = out.size(0), h = out.size(2), w = out.size(3);
  return out.view({n, -1, k, h, w}).permute({0, 3, 4, 1, 2}).reshape({n, -1, k});
}

Tensor sum_losses(const std::vector<Tensor>& losses) {
  Tensor res = losses[0];
  for (size_t i = 1; i < losses.size(); ++i) res = res + losses[i];
  return res;
}

const Tensor& target_entry(const Target& target, const char* key) {
  auto it = target.find(key);
  EMBER_CHECK(it != target.end(), "RetinaNet: a target has no \"", key, "\"");
  return it->second;
}

}  // namespace

// ---- classification ----

RetinaNetClassificationHeadImpl::RetinaNetClassificationHeadImpl(int64_t in_channels, int64_t num_anchors_,
                                                                 int64_t num_classes_, double prior_probability,
                                                                 vision::ops::NormLayer norm_layer)
    : nn::Module("RetinaNetClassificationHead"), num_classes(num_classes_), num_anchors(num_anchors_) {
  EMBER_CHECK(in_channels > 0 && num_anchors > 0 && num_classes > 0, "RetinaNetClassificationHead: in_channels (",
              in_channels, "), num_anchors (", num_anchors, ") and num_classes (", num_classes,
              ") must be positive");
  EMBER_CHECK(prior_probability > 0 && prior_probability < 1,
              "RetinaNetClassificationHead: prior_probability must be in (0, 1), got ", prior_probability);
  conv = register_module("conv", head_convs(in_channels, norm_layer));
  cls_logits = register_module("cls_logits", conv3x3_out(in_channels, num_anchors * num_classes));
  nn::init::normal_(cls_logits->weight, 0.0, 0.01);
  // Every anchor starts at probability prior_probability, so that the many
  // background anchors do not swamp the first iterations (the paper's 4.1).
  nn::init::constant_(cls_logits->bias, -std::log((1 - prior_probability) / prior_probability));
}

Tensor RetinaNetClassificationHeadImpl::forward(const std::vector<Tensor>& x) {
  std::vector<Tensor> all;
  all.reserve(x.size());
  for (const Tensor& features : x) all.push_back(flatten_level(cls_logits(conv(features)), num_classes));
  return cat(all, 1);
}

Tensor RetinaNetClassificationHeadImpl::compute_loss(const std::vector<Target>& targets, const Tensor& cls_logits_,
                                                     const std::vector<Tensor>& matched_idxs) const {
  std::vector<Tensor> losses;
  for (size_t i = 0; i < targets.size(); ++i) {
    const Tensor logits = cls_logits_[static_cast<int64_t>(i)];
    const Tensor& matched = matched_idxs[i];
    const Tensor foreground = matched.ge(0);
    const int64_t num_foreground = foreground.sum().item<int64_t>();
    // One-hot targets of the foreground anchors' matched labels.
    Tensor gt_classes_target = zeros_like(logits);
    const Tensor fg_idx = foreground.nonzero().select(1, 0);
    const Tensor labels = target_entry(targets[i], "labels").index_select(0, matched.index_select(0, fg_idx));
    gt_classes_target.index_put_({fg_idx, labels}, 1.0);
    // Anchors between the thresholds count neither as object nor background.
    const Tensor valid = matched.ne(Matcher::BETWEEN_THRESHOLDS);
    losses.push_back(vision::ops::sigmoid_focal_loss(logits.index({valid}), gt_classes_target.index({valid}), 0.25,
                                                     2.0, "sum") /
                     static_cast<double>(std::max<int64_t>(1, num_foreground)));
  }
  return sum_losses(losses) / static_cast<double>(targets.size());
}

// ---- regression ----

RetinaNetRegressionHeadImpl::RetinaNetRegressionHeadImpl(int64_t in_channels, int64_t num_anchors,
                                                         vision::ops::NormLayer norm_layer)
    : nn::Module("RetinaNetRegressionHead") {
  EMBER_CHECK(in_channels > 0 && num_anchors > 0, "RetinaNetRegressionHead: in_channels (", in_channels,
              ") and num_anchors (", num_anchors, ") must be positive");
  conv = register_module("conv", head_convs(in_channels, norm_layer));
  bbox_reg = register_module("bbox_reg", conv3x3_out(in_channels, num_anchors * 4));
  nn::init::normal_(bbox_reg->weight, 0.0, 0.01);
  nn::init::zeros_(bbox_reg->bias);
}

Tensor RetinaNetRegressionHeadImpl::forward(const std::vector<Tensor>& x) {
  std::vector<Tensor> all;
  all.reserve(x.size());
  for (const Tensor& features : x) all.push_back(flatten_level(bbox_reg(conv(features)), 4));
  return cat(all, 1);
}

Tensor RetinaNetRegressionHeadImpl::compute_loss(const std::vector<Target>& targets, const Tensor& bbox_regression,
                                                 const std::vector<Tensor>& anchors,
                                                 const std::vector<Tensor>& matched_idxs) const {
  EMBER_CHECK(loss_type == "l1" || loss_type == "smooth_l1" || loss_type == "giou" || loss_type == "diou" ||
                  loss_type == "ciou",
              "RetinaNetRegressionHead: Unsupported loss: ", loss_type);
  std::vector<Tensor> losses;
  for (size_t i = 0; i < targets.size(); ++i) {
    const Tensor& matched = matched_idxs[i];
    const Tensor fg_idx = matched.ge(0).nonzero().select(1, 0);
    const int64_t num_foreground = fg_idx.numel();
    const Tensor matched_gt =
        target_entry(targets[i], "boxes").index_select(0, matched.index_select(0, fg_idx));
    const Tensor regression = bbox_regression[static_cast<int64_t>(i)].index_select(0, fg_idx);
    const Tensor anchors_fg = anchors[i].index_select(0, fg_idx);
    // torchvision's _box_loss.
    Tensor loss;
    if (loss_type == "l1" || loss_type == "smooth_l1") {
      const Tensor target_regression = box_coder.encode_single(matched_gt, anchors_fg);
      loss = loss_type == "l1" ? F::l1_loss(regression, target_regression, nn::Reduction::Sum)
                               : F::smooth_l1_loss(regression, target_regression,
                                                   {.reduction = nn::Reduction::Sum, .beta = 1.0});
    } else {
      const Tensor boxes = box_coder.decode_single(regression, anchors_fg);
      loss = loss_type == "giou"   ? vision::ops::generalized_box_iou_loss(boxes, matched_gt, "sum")
             : loss_type == "diou" ? vision::ops::distance_box_iou_loss(boxes, matched_gt, "sum")
                                   : vision::ops::complete_box_iou_loss(boxes, matched_gt, "sum");
    }
    losses.push_back(loss / static_cast<double>(std::max<int64_t>(1, num_foreground)));
  }
  return sum_losses(losses) / static_cast<double>(std::max<size_t>(1, targets.size()));
}

// ---- both ----

RetinaNetHeadImpl::RetinaNetHeadImpl(int64_t in_channels, int64_t num_anchors, int64_t num_classes,
                                     vision::ops::NormLayer norm_layer)
    : nn::Module("RetinaNetHead") {
  classification_head = register_module(
      "classification_head", RetinaNetClassificationHead(in_channels, num_anchors, num_classes, 0.01, norm_layer));
  regression_head = register_module("regression_head", RetinaNetRegressionHead(in_channels, num_anchors, norm_layer));
}

RetinaNetHeadOutputs RetinaNetHeadImpl::forward(const std::vector<Tensor>& x) {
  return {classification_head->forward(x), regression_head->forward(x)};
}

std::map<std::string, Tensor> RetinaNetHeadImpl::compute_loss(const std::vector<Target>& targets,
                                                              const RetinaNetHeadOutputs& outputs,
                                                              const std::vector<Tensor>& anchors,
                                                              const std::vector<Tensor>& matched_idxs) const {
  return {{"classification", classification_head->compute_loss(targets, outputs.cls_logits, matched_idxs)},
          {"bbox_regression",
           regression_head->compute_loss(targets, outputs.bbox_regression, anchors, matched_idxs)}};
}

}  // namespace ember::models::detection
