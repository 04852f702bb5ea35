#pragma once
// ember-detect's model: torchvision's RetinaNet on a ResNet-FPN backbone
// (layer2..4 and P6/P7 from P5, as retinanet_resnet50_fpn), trained from
// scratch (BatchNorm2d backbone, every layer trainable), with the FPN width,
// the anchor sizes and the input size chosen for the data (DetectModelSpec).
#include <cstdint>
#include <string>

#include <ember/models/detection/retinanet.h>

namespace ember::apps::detect {

// What rebuilds the model; stored in the checkpoint.
struct DetectModelSpec {
  std::string backbone = "resnet18";
  int64_t num_classes = 0;  // the largest category id + 1 (0 is the background)
  int64_t fpn_channels = 128;
  int64_t anchor_size = 16;
  int64_t min_size = 128, max_size = 256;
};

// Bad specs (unknown backbone, non-positive sizes) are ember::Errors naming the value.
models::detection::RetinaNet make_detector(const DetectModelSpec& spec);

}  // namespace ember::apps::detect
