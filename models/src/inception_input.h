#pragma once
// transform_input of GoogLeNet and Inception v3: input normalised with
// ImageNet's mean and std, re-normalised to (x - 0.5) / 0.5 as the original
// TensorFlow weights expect (torchvision's _transform_input, same constants).
#include <ember/core/tensor.h>
#include <ember/ops/shape.h>

namespace ember::models::detail {

inline Tensor transform_imagenet_input(const Tensor& x) {
  const double mean[3] = {0.485, 0.456, 0.406}, std[3] = {0.229, 0.224, 0.225};
  std::vector<Tensor> channels;
  for (int64_t c = 0; c < 3; ++c)
    channels.push_back(x.select(1, c).unsqueeze(1) * (std[c] / 0.5) + (mean[c] - 0.5) / 0.5);
  return cat(channels, 1);
}

}  // namespace ember::models::detail
