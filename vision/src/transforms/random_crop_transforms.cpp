// RandomCrop and RandomResizedCrop.
#include <cmath>

#include <ember/ops/random.h>

#include "ember/vision/transforms/geometry.h"
#include "transforms/geometry_options.h"

namespace ember::vision::transforms {
namespace {

int64_t height_of(const Tensor& image, const char* type) {
  EMBER_CHECK(image.defined() && image.dim() >= 2, type, ": expected an image [..., C, H, W], got ",
              image.defined() ? image.sizes() : IntArrayRef{});
  return image.size(-2);
}

// Python's int(round(x)): half to even.
int64_t round_half_even(double x) { return static_cast<int64_t>(std::nearbyint(x)); }

}  // namespace

// ---- RandomCrop ----

RandomCropImpl::RandomCropImpl(const Options& options)
    : TransformImpl("RandomCrop"), options_(options), size_(detail::setup_size(options.size, "RandomCrop")) {
  const auto& p = options_.padding;
  EMBER_CHECK(p.empty() || p.size() == 1 || p.size() == 2 || p.size() == 4,
              "RandomCrop: padding must be None, one value, two or four, got ", detail::format_list(p));
  const auto& mode = options_.padding_mode;
  EMBER_CHECK(mode == "constant" || mode == "edge" || mode == "reflect" || mode == "symmetric",
              "RandomCrop: padding_mode must be constant, edge, reflect or symmetric, got '", mode, "'");
  detail::check_fill({options_.fill}, "RandomCrop");
}

RandomCropImpl::RandomCropImpl(int64_t size) : RandomCropImpl(Options{{size}}) {}

std::array<int64_t, 4> RandomCropImpl::get_params(const Tensor& image, const std::array<int64_t, 2>& output_size,
                                                  Generator* generator) {
  const int64_t h = height_of(image, "RandomCrop"), w = image.size(-1);
  const auto [th, tw] = output_size;
  EMBER_CHECK(th > 0 && tw > 0, "RandomCrop: crop size must be positive, got (", th, ", ", tw, ")");
  EMBER_CHECK(h >= th && w >= tw, "RandomCrop: required crop size (", th, ", ", tw,
              ") is larger than the input image size (", h, ", ", w, ")");
  if (w == tw && h == th) return {0, 0, h, w};
  const int64_t i = randint_scalar(0, h - th + 1, generator);
  const int64_t j = randint_scalar(0, w - tw + 1, generator);
  return {i, j, th, tw};
}

Tensor RandomCropImpl::forward(const Tensor& image) {
  Tensor img = image;
  if (!options_.padding.empty()) img = functional::pad(img, options_.padding, options_.fill, options_.padding_mode);
  const int64_t height = height_of(img, "RandomCrop"), width = img.size(-1);
  if (options_.pad_if_needed && width < size_[1])
    img = functional::pad(img, {size_[1] - width, 0}, options_.fill, options_.padding_mode);
  if (options_.pad_if_needed && height < size_[0])
    img = functional::pad(img, {0, size_[0] - height}, options_.fill, options_.padding_mode);
  const auto [i, j, h, w] = get_params(img, size_);
  return functional::crop(img, i, j, h, w);
}

Params RandomCropImpl::params() const {
  return {{"size", detail::int_list(options_.size)},
          {"padding", detail::int_list_or_none(options_.padding)},
          {"pad_if_needed", options_.pad_if_needed},
          {"fill", options_.fill},
          {"padding_mode", options_.padding_mode}};
}

// ---- RandomResizedCrop ----

RandomResizedCropImpl::RandomResizedCropImpl(const Options& options)
    : TransformImpl("RandomResizedCrop"),
      options_(options),
      size_(detail::setup_size(options.size, "RandomResizedCrop")) {
  detail::checked_range(options_.scale, "RandomResizedCrop", "scale");
  detail::checked_range(options_.ratio, "RandomResizedCrop", "ratio");
  EMBER_CHECK(options_.scale[0] >= 0, "RandomResizedCrop: scale must be non-negative, got (", options_.scale[0],
              ", ", options_.scale[1], ")");
  EMBER_CHECK(options_.ratio[0] > 0, "RandomResizedCrop: ratio must be positive, got (", options_.ratio[0], ", ",
              options_.ratio[1], ")");
  EMBER_CHECK(!options_.antialias.value_or(false) || options_.interpolation != InterpolationMode::Nearest,
              "RandomResizedCrop: antialias is supported for bilinear and bicubic interpolation only, got nearest");
}

RandomResizedCropImpl::RandomResizedCropImpl(int64_t size) : RandomResizedCropImpl(Options{{size}}) {}

std::array<int64_t, 4> RandomResizedCropImpl::get_params(const Tensor& image, const std::array<double, 2>& scale,
                                                         const std::array<double, 2>& ratio, Generator* generator) {
  const int64_t height = height_of(image, "RandomResizedCrop"), width = image.size(-1);
  detail::checked_range(scale, "RandomResizedCrop", "scale");
  detail::checked_range(ratio, "RandomResizedCrop", "ratio");
  EMBER_CHECK(ratio[0] > 0, "RandomResizedCrop: ratio must be positive, got (", ratio[0], ", ", ratio[1], ")");
  const double area = static_cast<double>(height * width);
  const double log_lo = std::log(ratio[0]), log_hi = std::log(ratio[1]);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * uniform_scalar(scale[0], scale[1], generator);
    const double aspect_ratio = std::exp(uniform_scalar(log_lo, log_hi, generator));
    const int64_t w = round_half_even(std::sqrt(target_area * aspect_ratio));
    const int64_t h = round_half_even(std::sqrt(target_area / aspect_ratio));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const int64_t i = randint_scalar(0, height - h + 1, generator);
      const int64_t j = randint_scalar(0, width - w + 1, generator);
      return {i, j, h, w};
    }
  }
  // Fallback to the central crop.
  const double in_ratio = static_cast<double>(width) / static_cast<double>(height);
  int64_t w, h;
  if (in_ratio < ratio[0]) {
    w = width;
    h = round_half_even(static_cast<double>(w) / ratio[0]);
  } else if (in_ratio > ratio[1]) {
    h = height;
    w = round_half_even(static_cast<double>(h) * ratio[1]);
  } else {
    w = width;
    h = height;
  }
  return {(height - h) / 2, (width - w) / 2, h, w};
}

Tensor RandomResizedCropImpl::forward(const Tensor& image) {
  const auto [i, j, h, w] = get_params(image, options_.scale, options_.ratio);
  // size {s} means s x s here (torchvision's _setup_size), not the smaller edge.
  return functional::resized_crop(image, i, j, h, w, {size_[0], size_[1]}, options_.interpolation,
                                  options_.antialias);
}

Params RandomResizedCropImpl::params() const {
  return {{"size", detail::int_list(options_.size)},
          {"scale", std::vector<double>{options_.scale[0], options_.scale[1]}},
          {"ratio", std::vector<double>{options_.ratio[0], options_.ratio[1]}},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"antialias", options_.antialias}};
}

}  // namespace ember::vision::transforms
