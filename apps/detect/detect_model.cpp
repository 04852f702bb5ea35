#include "detect_model.h"

#include <cmath>

#include <ember/core/error.h>
#include <ember/models/detection/backbone_utils.h>
#include <ember/models/resnet.h>
#include <ember/vision/ops/feature_pyramid_network.h>

namespace ember::apps::detect {

namespace det = models::detection;

models::detection::RetinaNet make_detector(const DetectModelSpec& s) {
  EMBER_CHECK(s.backbone == "resnet18" || s.backbone == "resnet34" || s.backbone == "resnet50",
              "ember-detect: unknown backbone '", s.backbone, "' (expected resnet18, resnet34 or resnet50)");
  EMBER_CHECK(s.num_classes >= 2, "ember-detect: num_classes must be >= 2 (background and one category), got ",
              s.num_classes);
  EMBER_CHECK(s.fpn_channels >= 8, "ember-detect: --fpn-channels must be >= 8, got ", s.fpn_channels);
  EMBER_CHECK(s.anchor_size >= 4, "ember-detect: --anchor-size must be >= 4, got ", s.anchor_size);
  EMBER_CHECK(s.min_size >= 32 && s.max_size >= s.min_size, "ember-detect: --min-size (", s.min_size,
              ") must be >= 32 and --max-size (", s.max_size, ") >= --min-size");
  // The backbone as torchvision's retinanet_resnet50_fpn without weights
  // (BatchNorm2d, all layers trainable), at our FPN width: P3..P5 from
  // layer2..4, P6/P7 from P5.
  const int64_t c5 = s.backbone == "resnet50" ? 2048 : 512;
  const std::vector<int64_t> in_channels = {c5 / 4, c5 / 2, c5};
  models::ResNet resnet = s.backbone == "resnet18"   ? models::resnet18()
                          : s.backbone == "resnet34" ? models::resnet34()
                                                     : models::resnet50();
  const std::vector<std::pair<std::string, std::string>> return_layers = {
      {"layer2", "0"}, {"layer3", "1"}, {"layer4", "2"}};
  std::shared_ptr<vision::ops::ExtraFPNBlockImpl> p6p7 = vision::ops::LastLevelP6P7(s.fpn_channels, s.fpn_channels).ptr();
  det::BackboneWithFPN backbone(det::resnet_children(resnet), return_layers, in_channels, s.fpn_channels, p6p7);
  // retinanet_anchor_generator's three scales per octave and ratios 0.5, 1,
  // 2, starting at anchor_size instead of 32.
  det::AnchorGeneratorOptions anchors;
  anchors.sizes.clear();
  for (int64_t level = 0; level < 5; ++level) {
    const double x = static_cast<double>(s.anchor_size << level);
    anchors.sizes.push_back({x, std::floor(x * std::pow(2.0, 1.0 / 3)), std::floor(x * std::pow(2.0, 2.0 / 3))});
  }
  anchors.aspect_ratios = {{0.5, 1.0, 2.0}};
  det::RetinaNetOptions options;
  options.num_classes = s.num_classes;
  options.min_size = {s.min_size};
  options.max_size = s.max_size;
  options.anchor_generator = det::AnchorGenerator(anchors);
  return det::RetinaNet(backbone, options);
}

}  // namespace ember::apps::detect
