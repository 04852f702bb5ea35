#pragma once
// torchvision.models.detection.transform.GeneralizedRCNNTransform: what a
// detection model does to its input images and targets before the backbone
// (normalize, resize to min_size / max_size, pad into one batch), and to its
// detections after (boxes back to the original image sizes).
//
//   detection::GeneralizedRCNNTransform t({.min_size = {800}, .max_size = 1333,
//                                          .image_mean = {0.485, 0.456, 0.406},
//                                          .image_std = {0.229, 0.224, 0.225}});
//   auto [batch, targets] = t->forward(images, targets);   // batch.tensors [N, 3, H32, W32]
//   detections = t->postprocess(detections, batch.image_sizes, original_sizes);
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <ember/core/generator.h>
#include <ember/models/detection/image_list.h>
#include <ember/nn/module.h>
#include <ember/vision/detection/target.h>

namespace ember::models::detection {

using vision::detection::Target;

struct GeneralizedRCNNTransformOptions {
  // Shorter-side sizes: training draws one at random per image, eval uses the last.
  std::vector<int64_t> min_size{800};
  int64_t max_size = 1333;  // the longer side never exceeds it
  std::vector<double> image_mean{0.485, 0.456, 0.406};
  std::vector<double> image_std{0.229, 0.224, 0.225};
  int64_t size_divisible = 32;  // the batch's height and width are multiples of it
  // (width, height), as torchvision's: resize every image to it instead.
  std::optional<std::pair<int64_t, int64_t>> fixed_size = std::nullopt;
};

class GeneralizedRCNNTransformImpl : public nn::Module {
 public:
  explicit GeneralizedRCNNTransformImpl(GeneralizedRCNNTransformOptions options = {});

  // images: float [C, H, W] each (any sizes); targets: none, or one per image
  // (its "boxes" resized with the image, "masks" and "keypoints" too).
  std::pair<ImageList, std::vector<Target>> forward(std::vector<Tensor> images,
                                                     std::vector<Target> targets = {});

  // (image - mean) / std per channel; floating point images only.
  Tensor normalize(const Tensor& image) const;
  // Bilinear resize with torchvision's scale: min(min_size / shorter side,
  // max_size / longer side) in float32, output floor(side * scale).
  std::pair<Tensor, std::optional<Target>> resize(const Tensor& image, std::optional<Target> target);
  // Zero-pads the images to one [N, C, H, W], H and W the largest rounded up
  // to a multiple of size_divisible.
  Tensor batch_images(const std::vector<Tensor>& images) const;
  // Detections' "boxes" (and "keypoints") from the resized image_shapes back to
  // original_image_sizes; in training mode, the results unchanged.
  std::vector<Target> postprocess(std::vector<Target> result,
                                  const std::vector<std::pair<int64_t, int64_t>>& image_shapes,
                                  const std::vector<std::pair<int64_t, int64_t>>& original_image_sizes) const;

  // The generator of training's random min_size choice (nullptr: the default one).
  void set_generator(Generator* generator) { generator_ = generator; }

  void pretty_print(std::ostream& os) const override;

  GeneralizedRCNNTransformOptions options;

 private:
  Generator* generator_ = nullptr;
};
EMBER_MODULE(GeneralizedRCNNTransform);

// transform.resize_boxes: [N, 4] boxes scaled by new / original (height, width),
// the ratios in float32.
Tensor resize_boxes(const Tensor& boxes, std::pair<int64_t, int64_t> original_size,
                    std::pair<int64_t, int64_t> new_size);
// transform.resize_keypoints: [N, K, 3] keypoints' x and y scaled the same way.
Tensor resize_keypoints(const Tensor& keypoints, std::pair<int64_t, int64_t> original_size,
                        std::pair<int64_t, int64_t> new_size);

}  // namespace ember::models::detection
