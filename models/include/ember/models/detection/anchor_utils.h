#pragma once
// torchvision.models.detection.anchor_utils.AnchorGenerator: anchors at every
// position of every feature map, sizes x aspect ratios per level.
//
//   detection::AnchorGenerator gen(detection::retinanet_anchor_generator());
//   std::vector<Tensor> anchors = gen->forward(image_list, feature_maps);  // [sum H*W*A, 4] per image
#include <cstdint>
#include <vector>

#include <ember/models/detection/image_list.h>
#include <ember/nn/module.h>

namespace ember::models::detection {

struct AnchorGeneratorOptions {
  // Per feature map: the anchor sizes (square roots of the areas, pixels).
  std::vector<std::vector<double>> sizes{{128, 256, 512}};
  // Per feature map: aspect ratios height / width. One list for all levels
  // is repeated (torchvision's (ratios,) * len(sizes)).
  std::vector<std::vector<double>> aspect_ratios{{0.5, 1.0, 2.0}};
};

// RetinaNet's: sizes (x, int(x 2^(1/3)), int(x 2^(2/3))) for x in 32, 64,
// 128, 256, 512, ratios 0.5, 1, 2 on each of the five levels.
AnchorGeneratorOptions retinanet_anchor_generator();

class AnchorGeneratorImpl : public nn::Module {
 public:
  explicit AnchorGeneratorImpl(AnchorGeneratorOptions options = {});

  // Zero-centred anchors [len(ratios) * len(scales), 4], ratio-major, as
  // torchvision computes them in float32: w = scale / sqrt(ratio),
  // h = scale * sqrt(ratio), (-w, -h, w, h) / 2 rounded half to even.
  static Tensor generate_anchors(const std::vector<double>& scales, const std::vector<double>& aspect_ratios);

  // Anchors per location of each level.
  std::vector<int64_t> num_anchors_per_location() const;
  // The cell anchors of each level (float32).
  const std::vector<Tensor>& cell_anchors() const { return cell_anchors_; }

  // Per level: the cell anchors shifted to every (y, x) of a grid_sizes[l]
  // grid spaced strides[l] (height, width) apart: [H * W * A, 4], rows by
  // position (y-major) then anchor.
  std::vector<Tensor> grid_anchors(const std::vector<std::pair<int64_t, int64_t>>& grid_sizes,
                                   const std::vector<std::pair<int64_t, int64_t>>& strides,
                                   DType dtype = kFloat32) const;

  // One tensor per image of image_list: every level's anchors concatenated,
  // in the feature maps' dtype. Strides are image size // feature size.
  std::vector<Tensor> forward(const ImageList& image_list, const std::vector<Tensor>& feature_maps) const;

  void pretty_print(std::ostream& os) const override;

  AnchorGeneratorOptions options;

 private:
  std::vector<Tensor> cell_anchors_;
};
EMBER_MODULE(AnchorGenerator);

}  // namespace ember::models::detection
