// rgb_to_grayscale (grayscale_slot, kernels/slots/color_kernels.h), on any
// device whose backend fills the slot.
#include <vector>

#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "kernels/slots/color_kernels.h"
#include "transforms/color/image.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(grayscale_slot, ImageMapFn, "vision.grayscale");

}  // namespace ember::vision

namespace ember::vision::transforms::functional {

Tensor rgb_to_grayscale(const Tensor& img, int64_t num_output_channels) {
  const char* op = "rgb_to_grayscale";
  const auto g = detail::image_geometry(img, op, 3);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
  EMBER_CHECK(num_output_channels == 1 || num_output_channels == 3, op,
              ": num_output_channels must be 1 or 3, got ", num_output_channels);
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return rgb_to_grayscale(x, num_output_channels); });
  detail::check_kernel(grayscale_slot, img, op);

  std::vector<int64_t> out_sizes(img.sizes().begin(), img.sizes().end());
  out_sizes[out_sizes.size() - 3] = num_output_channels;
  Tensor out = empty(out_sizes, img.options());
  if (g.numel() == 0) return out;
  grayscale_slot(img.device())(out, detail::contiguous_image(img));
  return out;
}

}  // namespace ember::vision::transforms::functional
