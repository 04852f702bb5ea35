// invert, posterize, solarize: functions of one value (kernels/slots/color_kernels.h),
// on any device whose backend fills the slots.
#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "kernels/slots/color_kernels.h"
#include "transforms/color/image.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(invert_slot, ImageMapFn, "vision.invert");
EMBER_DEFINE_SLOT(posterize_slot, PosterizeFn, "vision.posterize");
EMBER_DEFINE_SLOT(solarize_slot, ImageScalarFn, "vision.solarize");

}  // namespace ember::vision

namespace ember::vision::transforms::functional {
namespace {

void check_pointwise_image(const Tensor& img, const char* op) {
  const auto g = detail::image_geometry(img, op, 3);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
}

}  // namespace

Tensor invert(const Tensor& img) {
  check_pointwise_image(img, "invert");
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [](const Tensor& x) { return invert(x); });
  detail::check_kernel(invert_slot, img, "invert");
  Tensor out = empty(img.sizes(), img.options());
  invert_slot(img.device())(out, img);
  return out;
}

Tensor posterize(const Tensor& img, int64_t bits) {
  EMBER_CHECK(bits >= 0 && bits <= 8, "posterize: the number of bits must be between 0 and 8, got ", bits);
  check_pointwise_image(img, "posterize");
  EMBER_CHECK(img.dtype() == DType::UInt8, "posterize: only uint8 images are supported, got ", img.dtype());
  detail::check_kernel(posterize_slot, img, "posterize");
  Tensor out = empty(img.sizes(), img.options());
  posterize_slot(img.device())(out, img, bits);
  return out;
}

Tensor solarize(const Tensor& img, double threshold) {
  check_pointwise_image(img, "solarize");
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return solarize(x, threshold); });
  const double bound = img.dtype() == DType::UInt8 ? 255.0 : 1.0;
  EMBER_CHECK(threshold <= bound, "solarize: threshold (", threshold, ") must not exceed the largest value of a ",
              img.dtype(), " image (", bound, ")");
  detail::check_kernel(solarize_slot, img, "solarize");
  Tensor out = empty(img.sizes(), img.options());
  solarize_slot(img.device())(out, img, threshold);
  return out;
}

}  // namespace ember::vision::transforms::functional
