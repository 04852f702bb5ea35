// adjust_brightness, adjust_contrast, adjust_saturation, adjust_gamma,
// adjust_sharpness: checks, outputs on the input's device, and the color
// slots (kernels/slots/color_kernels.h; the arithmetic: kernels/cpu/adjust_kernels.cpp),
// on any device whose backend fills them.
#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "kernels/slots/color_kernels.h"
#include "transforms/color/image.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(brightness_slot, ImageScalarFn, "vision.brightness");
EMBER_DEFINE_SLOT(contrast_slot, ImageScalarFn, "vision.contrast");
EMBER_DEFINE_SLOT(saturation_slot, ImageScalarFn, "vision.saturation");
EMBER_DEFINE_SLOT(gamma_slot, GammaFn, "vision.gamma");
EMBER_DEFINE_SLOT(sharpness_slot, ImageScalarFn, "vision.sharpness");

}  // namespace ember::vision

namespace ember::vision::transforms::functional {
namespace {

using detail::ImageGeometry;

void check_factor(double factor, const char* op, const char* name) {
  EMBER_CHECK(factor >= 0, op, ": ", name, " (", factor, ") must be non-negative");
}

ImageGeometry checked_image(const Tensor& img, const char* op, int64_t min_dim) {
  const auto g = detail::image_geometry(img, op, min_dim);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
  return g;
}

}  // namespace

Tensor adjust_brightness(const Tensor& img, double brightness_factor) {
  const char* op = "adjust_brightness";
  check_factor(brightness_factor, op, "brightness_factor");
  checked_image(img, op, 2);
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_brightness(x, brightness_factor); });
  detail::check_kernel(brightness_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  brightness_slot(img.device())(out, img, brightness_factor);
  return out;
}

Tensor adjust_contrast(const Tensor& img, double contrast_factor) {
  const char* op = "adjust_contrast";
  check_factor(contrast_factor, op, "contrast_factor");
  const auto g = checked_image(img, op, 3);
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_contrast(x, contrast_factor); });
  detail::check_kernel(contrast_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  if (g.numel() == 0) return out;
  contrast_slot(img.device())(out, detail::contiguous_image(img), contrast_factor);
  return out;
}

Tensor adjust_saturation(const Tensor& img, double saturation_factor) {
  const char* op = "adjust_saturation";
  check_factor(saturation_factor, op, "saturation_factor");
  const auto g = checked_image(img, op, 2);
  if (g.channels == 1) return img;  // torchvision (and PIL): nothing to desaturate
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_saturation(x, saturation_factor); });
  detail::check_kernel(saturation_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  if (g.numel() == 0) return out;
  saturation_slot(img.device())(out, detail::contiguous_image(img), saturation_factor);
  return out;
}

Tensor adjust_gamma(const Tensor& img, double gamma, double gain) {
  const char* op = "adjust_gamma";
  checked_image(img, op, 2);
  EMBER_CHECK(gamma >= 0, op, ": gamma (", gamma, ") must be a non-negative real number");
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_gamma(x, gamma, gain); });
  detail::check_kernel(gamma_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  gamma_slot(img.device())(out, img, gamma, gain);
  return out;
}

Tensor adjust_sharpness(const Tensor& img, double sharpness_factor) {
  const char* op = "adjust_sharpness";
  check_factor(sharpness_factor, op, "sharpness_factor");
  const auto g = checked_image(img, op, 3);
  if (g.width <= 2 || g.height <= 2) return img;
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_sharpness(x, sharpness_factor); });
  detail::check_kernel(sharpness_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  if (g.numel() == 0) return out;
  sharpness_slot(img.device())(out, detail::contiguous_image(img), sharpness_factor);
  return out;
}

}  // namespace ember::vision::transforms::functional
