#pragma once
// The target of one detection image, as torchvision's detection models and
// references pass it: a dict of tensors by name.
//
//   "boxes"      float [N, 4], x1, y1, x2, y2 in pixels (required by the box transforms)
//   "labels"     int64 [N]
//   "masks"      uint8 [N, H, W] (optional; moved with the image)
//   "keypoints"  float [N, K, 3], x, y, visibility (optional; moved with the image)
// Any other entry ("image_id", "area", "iscrowd", ...) is carried along
// unchanged, as torchvision's references do.
#include <map>
#include <string>

#include <ember/core/tensor.h>

namespace ember::vision::detection {

using Target = std::map<std::string, Tensor>;

}  // namespace ember::vision::detection
