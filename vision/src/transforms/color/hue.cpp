// adjust_hue (hue_slot, kernels/slots/color_kernels.h; the arithmetic is in
// kernels/cpu/hue_kernels.cpp), on any device whose backend fills the slot.
#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "kernels/slots/color_kernels.h"
#include "transforms/color/image.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(hue_slot, ImageScalarFn, "vision.hue");

}  // namespace ember::vision

namespace ember::vision::transforms::functional {

Tensor adjust_hue(const Tensor& img, double hue_factor) {
  const char* op = "adjust_hue";
  EMBER_CHECK(hue_factor >= -0.5 && hue_factor <= 0.5, op, ": hue_factor (", hue_factor,
              ") is not in [-0.5, 0.5]");
  const auto g = detail::image_geometry(img, op, 2);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
  if (g.channels == 1) return img;  // torchvision (and PIL): a gray image has no hue
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_hue(x, hue_factor); });
  detail::check_kernel(hue_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  if (g.numel() == 0) return out;
  hue_slot(img.device())(out, detail::contiguous_image(img), hue_factor);
  return out;
}

}  // namespace ember::vision::transforms::functional
