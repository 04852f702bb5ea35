// RetinaNet and its ResNet-50-FPN builders (torchvision.models.detection.retinanet, 0.14).
#include "ember/models/detection/retinanet.h"

#include <algorithm>
#include <charconv>
#include <string>

#include <ember/core/error.h>
#include <ember/nn/modules/normalization.h>
#include <ember/ops/factories.h>
#include <ember/ops/indexing.h>
#include <ember/ops/shape.h>
#include <ember/serialize/torch_load.h>
#include <ember/vision/ops/boxes.h>
#include <ember/vision/ops/nms.h>

namespace ember::models::detection {

namespace {

// A box as Python prints boxes[i].tolist(): each value's shortest repr, "16.0" for 16.
std::string box_string(const Tensor& box) {
  const Tensor b = box.to(kFloat64).contiguous();
  std::string out = "[";
  for (int64_t j = 0; j < b.numel(); ++j) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof(buf), b[j].item<double>());
    std::string v(buf, res.ptr);
    if (v.find_first_of(".en") == std::string::npos) v += ".0";
    out += (j ? ", " : "") + v;
  }
  return out + "]";
}

}  // namespace

RetinaNetImpl::RetinaNetImpl(BackboneWithFPN backbone_, RetinaNetOptions options)
    : nn::Module("RetinaNet"),
      proposal_matcher(options.fg_iou_thresh, options.bg_iou_thresh, /*allow_low_quality_matches=*/true),
      score_thresh(options.score_thresh),
      nms_thresh(options.nms_thresh),
      detections_per_img(options.detections_per_img),
      topk_candidates(options.topk_candidates) {
  EMBER_CHECK(backbone_, "RetinaNet: backbone is null");
  EMBER_CHECK(options.topk_candidates >= 0 && options.detections_per_img >= 0,
              "RetinaNet: topk_candidates (", options.topk_candidates, ") and detections_per_img (",
              options.detections_per_img, ") must be non-negative");
  backbone = register_module("backbone", backbone_);
  if (!options.anchor_generator) options.anchor_generator = AnchorGenerator(retinanet_anchor_generator());
  anchor_generator = register_module("anchor_generator", options.anchor_generator);
  if (!options.head)
    options.head = RetinaNetHead(backbone->out_channels, anchor_generator->num_anchors_per_location()[0],
                                 options.num_classes);
  head = register_module("head", options.head);
  transform = register_module(
      "transform", GeneralizedRCNNTransform(GeneralizedRCNNTransformOptions{.min_size = options.min_size,
                                                                            .max_size = options.max_size,
                                                                            .image_mean = options.image_mean,
                                                                            .image_std = options.image_std}));
}

std::map<std::string, Tensor> RetinaNetImpl::compute_loss(const std::vector<Target>& targets,
                                                          const RetinaNetHeadOutputs& outputs,
                                                          const std::vector<Tensor>& anchors) const {
  std::vector<Tensor> matched_idxs;
  for (size_t i = 0; i < targets.size(); ++i) {
    const Tensor& boxes = targets[i].at("boxes");
    if (boxes.numel() == 0) {
      // An image without objects: every anchor is background.
      matched_idxs.push_back(full({anchors[i].size(0)}, -1, TensorOptions(kInt64).device(anchors[i].device())));
      continue;
    }
    matched_idxs.push_back(proposal_matcher(vision::ops::box_iou(boxes, anchors[i])));
  }
  return head->compute_loss(targets, outputs, anchors, matched_idxs);
}

std::vector<Target> RetinaNetImpl::postprocess_detections(
    const std::vector<Tensor>& cls_logits_per_level, const std::vector<Tensor>& bbox_regression_per_level,
    const std::vector<std::vector<Tensor>>& anchors_per_image_level,
    const std::vector<std::pair<int64_t, int64_t>>& image_shapes) const {
  std::vector<Target> detections;
  for (size_t index = 0; index < image_shapes.size(); ++index) {
    const auto i = static_cast<int64_t>(index);
    const auto [height, width] = image_shapes[index];
    std::vector<Tensor> image_boxes, image_scores, image_labels;
    for (size_t level = 0; level < cls_logits_per_level.size(); ++level) {
      const Tensor logits = cls_logits_per_level[level][i];
      const Tensor regression = bbox_regression_per_level[level][i];
      const Tensor& anchors = anchors_per_image_level[index][level];
      const int64_t num_classes = logits.size(-1);
      // Scores of every (anchor, class), anchor-major: drop the low ones.
      Tensor scores = logits.sigmoid().flatten();
      const Tensor keep = scores.gt(score_thresh);
      scores = scores.index({keep});
      Tensor topk_idxs = keep.nonzero().select(1, 0);
      const int64_t num_topk = std::min(topk_candidates, topk_idxs.size(0));
      auto [top_scores, idxs] = scores.topk(num_topk);
      topk_idxs = topk_idxs.index_select(0, idxs);
      const Tensor anchor_idxs = topk_idxs.floor_divide(num_classes);
      const Tensor labels = topk_idxs.remainder(num_classes);
      Tensor boxes = box_coder.decode_single(regression.index_select(0, anchor_idxs),
                                             anchors.index_select(0, anchor_idxs));
      boxes = vision::ops::clip_boxes_to_image(boxes, {height, width});
      image_boxes.push_back(boxes);
      image_scores.push_back(top_scores);
      image_labels.push_back(labels);
    }
    const Tensor boxes = cat(image_boxes, 0), scores = cat(image_scores, 0), labels = cat(image_labels, 0);
    Tensor keep = vision::ops::batched_nms(boxes, scores, labels, nms_thresh);
    keep = keep.slice(0, 0, std::min(detections_per_img, keep.size(0)));
    detections.push_back(
        {{"boxes", boxes.index_select(0, keep)}, {"scores", scores.index_select(0, keep)},
         {"labels", labels.index_select(0, keep)}});
  }
  return detections;
}

RetinaNetOutput RetinaNetImpl::forward(const std::vector<Tensor>& images, const std::vector<Target>& targets) {
  EMBER_CHECK(!images.empty(), "RetinaNet: no images");
  if (is_training()) {
    EMBER_CHECK(!targets.empty(), "RetinaNet: targets should not be none when in training mode");
    for (const Target& target : targets) {
      auto it = target.find("boxes");
      EMBER_CHECK(it != target.end(), "RetinaNet: a target has no \"boxes\"");
      EMBER_CHECK(it->second.dim() == 2 && it->second.size(-1) == 4,
                  "RetinaNet: Expected target boxes to be a tensor of shape [N, 4], got ", it->second.sizes());
      EMBER_CHECK(target.count("labels") != 0, "RetinaNet: a target has no \"labels\"");
    }
  }
  EMBER_CHECK(targets.empty() || targets.size() == images.size(), "RetinaNet: ", images.size(), " images but ",
              targets.size(), " targets");
  std::vector<std::pair<int64_t, int64_t>> original_image_sizes;
  for (const Tensor& img : images) {
    EMBER_CHECK(img.dim() >= 2, "RetinaNet: expecting the last two dimensions of the Tensor to be H and W instead got ",
                img.sizes());
    original_image_sizes.emplace_back(img.size(-2), img.size(-1));
  }

  auto [batch, transformed] = transform->forward(images, targets);

  // Degenerate boxes: the first one found is reported, as torchvision.
  for (size_t t = 0; t < transformed.size(); ++t) {
    const Tensor& boxes = transformed[t].at("boxes");
    if (boxes.numel() == 0) continue;
    const Tensor degenerate = boxes.slice(1, 2).le(boxes.slice(1, 0, 2)).any(1);
    if (degenerate.any().item<bool>()) {
      const int64_t bb_idx = degenerate.nonzero()[0][0].item<int64_t>();
      EMBER_CHECK(false, "RetinaNet: All bounding boxes should have positive height and width. Found invalid box ",
                  box_string(boxes[bb_idx]), " for target at index ", t, ".");
    }
  }

  const OrderedDict<Tensor> feature_dict = backbone->forward(batch.tensors);
  std::vector<Tensor> features;
  for (const auto& [name, f] : feature_dict) features.push_back(f);

  const RetinaNetHeadOutputs head_outputs = head->forward(features);
  const std::vector<Tensor> anchors = anchor_generator->forward(batch, features);

  RetinaNetOutput out;
  if (is_training()) {
    out.losses = compute_loss(transformed, head_outputs, anchors);
    return out;
  }
  // Split outputs and anchors per level: H W A anchors on a level.
  int64_t hw_total = 0;
  for (const Tensor& f : features) hw_total += f.size(2) * f.size(3);
  const int64_t a = head_outputs.cls_logits.size(1) / hw_total;
  std::vector<int64_t> per_level;
  for (const Tensor& f : features) per_level.push_back(f.size(2) * f.size(3) * a);
  const auto cls_levels = head_outputs.cls_logits.split(per_level, 1);
  const auto reg_levels = head_outputs.bbox_regression.split(per_level, 1);
  std::vector<std::vector<Tensor>> split_anchors;
  for (const Tensor& anc : anchors) split_anchors.push_back(anc.split(per_level));
  out.detections = postprocess_detections(cls_levels, reg_levels, split_anchors, batch.image_sizes);
  out.detections = transform->postprocess(std::move(out.detections), batch.image_sizes, original_image_sizes);
  return out;
}

// ---- builders ----

namespace {

void load_strict(nn::Module& module, const std::string& path) {
  module.load_state_dict(serialize::load_torch_state_dict(path), /*strict=*/true);
}

}  // namespace

RetinaNet retinanet_resnet50_fpn(const RetinaNetResNet50FPNOptions& options) {
  const bool is_trained = !options.weights.empty() || !options.weights_backbone.empty();
  const int64_t trainable = validate_trainable_layers(is_trained, options.trainable_backbone_layers, 5, 3);
  ResNetOptions resnet_options;
  // Trained weights keep their batch statistics frozen; a model trained from scratch uses BatchNorm2d.
  resnet_options.norm_layer = is_trained ? NormLayer(frozen_batch_norm_2d) : NormLayer(batch_norm_2d);
  ResNet resnet = resnet50(resnet_options);
  if (!options.weights_backbone.empty()) load_strict(*resnet, options.weights_backbone);
  BackboneWithFPN backbone = resnet_fpn_extractor(
      resnet, {.trainable_layers = trainable,
               .returned_layers = {2, 3, 4},
               .extra_blocks = vision::ops::LastLevelP6P7(256, 256).ptr()});
  RetinaNetOptions retina = options.retinanet;
  retina.num_classes = options.num_classes;
  RetinaNet model(backbone, retina);
  if (!options.weights.empty()) load_strict(*model, options.weights);
  return model;
}

RetinaNet retinanet_resnet50_fpn_v2(const RetinaNetResNet50FPNOptions& options) {
  const bool is_trained = !options.weights.empty() || !options.weights_backbone.empty();
  const int64_t trainable = validate_trainable_layers(is_trained, options.trainable_backbone_layers, 5, 3);
  ResNet resnet = resnet50();
  if (!options.weights_backbone.empty()) load_strict(*resnet, options.weights_backbone);
  BackboneWithFPN backbone = resnet_fpn_extractor(
      resnet, {.trainable_layers = trainable,
               .returned_layers = {2, 3, 4},
               .extra_blocks = vision::ops::LastLevelP6P7(2048, 256).ptr()});
  RetinaNetOptions retina = options.retinanet;
  retina.num_classes = options.num_classes;
  AnchorGenerator anchors(retinanet_anchor_generator());
  RetinaNetHead head(backbone->out_channels, anchors->num_anchors_per_location()[0], options.num_classes,
                     [](int64_t channels) { return nn::AnyModule(nn::GroupNorm(32, channels)); });
  head->regression_head->loss_type = "giou";
  retina.anchor_generator = anchors;
  retina.head = head;
  RetinaNet model(backbone, retina);
  if (!options.weights.empty()) load_strict(*model, options.weights);
  return model;
}

}  // namespace ember::models::detection
