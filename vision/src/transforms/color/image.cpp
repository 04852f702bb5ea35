// Geometry, checks and layout helpers shared by the color functionals.
#include "transforms/color/image.h"

namespace ember::vision::transforms::detail {

ImageGeometry image_geometry(const Tensor& img, const char* op, int64_t min_dim) {
  EMBER_CHECK(img.defined(), op, ": the image tensor is undefined");
  EMBER_CHECK(img.dim() >= min_dim, op, ": expected an image tensor with at least ", min_dim,
              " dimensions ([..., C, H, W]), got shape ", img.sizes());
  return geometry_of(img);
}

void check_channels_1_or_3(const ImageGeometry& g, const char* op) {
  EMBER_CHECK(g.channels == 1 || g.channels == 3, op, ": expected an image with 1 or 3 channels, got ",
              g.channels);
}

void check_image_dtype(const Tensor& img, const char* op) {
  const DType t = img.dtype();
  EMBER_CHECK(t == DType::UInt8 || is_floating_point(t), op,
              ": expected a uint8 or floating point image, got ", t);
}

bool is_reduced_float(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

Tensor contiguous_image(const Tensor& img) { return img.contiguous(); }

}  // namespace ember::vision::transforms::detail
