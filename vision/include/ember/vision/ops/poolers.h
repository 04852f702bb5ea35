#pragma once
// torchvision.ops.MultiScaleRoIAlign and its LevelMapper (FPN paper, eq. 1):
// each box is pooled with roi_align from the pyramid level that matches its size.
//
//   vision::ops::MultiScaleRoIAlign pooler({"0", "1", "2", "3"}, 7, 2);
//   Tensor pooled = pooler->forward(features, proposals, image_sizes);   // [sum Ki, C, 7, 7]
#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/core/tensor.h>
#include <ember/nn/module.h>

#include "ember/vision/ops/roi_pooling.h"

namespace ember::vision::ops {

// Level of each box: floor(canonical_level + log2(sqrt(area) / canonical_scale)
// + eps) clamped to [k_min, k_max], minus k_min (int64 [sum Ki]).
struct LevelMapper {
  int64_t k_min, k_max;
  double canonical_scale = 224, canonical_level = 4, eps = 1e-6;
  Tensor operator()(const std::vector<Tensor>& boxes) const;
};

class MultiScaleRoIAlignImpl : public nn::Module {
 public:
  // featmap_names: the feature maps used, by name (in the features' order,
  // not this list's, as torchvision's). sampling_ratio as roi_align's; aligned=False.
  MultiScaleRoIAlignImpl(std::vector<std::string> featmap_names, const ExpandingInts& output_size,
                         int64_t sampling_ratio, double canonical_scale = 224, double canonical_level = 4);
  // x: the feature maps by name (finest first); boxes: [Ki, 4] per image;
  // image_shapes: each image's (height, width) before batching. The scales
  // (2^round(log2(feature size / image size))) and the level range are
  // inferred on the first call and kept, as torchvision's. Returns
  // [sum Ki, C, PH, PW], zeros for no boxes.
  Tensor forward(const OrderedDict<Tensor>& x, const std::vector<Tensor>& boxes,
                 const std::vector<std::array<int64_t, 2>>& image_shapes);
  void pretty_print(std::ostream& os) const override;

  std::vector<std::string> featmap_names;
  std::vector<int64_t> output_size;
  int64_t sampling_ratio;
  double canonical_scale, canonical_level;
  // Set by the first forward.
  std::vector<double> scales;
  std::optional<LevelMapper> map_levels;
};
EMBER_MODULE(MultiScaleRoIAlign);

}  // namespace ember::vision::ops
