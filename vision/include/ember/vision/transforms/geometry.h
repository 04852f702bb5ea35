#pragma once
// Geometry transforms, as torchvision 0.14's (torchvision.transforms) on
// tensors: Resize, CenterCrop, RandomCrop, RandomResizedCrop, FiveCrop,
// TenCrop, Pad, RandomHorizontalFlip, RandomVerticalFlip, RandomRotation,
// RandomAffine, RandomPerspective, RandomErasing.
//
// Each has an Options struct with torchvision's keyword names and defaults,
// so both spellings work:
//   transforms::Resize(256)
//   transforms::Resize({.size = {224, 224}, .antialias = true})
//   transforms::RandomResizedCrop({.size = {224}, .scale = {0.25, 1.0}})
// Random transforms draw from default_generator() (see transform.h), in
// torchvision's order; their static get_params(...) draws the same
// parameters from a given generator (nullptr: the default one), and forward
// equals the functional applied with them.
//
// Lists that torchvision lets be None are std::vector, empty meaning None
// (RandomCrop's padding, RandomAffine's translate / scale / shear,
// RandomRotation's center...). fill is one value or one per channel.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/generator.h>

#include "ember/vision/transforms/functional/geometry.h"
#include "ember/vision/transforms/interpolation.h"
#include "ember/vision/transforms/transform.h"

namespace ember::vision::transforms {

// ---- Resize ----
struct ResizeOptions {
  std::vector<int64_t> size;  // {s}: the smaller edge becomes s; {h, w}
  InterpolationMode interpolation = InterpolationMode::Bilinear;
  std::optional<int64_t> max_size = std::nullopt;  // cap on the longer edge (with {s} only)
  std::optional<bool> antialias = std::nullopt;    // None: false on tensors, as torchvision 0.14
};
class ResizeImpl : public TransformImpl {
 public:
  using Options = ResizeOptions;
  explicit ResizeImpl(const Options& options);
  explicit ResizeImpl(int64_t size, InterpolationMode interpolation = InterpolationMode::Bilinear,
                      std::optional<int64_t> max_size = std::nullopt, std::optional<bool> antialias = std::nullopt);
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(Resize);

// ---- CenterCrop ----
struct CenterCropOptions {
  std::vector<int64_t> size;  // {s}: s x s; {h, w}. Larger than the image: zero padded.
};
class CenterCropImpl : public TransformImpl {
 public:
  using Options = CenterCropOptions;
  explicit CenterCropImpl(const Options& options);
  explicit CenterCropImpl(int64_t size);
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(CenterCrop);

// ---- RandomCrop ----
struct RandomCropOptions {
  std::vector<int64_t> size;               // {s}: s x s; {h, w}
  std::vector<int64_t> padding = {};       // None, or pad()'s 1, 2 or 4 values, applied first
  bool pad_if_needed = false;              // pad an image smaller than size
  double fill = 0;                         // for padding_mode "constant"
  std::string padding_mode = "constant";   // constant, edge, reflect, symmetric
};
class RandomCropImpl : public TransformImpl {
 public:
  using Options = RandomCropOptions;
  explicit RandomCropImpl(const Options& options);
  explicit RandomCropImpl(int64_t size);
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }
  // {top, left, height, width} of a crop of output_size {h, w}, uniformly placed.
  static std::array<int64_t, 4> get_params(const Tensor& image, const std::array<int64_t, 2>& output_size,
                                           Generator* generator = nullptr);

 private:
  Options options_;
  std::array<int64_t, 2> size_{};
};
EMBER_TRANSFORM(RandomCrop);

// ---- RandomResizedCrop ----
struct RandomResizedCropOptions {
  std::vector<int64_t> size;                        // {s}: s x s; {h, w}
  std::array<double, 2> scale = {0.08, 1.0};        // of the crop's area to the image's
  std::array<double, 2> ratio = {3.0 / 4.0, 4.0 / 3.0};  // of the crop's width to its height (log-uniform)
  InterpolationMode interpolation = InterpolationMode::Bilinear;
  std::optional<bool> antialias = std::nullopt;
};
class RandomResizedCropImpl : public TransformImpl {
 public:
  using Options = RandomResizedCropOptions;
  explicit RandomResizedCropImpl(const Options& options);
  explicit RandomResizedCropImpl(int64_t size);
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }
  // {top, left, height, width}: up to 10 tries of a random area and aspect
  // ratio that fit in the image, else the central crop of the ratio clamped
  // to the range (torchvision's fallback).
  static std::array<int64_t, 4> get_params(const Tensor& image, const std::array<double, 2>& scale,
                                           const std::array<double, 2>& ratio, Generator* generator = nullptr);

 private:
  Options options_;
  std::array<int64_t, 2> size_{};
};
EMBER_TRANSFORM(RandomResizedCrop);

// ---- FiveCrop / TenCrop ----
// torchvision returns a tuple of crops; here forward stacks them along a new
// leading dim: [5 (or 10), ..., C, h, w] (what torchvision users build with a
// Lambda after FiveCrop). functional::five_crop / ten_crop return the list.
struct FiveCropOptions {
  std::vector<int64_t> size;  // {s}: s x s; {h, w}
};
class FiveCropImpl : public TransformImpl {
 public:
  using Options = FiveCropOptions;
  explicit FiveCropImpl(const Options& options);
  explicit FiveCropImpl(int64_t size);
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(FiveCrop);

struct TenCropOptions {
  std::vector<int64_t> size;   // {s}: s x s; {h, w}
  bool vertical_flip = false;  // flip vertically instead of horizontally for the second five
};
class TenCropImpl : public TransformImpl {
 public:
  using Options = TenCropOptions;
  explicit TenCropImpl(const Options& options);
  explicit TenCropImpl(int64_t size, bool vertical_flip = false);
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(TenCrop);

// ---- Pad ----
struct PadOptions {
  std::vector<int64_t> padding;           // 1, 2 or 4 values (see functional::pad)
  double fill = 0;
  std::string padding_mode = "constant";  // constant, edge, reflect, symmetric
};
class PadImpl : public TransformImpl {
 public:
  using Options = PadOptions;
  explicit PadImpl(const Options& options);
  explicit PadImpl(int64_t padding, double fill = 0, std::string padding_mode = "constant");
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(Pad);

// ---- RandomHorizontalFlip / RandomVerticalFlip ----
struct RandomFlipOptions {
  double p = 0.5;  // probability of flipping
};
class RandomHorizontalFlipImpl : public TransformImpl {
 public:
  using Options = RandomFlipOptions;
  explicit RandomHorizontalFlipImpl(const Options& options);
  explicit RandomHorizontalFlipImpl(double p = 0.5);
  Tensor forward(const Tensor& image) override;
  Params params() const override { return {{"p", p_}}; }
  double p() const { return p_; }

 private:
  double p_;
};
EMBER_TRANSFORM(RandomHorizontalFlip);

class RandomVerticalFlipImpl : public TransformImpl {
 public:
  using Options = RandomFlipOptions;
  explicit RandomVerticalFlipImpl(const Options& options);
  explicit RandomVerticalFlipImpl(double p = 0.5);
  Tensor forward(const Tensor& image) override;
  Params params() const override { return {{"p", p_}}; }
  double p() const { return p_; }

 private:
  double p_;
};
EMBER_TRANSFORM(RandomVerticalFlip);

// ---- RandomRotation ----
struct RandomRotationOptions {
  std::vector<double> degrees;  // {d}: uniform in [-d, d]; {min, max}
  InterpolationMode interpolation = InterpolationMode::Nearest;
  bool expand = false;
  std::vector<double> center = {};  // None (the image center) or {x, y}
  std::vector<double> fill = {0};   // one value or one per channel
};
class RandomRotationImpl : public TransformImpl {
 public:
  using Options = RandomRotationOptions;
  explicit RandomRotationImpl(const Options& options);
  explicit RandomRotationImpl(double degrees);
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }
  // An angle uniform in [degrees[0], degrees[1]).
  static double get_params(const std::array<double, 2>& degrees, Generator* generator = nullptr);

 private:
  Options options_;
  std::array<double, 2> degrees_{};
};
EMBER_TRANSFORM(RandomRotation);

// ---- RandomAffine ----
struct RandomAffineOptions {
  std::vector<double> degrees;       // {d}: [-d, d]; {min, max}
  std::vector<double> translate = {};  // None, or {a, b}: |dx| <= a * width, |dy| <= b * height
  std::vector<double> scale = {};      // None, or {min, max}
  std::vector<double> shear = {};      // None; {s}: x in [-s, s]; {min, max} (x); {xmin, xmax, ymin, ymax}
  InterpolationMode interpolation = InterpolationMode::Nearest;
  std::vector<double> fill = {0};
  std::vector<double> center = {};
};
struct AffineParams {
  double angle = 0;
  std::array<int64_t, 2> translate{};  // pixels
  double scale = 1;
  std::array<double, 2> shear{};  // degrees
};
class RandomAffineImpl : public TransformImpl {
 public:
  using Options = RandomAffineOptions;
  explicit RandomAffineImpl(const Options& options);
  explicit RandomAffineImpl(double degrees);
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }
  // torchvision's draws: the angle, then the translation (when given, rounded
  // to pixels), the scale, the x shear and the y shear (when given).
  // img_size is {width, height}.
  static AffineParams get_params(const std::array<double, 2>& degrees,
                                 const std::optional<std::array<double, 2>>& translate,
                                 const std::optional<std::array<double, 2>>& scale_ranges,
                                 const std::vector<double>& shears, const std::array<int64_t, 2>& img_size,
                                 Generator* generator = nullptr);

 private:
  Options options_;
  std::array<double, 2> degrees_{};
  std::vector<double> shear_;  // empty, or 2 or 4 values
};
EMBER_TRANSFORM(RandomAffine);

// ---- RandomPerspective ----
struct RandomPerspectiveOptions {
  double distortion_scale = 0.5;  // in [0, 1]
  double p = 0.5;
  InterpolationMode interpolation = InterpolationMode::Bilinear;
  std::vector<double> fill = {0};
};
class RandomPerspectiveImpl : public TransformImpl {
 public:
  using Options = RandomPerspectiveOptions;
  explicit RandomPerspectiveImpl(const Options& options = {});
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }
  // {startpoints, endpoints}: the image corners and each corner moved inwards
  // by up to distortion_scale * half the size.
  static std::pair<std::vector<functional::Point>, std::vector<functional::Point>> get_params(
      int64_t width, int64_t height, double distortion_scale, Generator* generator = nullptr);

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomPerspective);

// ---- RandomErasing ----
struct RandomErasingOptions {
  double p = 0.5;
  std::array<double, 2> scale = {0.02, 0.33};  // of the erased area to the image's
  std::array<double, 2> ratio = {0.3, 3.3};    // of its height to its width (log-uniform)
  std::vector<double> value = {0};  // one value, one per channel, or {} for torchvision's "random" (normal noise)
  bool inplace = false;
};
struct ErasingParams {
  int64_t i = 0, j = 0, h = 0, w = 0;
  Tensor v;  // the values written, broadcast to [C, h, w]
};
class RandomErasingImpl : public TransformImpl {
 public:
  using Options = RandomErasingOptions;
  explicit RandomErasingImpl(const Options& options = {});
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }
  // Up to 10 tries of a region that fits strictly inside the image; when none
  // does, the whole image with v = image (erasing it with itself: no change).
  // value: nullopt for normal noise [C, h, w] (float32), else one or C values.
  static ErasingParams get_params(const Tensor& image, const std::array<double, 2>& scale,
                                  const std::array<double, 2>& ratio,
                                  const std::optional<std::vector<double>>& value, Generator* generator = nullptr);

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomErasing);

}  // namespace ember::vision::transforms
