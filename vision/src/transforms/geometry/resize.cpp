// functional::resize: output size, checks and the choice of kernel slot
// (kernels/slots/geometry_kernels.h), on any device that fills them.
#include <cmath>

#include <ember/core/error.h>
#include <ember/ops/elementwise.h>

#include "ember/vision/transforms/functional/geometry.h"
#include "kernels/resample_weights.h"
#include "kernels/slots/geometry_kernels.h"
#include "transforms/geometry/image_layout.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(resize_slot, ResizeFn, "vision.resize");

}  // namespace ember::vision

namespace ember::vision::transforms::functional {
namespace {

using detail::BatchedImage;

Tensor resize_nearest(const BatchedImage& b, int64_t oh, int64_t ow) {
  const detail::ImageLayout& in = b.layout;
  BatchedImage out = detail::new_image_like(b, oh, ow, b.image.dtype());
  gather_pixels_slot(b.image.device())(out.image, b.image, detail::nearest_indices(in.height, oh),
                                       detail::nearest_indices(in.width, ow));
  return detail::unbatched(out);
}

// Bilinear or bicubic through the device's kernel.
Tensor resize_separable(const BatchedImage& b, int64_t oh, int64_t ow, InterpolationMode mode, bool antialias) {
  BatchedImage out = detail::new_image_like(b, oh, ow, b.image.dtype());
  resize_slot(b.image.device())(out.image, b.image, mode, antialias);
  return detail::unbatched(out);
}

}  // namespace

std::array<int64_t, 2> resized_output_size(int64_t height, int64_t width, const std::vector<int64_t>& size,
                                           std::optional<int64_t> max_size) {
  EMBER_CHECK(size.size() == 1 || size.size() == 2, "resize: size must have 1 or 2 values, got ", size.size());
  for (int64_t s : size) EMBER_CHECK(s > 0, "resize: size values must be positive, got ", s);
  EMBER_CHECK(!max_size || size.size() == 1, "resize: max_size (", max_size.value_or(0),
              ") is only allowed when size is one value (the smaller edge), got ", size.size(), " values");
  if (size.size() == 2) return {size[0], size[1]};
  const bool wide = width > height;
  const int64_t short_edge = wide ? height : width, long_edge = wide ? width : height;
  const int64_t requested = size[0];
  int64_t new_short = requested;
  // Python's int(requested * long / short): true division, truncated.
  int64_t new_long = static_cast<int64_t>(static_cast<double>(requested * long_edge) / static_cast<double>(short_edge));
  if (max_size) {
    EMBER_CHECK(*max_size > requested, "resize: max_size = ", *max_size,
                " must be strictly greater than the requested size for the smaller edge, ", requested);
    if (new_long > *max_size) {
      new_short = static_cast<int64_t>(static_cast<double>(*max_size * new_short) / static_cast<double>(new_long));
      new_long = *max_size;
    }
  }
  EMBER_CHECK(new_short > 0 && new_long > 0, "resize: the output size of a ", height, "x", width, " image would be ",
              wide ? new_short : new_long, "x", wide ? new_long : new_short);
  return wide ? std::array<int64_t, 2>{new_short, new_long} : std::array<int64_t, 2>{new_long, new_short};
}

Tensor resize(const Tensor& img, const std::vector<int64_t>& size, InterpolationMode interpolation,
              std::optional<int64_t> max_size, std::optional<bool> antialias) {
  const bool aa = antialias.value_or(false);
  EMBER_CHECK(!aa || interpolation != InterpolationMode::Nearest,
              "resize: antialias is supported for bilinear and bicubic interpolation only, got nearest");
  const BatchedImage b = detail::batched_image(img, "resize");
  const int64_t h = b.layout.height, w = b.layout.width;
  const auto [oh, ow] = resized_output_size(h, w, size, max_size);
  if (oh == h && ow == w) return img;
  const DType dtype = img.dtype();
  EMBER_CHECK(dtype != kBool && !is_complex(dtype), "resize: unsupported dtype ", dtype);
  const Device device = img.device();
  if (interpolation == InterpolationMode::Nearest) {
    EMBER_CHECK(gather_pixels_slot.supports(device, dtype), "resize: no nearest kernel for ", dtype, " images on ",
                device);
    return resize_nearest(b, oh, ow);
  }
  if (dtype == kUInt8 || dtype == kFloat32 || dtype == kFloat64) {
    EMBER_CHECK(resize_slot.supports(device, dtype), "resize: no ", interpolation_name(interpolation),
                " kernel for ", dtype, " images on ", device);
    return resize_separable(b, oh, ow, interpolation, aa);
  }
  // As torchvision: through float32, integer results rounded.
  Tensor r = resize(img.to(kFloat32), {oh, ow}, interpolation, std::nullopt, antialias);
  if (!is_floating_point(dtype)) r = r.round();
  return r.to(dtype);
}

}  // namespace ember::vision::transforms::functional
