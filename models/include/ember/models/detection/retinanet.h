#pragma once
// torchvision.models.detection.retinanet (torchvision 0.14): RetinaNet
// (https://arxiv.org/abs/1708.02002), its head, and the ResNet-50-FPN
// builders. Module and parameter names are torchvision's, so its
// state_dicts load strictly.
//
//   auto model = detection::retinanet_resnet50_fpn({.num_classes = 91, .weights = "retinanet.pt"});
//   model->eval();
//   auto out = model->forward({image_a, image_b});          // out.detections[i]: boxes, scores, labels
//   model->train();
//   auto loss = model->forward(images, targets).losses;       // "classification", "bbox_regression"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <ember/models/detection/anchor_utils.h>
#include <ember/models/detection/backbone_utils.h>
#include <ember/models/detection/box_coder.h>
#include <ember/models/detection/matcher.h>
#include <ember/models/detection/transform.h>
#include <ember/nn/container.h>
#include <ember/nn/modules/conv.h>
#include <ember/vision/ops/misc.h>

namespace ember::models::detection {

// Four 3x3 Conv2dNormActivation (conv "0", norm "1" when norm_layer, ReLU)
// then cls_logits (3x3, num_anchors * num_classes). Weights normal(0, 0.01),
// conv biases 0, cls_logits' bias -log((1 - prior_probability) /
// prior_probability) so that every anchor starts at probability prior_probability.
class RetinaNetClassificationHeadImpl : public nn::Module {
 public:
  RetinaNetClassificationHeadImpl(int64_t in_channels, int64_t num_anchors, int64_t num_classes,
                                  double prior_probability = 0.01, vision::ops::NormLayer norm_layer = nullptr);
  // Per level [N, C, H, W] -> [N, sum H W A, num_classes] (position-major, then anchor).
  Tensor forward(const std::vector<Tensor>& x);
  // Sum over images of sigmoid_focal_loss (sum) over the anchors not between
  // thresholds, / max(1, foreground anchors); / the number of images.
  Tensor compute_loss(const std::vector<Target>& targets, const Tensor& cls_logits,
                      const std::vector<Tensor>& matched_idxs) const;

  nn::Sequential conv{nullptr};
  nn::Conv2d cls_logits{nullptr};
  int64_t num_classes, num_anchors;
};
EMBER_MODULE(RetinaNetClassificationHead);

// Four Conv2dNormActivation then bbox_reg (3x3, num_anchors * 4); weights
// normal(0, 0.01), biases 0. loss_type "l1" (v1: L1 of the encoded targets),
// "smooth_l1" (beta 1), "giou", "diou" or "ciou" (of the decoded boxes; v2 uses "giou").
class RetinaNetRegressionHeadImpl : public nn::Module {
 public:
  RetinaNetRegressionHeadImpl(int64_t in_channels, int64_t num_anchors, vision::ops::NormLayer norm_layer = nullptr);
  // Per level [N, C, H, W] -> [N, sum H W A, 4].
  Tensor forward(const std::vector<Tensor>& x);
  Tensor compute_loss(const std::vector<Target>& targets, const Tensor& bbox_regression,
                      const std::vector<Tensor>& anchors, const std::vector<Tensor>& matched_idxs) const;

  nn::Sequential conv{nullptr};
  nn::Conv2d bbox_reg{nullptr};
  BoxCoder box_coder{{1.0, 1.0, 1.0, 1.0}};
  std::string loss_type = "l1";
};
EMBER_MODULE(RetinaNetRegressionHead);

struct RetinaNetHeadOutputs {
  Tensor cls_logits;       // [N, sum HWA, num_classes]
  Tensor bbox_regression;  // [N, sum HWA, 4]
};

// classification_head and regression_head.
class RetinaNetHeadImpl : public nn::Module {
 public:
  RetinaNetHeadImpl(int64_t in_channels, int64_t num_anchors, int64_t num_classes,
                    vision::ops::NormLayer norm_layer = nullptr);
  RetinaNetHeadOutputs forward(const std::vector<Tensor>& x);
  // {"classification", "bbox_regression"}.
  std::map<std::string, Tensor> compute_loss(const std::vector<Target>& targets, const RetinaNetHeadOutputs& outputs,
                                             const std::vector<Tensor>& anchors,
                                             const std::vector<Tensor>& matched_idxs) const;

  RetinaNetClassificationHead classification_head{nullptr};
  RetinaNetRegressionHead regression_head{nullptr};
};
EMBER_MODULE(RetinaNetHead);

// RetinaNet's keyword arguments, torchvision's defaults.
struct RetinaNetOptions {
  int64_t num_classes = 91;
  // GeneralizedRCNNTransform's.
  std::vector<int64_t> min_size = {800};
  int64_t max_size = 1333;
  std::vector<double> image_mean = {0.485, 0.456, 0.406};
  std::vector<double> image_std = {0.229, 0.224, 0.225};
  // Null: AnchorGenerator(retinanet_anchor_generator()).
  AnchorGenerator anchor_generator{nullptr};
  // Null: RetinaNetHead(backbone out_channels, anchors per location, num_classes).
  RetinaNetHead head{nullptr};
  double score_thresh = 0.05;
  double nms_thresh = 0.5;
  int64_t detections_per_img = 300;
  double fg_iou_thresh = 0.5;
  double bg_iou_thresh = 0.4;
  int64_t topk_candidates = 1000;
};

// What forward returns: losses in training mode, detections (one Target per
// image: "boxes" [K, 4] in the original image's pixels, "scores" [K],
// "labels" int64 [K]) in eval mode; the other is empty (torchvision's
// scripted (losses, detections) pair).
struct RetinaNetOutput {
  std::map<std::string, Tensor> losses;
  std::vector<Target> detections;
};

// Children: backbone, anchor_generator, head, transform (torchvision's order
// and names; only backbone and head hold state).
class RetinaNetImpl : public nn::Module {
 public:
  RetinaNetImpl(BackboneWithFPN backbone, RetinaNetOptions options = {});

  // images: float [C, H, W] in [0, 1], any sizes. targets (training):
  // one per image with "boxes" [N, 4] (x1, y1, x2, y2, x2 > x1 and y2 > y1)
  // and "labels" int64 [N].
  RetinaNetOutput forward(const std::vector<Tensor>& images, const std::vector<Target>& targets = {});

  // Matches anchors to ground truth (Matcher(fg, bg, low quality matches))
  // and returns the head's losses.
  std::map<std::string, Tensor> compute_loss(const std::vector<Target>& targets, const RetinaNetHeadOutputs& outputs,
                                             const std::vector<Tensor>& anchors) const;
  // Per image: per level, scores above score_thresh, the topk_candidates
  // best, boxes decoded and clipped; then batched NMS per label and the
  // detections_per_img best. Outputs and anchors split per level.
  std::vector<Target> postprocess_detections(const std::vector<Tensor>& cls_logits_per_level,
                                             const std::vector<Tensor>& bbox_regression_per_level,
                                             const std::vector<std::vector<Tensor>>& anchors_per_image_level,
                                             const std::vector<std::pair<int64_t, int64_t>>& image_shapes) const;

  BackboneWithFPN backbone{nullptr};
  AnchorGenerator anchor_generator{nullptr};
  RetinaNetHead head{nullptr};
  GeneralizedRCNNTransform transform{nullptr};
  Matcher proposal_matcher;
  BoxCoder box_coder{{1.0, 1.0, 1.0, 1.0}};
  double score_thresh, nms_thresh;
  int64_t detections_per_img, topk_candidates;
};
EMBER_MODULE(RetinaNet);

struct RetinaNetResNet50FPNOptions {
  int64_t num_classes = 91;
  // A state_dict file (torch.save or Ember's) loaded strictly into the
  // model: torchvision's `weights`, without the download.
  std::string weights = "";
  // A ResNet-50 state_dict loaded into the backbone (torchvision's weights_backbone).
  std::string weights_backbone = "";
  // Trainable backbone layers in [0, 5]; without weights all five (as torchvision); default 3.
  std::optional<int64_t> trainable_backbone_layers = std::nullopt;
  // The rest of RetinaNet's options (num_classes is taken from above).
  RetinaNetOptions retinanet = {};
};

// v1: ResNet-50 (FrozenBatchNorm2d when weights are given, else BatchNorm2d),
// FPN on layer2..4 with LastLevelP6P7(256, 256) (P6 from P5), heads without
// norm, L1 box loss.
RetinaNet retinanet_resnet50_fpn(const RetinaNetResNet50FPNOptions& options = {});
// v2 (https://arxiv.org/abs/1912.02424): ResNet-50 with BatchNorm2d,
// LastLevelP6P7(2048, 256) (P6 from C5), heads with GroupNorm(32), GIoU box loss.
RetinaNet retinanet_resnet50_fpn_v2(const RetinaNetResNet50FPNOptions& options = {});

}  // namespace ember::models::detection
