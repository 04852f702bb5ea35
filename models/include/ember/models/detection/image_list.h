#pragma once
// torchvision.models.detection.image_list.ImageList: a batch of images padded
// to one size, with each image's size before padding.
#include <cstdint>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::models::detection {

struct ImageList {
  Tensor tensors;                                      // [N, C, H, W], zero padded
  std::vector<std::pair<int64_t, int64_t>> image_sizes;  // (height, width) of each image
};

}  // namespace ember::models::detection
