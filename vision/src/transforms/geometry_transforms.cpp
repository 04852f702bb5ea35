// Resize, CenterCrop, FiveCrop, TenCrop, Pad and the random flips.
#include "ember/vision/transforms/geometry.h"

#include <ember/ops/random.h>
#include <ember/ops/shape.h>

#include "transforms/geometry_options.h"

namespace ember::vision::transforms {

// ---- Resize ----

ResizeImpl::ResizeImpl(const Options& options) : TransformImpl("Resize"), options_(options) {
  EMBER_CHECK(options_.size.size() == 1 || options_.size.size() == 2,
              "Resize: size must be one value (the smaller edge) or (h, w), got ", detail::format_list(options_.size));
  for (int64_t s : options_.size)
    EMBER_CHECK(s > 0, "Resize: size must be positive, got ", detail::format_list(options_.size));
  EMBER_CHECK(!options_.max_size || options_.size.size() == 1, "Resize: max_size (", options_.max_size.value_or(0),
              ") is only allowed when size is one value, got size ", detail::format_list(options_.size));
  EMBER_CHECK(!options_.max_size || *options_.max_size > options_.size[0], "Resize: max_size = ",
              options_.max_size.value_or(0), " must be greater than the smaller edge size ", options_.size[0]);
  EMBER_CHECK(!options_.antialias.value_or(false) || options_.interpolation != InterpolationMode::Nearest,
              "Resize: antialias is supported for bilinear and bicubic interpolation only, got nearest");
}

ResizeImpl::ResizeImpl(int64_t size, InterpolationMode interpolation, std::optional<int64_t> max_size,
                       std::optional<bool> antialias)
    : ResizeImpl(Options{{size}, interpolation, max_size, antialias}) {}

Tensor ResizeImpl::forward(const Tensor& image) {
  return functional::resize(image, options_.size, options_.interpolation, options_.max_size, options_.antialias);
}

Params ResizeImpl::params() const {
  return {{"size", detail::int_list(options_.size)},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"max_size", options_.max_size},
          {"antialias", options_.antialias}};
}

// ---- CenterCrop ----

CenterCropImpl::CenterCropImpl(const Options& options) : TransformImpl("CenterCrop"), options_(options) {
  detail::setup_size(options_.size, "CenterCrop");
}

CenterCropImpl::CenterCropImpl(int64_t size) : CenterCropImpl(Options{{size}}) {}

Tensor CenterCropImpl::forward(const Tensor& image) { return functional::center_crop(image, options_.size); }

Params CenterCropImpl::params() const { return {{"size", detail::int_list(options_.size)}}; }

// ---- FiveCrop / TenCrop ----

FiveCropImpl::FiveCropImpl(const Options& options) : TransformImpl("FiveCrop"), options_(options) {
  detail::setup_size(options_.size, "FiveCrop");
}

FiveCropImpl::FiveCropImpl(int64_t size) : FiveCropImpl(Options{{size}}) {}

Tensor FiveCropImpl::forward(const Tensor& image) { return stack(functional::five_crop(image, options_.size), 0); }

Params FiveCropImpl::params() const { return {{"size", detail::int_list(options_.size)}}; }

TenCropImpl::TenCropImpl(const Options& options) : TransformImpl("TenCrop"), options_(options) {
  detail::setup_size(options_.size, "TenCrop");
}

TenCropImpl::TenCropImpl(int64_t size, bool vertical_flip) : TenCropImpl(Options{{size}, vertical_flip}) {}

Tensor TenCropImpl::forward(const Tensor& image) {
  return stack(functional::ten_crop(image, options_.size, options_.vertical_flip), 0);
}

Params TenCropImpl::params() const {
  return {{"size", detail::int_list(options_.size)}, {"vertical_flip", options_.vertical_flip}};
}

// ---- Pad ----

PadImpl::PadImpl(const Options& options) : TransformImpl("Pad"), options_(options) {
  const auto& p = options_.padding;
  EMBER_CHECK(p.size() == 1 || p.size() == 2 || p.size() == 4,
              "Pad: padding must be one value, (left/right, top/bottom) or (left, top, right, bottom), got ",
              detail::format_list(p));
  const auto& mode = options_.padding_mode;
  EMBER_CHECK(mode == "constant" || mode == "edge" || mode == "reflect" || mode == "symmetric",
              "Pad: padding_mode must be constant, edge, reflect or symmetric, got '", mode, "'");
  detail::check_fill({options_.fill}, "Pad");
}

PadImpl::PadImpl(int64_t padding, double fill, std::string padding_mode)
    : PadImpl(Options{{padding}, fill, std::move(padding_mode)}) {}

Tensor PadImpl::forward(const Tensor& image) {
  return functional::pad(image, options_.padding, options_.fill, options_.padding_mode);
}

Params PadImpl::params() const {
  return {{"padding", detail::int_list(options_.padding)},
          {"fill", options_.fill},
          {"padding_mode", options_.padding_mode}};
}

// ---- flips ----

RandomHorizontalFlipImpl::RandomHorizontalFlipImpl(const Options& options) : RandomHorizontalFlipImpl(options.p) {}

RandomHorizontalFlipImpl::RandomHorizontalFlipImpl(double p) : TransformImpl("RandomHorizontalFlip"), p_(p) {
  detail::check_probability(p, "RandomHorizontalFlip");
}

Tensor RandomHorizontalFlipImpl::forward(const Tensor& image) {
  // torchvision: `if torch.rand(1) < self.p: return F.hflip(img)`.
  if (uniform_scalar(0, 1) < p_) return functional::hflip(image);
  return image;
}

RandomVerticalFlipImpl::RandomVerticalFlipImpl(const Options& options) : RandomVerticalFlipImpl(options.p) {}

RandomVerticalFlipImpl::RandomVerticalFlipImpl(double p) : TransformImpl("RandomVerticalFlip"), p_(p) {
  detail::check_probability(p, "RandomVerticalFlip");
}

Tensor RandomVerticalFlipImpl::forward(const Tensor& image) {
  if (uniform_scalar(0, 1) < p_) return functional::vflip(image);
  return image;
}

}  // namespace ember::vision::transforms
