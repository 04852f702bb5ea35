#pragma once
// Detection transforms: the image and its target (boxes, labels, masks,
// keypoints) move together, as torchvision's references/detection/transforms.py
// (0.14) does for training RetinaNet, SSD and Faster R-CNN.
//
//   vision::detection::Compose train_tf({
//       vision::detection::RandomPhotometricDistort(),
//       vision::detection::RandomZoomOut({.fill = {123, 117, 104}}),
//       vision::detection::RandomIoUCrop(),
//       vision::detection::RandomHorizontalFlip(0.5)});
//   auto [image, target] = train_tf(image, target);   // image [C, H, W], target["boxes"] [N, 4] x1, y1, x2, y2
//
// Each random transform draws from the generator it is given (nullptr: the
// default generator); the deterministic step under it is a function of its
// own (hflip, crop, zoom_out, resize below). Entries of the target that hold
// one row per box ("labels", "masks", "keypoints", "area", "iscrowd",
// "scores") are filtered together with the boxes a crop drops; masks are
// cropped, padded and resized with the image (the references leave them as
// they are in RandomIoUCrop and RandomZoomOut, which breaks Mask R-CNN
// targets: Ember keeps them aligned). Other entries pass through unchanged.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <ember/core/generator.h>
#include <ember/core/tensor.h>
#include <ember/vision/detection/target.h>
#include <ember/vision/transforms/interpolation.h>

namespace ember::vision::detection {

using Sample = std::pair<Tensor, Target>;
// A transform of (image, target), drawing from the given generator.
using DetectionTransform = std::function<Sample(Tensor image, Target target, Generator* generator)>;

// ---- deterministic steps ----

// Mirrors image and target left-right: boxes x -> width - x (x1 and x2
// swapped), masks flipped, keypoints' x -> width - x, with COCO's person
// keypoints (17) swapping left and right and invisible ones (v = 0) zeroed,
// as torchvision's references.
Sample hflip(const Tensor& image, Target target);

// The crop [top, top + height) x [left, left + width) of the image. Boxes whose
// centre lies strictly inside it are kept (with their per-box entries),
// shifted and clamped to [0, width] x [0, height]; masks cropped.
Sample crop(const Tensor& image, Target target, int64_t top, int64_t left, int64_t height, int64_t width);

// The image placed at (left, top) on a canvas of canvas_height x canvas_width
// filled with `fill` (one value per channel, or one for all); boxes shifted;
// masks padded with zeros.
Sample zoom_out(const Tensor& image, Target target, int64_t canvas_height, int64_t canvas_width, int64_t top,
                int64_t left, const std::vector<double>& fill);

// The image resized to {height, width}; boxes scaled by width / W and height / H;
// masks resized with nearest.
Sample resize(const Tensor& image, Target target, int64_t height, int64_t width,
              transforms::InterpolationMode interpolation = transforms::InterpolationMode::Bilinear);

// ---- random transforms (references/detection/transforms.py) ----

// hflip with probability p.
class RandomHorizontalFlip {
 public:
  explicit RandomHorizontalFlip(double p = 0.5);
  Sample operator()(Tensor image, Target target, Generator* generator = nullptr) const;

 private:
  double p_;
};

struct RandomIoUCropOptions {
  double min_scale = 0.3;
  double max_scale = 1.0;
  double min_aspect_ratio = 0.5;
  double max_aspect_ratio = 2.0;
  // Minimum IoU of some kept box with the crop; a value >= 1 leaves the sample as it is.
  std::vector<double> sampler_options{0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0};
  int64_t trials = 40;
};

// SSD's crop: draws a minimum IoU, then up to `trials` crops of scale
// [min_scale, max_scale] per side and aspect ratio within bounds that keep the
// centre of some box and overlap one kept box by at least that IoU; draws
// again until one is found (or the option says leave as is).
class RandomIoUCrop {
 public:
  explicit RandomIoUCrop(RandomIoUCropOptions options = {});
  Sample operator()(Tensor image, Target target, Generator* generator = nullptr) const;

 private:
  RandomIoUCropOptions o_;
};

struct RandomZoomOutOptions {
  std::vector<double> fill{0.0, 0.0, 0.0};
  std::array<double, 2> side_range{1.0, 4.0};  // canvas side / image side
  double p = 0.5;
};

// With probability p: the image on a canvas side_range times as large, at a random place.
class RandomZoomOut {
 public:
  explicit RandomZoomOut(RandomZoomOutOptions options = {});
  Sample operator()(Tensor image, Target target, Generator* generator = nullptr) const;

 private:
  RandomZoomOutOptions o_;
};

struct RandomPhotometricDistortOptions {
  std::array<double, 2> contrast{0.5, 1.5};
  std::array<double, 2> saturation{0.5, 1.5};
  std::array<double, 2> hue{-0.05, 0.05};
  std::array<double, 2> brightness{0.875, 1.125};
  double p = 0.5;
};

// SSD's colour distortion: brightness, contrast (before or after),
// saturation and hue, each with probability p and a factor drawn uniformly
// from its range, then a random channel permutation with probability p.
// Boxes do not move.
class RandomPhotometricDistort {
 public:
  explicit RandomPhotometricDistort(RandomPhotometricDistortOptions options = {});
  Sample operator()(Tensor image, Target target, Generator* generator = nullptr) const;

 private:
  RandomPhotometricDistortOptions o_;
};

// Resizes to min(target_size / size) * a scale drawn from scale_range, keeping
// the aspect ratio (references' ScaleJitter; target_size as {height, width}).
class ScaleJitter {
 public:
  ScaleJitter(std::array<int64_t, 2> target_size, std::array<double, 2> scale_range = {0.1, 2.0},
              transforms::InterpolationMode interpolation = transforms::InterpolationMode::Bilinear);
  Sample operator()(Tensor image, Target target, Generator* generator = nullptr) const;

 private:
  std::array<int64_t, 2> target_size_;
  std::array<double, 2> scale_range_;
  transforms::InterpolationMode interpolation_;
};

// Applies transforms in order with one generator.
class Compose {
 public:
  explicit Compose(std::vector<DetectionTransform> transforms) : transforms_(std::move(transforms)) {}
  Sample operator()(Tensor image, Target target, Generator* generator = nullptr) const;

 private:
  std::vector<DetectionTransform> transforms_;
};

}  // namespace ember::vision::detection
