// autocontrast and equalize (autocontrast_slot, equalize_slot:
// kernels/slots/color_kernels.h), on any device whose backend fills the slots.
#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "kernels/slots/color_kernels.h"
#include "transforms/color/image.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(autocontrast_slot, ImageMapFn, "vision.autocontrast");
EMBER_DEFINE_SLOT(equalize_slot, ImageMapFn, "vision.equalize");

}  // namespace ember::vision

namespace ember::vision::transforms::functional {

Tensor autocontrast(const Tensor& img) {
  const char* op = "autocontrast";
  const auto g = detail::image_geometry(img, op, 3);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [](const Tensor& x) { return autocontrast(x); });
  detail::check_kernel(autocontrast_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  if (g.numel() == 0) return out;
  autocontrast_slot(img.device())(out, detail::contiguous_image(img));
  return out;
}

Tensor equalize(const Tensor& img) {
  const char* op = "equalize";
  const auto g = detail::image_geometry(img, op, 3);
  detail::check_channels_1_or_3(g, op);
  EMBER_CHECK(img.dtype() == DType::UInt8, op, ": only uint8 images are supported, got ", img.dtype());
  detail::check_kernel(equalize_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  if (g.numel() == 0) return out;
  equalize_slot(img.device())(out, detail::contiguous_image(img));
  return out;
}

}  // namespace ember::vision::transforms::functional
