// functional::resize: output size, dtype dispatch and the choice of kernel.
#include <cmath>

#include <ember/core/error.h>
#include <ember/ops/elementwise.h>

#include "ember/vision/transforms/functional/geometry.h"
#include "transforms/geometry/gather.h"
#include "transforms/geometry/image_layout.h"
#include "transforms/geometry/resample.h"
#include "transforms/geometry/resample_weights.h"

namespace ember::vision::transforms::functional {
namespace {

using detail::AxisWeights;
using detail::BatchedImage;
using detail::ResampleFilter;

template <class S>
AxisWeights<S> axis_weights(int64_t in, int64_t out, InterpolationMode mode, bool antialias) {
  const ResampleFilter filter = mode == InterpolationMode::Bicubic ? ResampleFilter::Cubic : ResampleFilter::Linear;
  return antialias ? detail::antialias_weights<S>(in, out, filter)
                   : detail::interpolation_weights<S>(in, out, filter);
}

template <class S>
Tensor resize_float(const BatchedImage& b, int64_t oh, int64_t ow, InterpolationMode mode, bool antialias) {
  const detail::ImageLayout& in = b.layout;
  BatchedImage out = detail::new_image_like(b, oh, ow, b.image.dtype());
  AxisWeights<S> rows, cols;
  if (oh != in.height) rows = axis_weights<S>(in.height, oh, mode, antialias);
  if (ow != in.width) cols = axis_weights<S>(in.width, ow, mode, antialias);
  detail::resample_float<S>(b.image.data_ptr<S>(), in, out.image.data_ptr<S>(), out.layout,
                            oh != in.height ? &rows : nullptr, ow != in.width ? &cols : nullptr);
  return detail::unbatched(out);
}

Tensor resize_uint8(const BatchedImage& b, int64_t oh, int64_t ow, InterpolationMode mode, bool antialias) {
  const detail::ImageLayout& in = b.layout;
  BatchedImage out = detail::new_image_like(b, oh, ow, kUInt8);
  // The vector kernels take taps in pairs.
  const int64_t tap_multiple = 2;
  detail::FixedAxisWeights rows, cols;
  if (oh != in.height) rows = detail::to_fixed(axis_weights<float>(in.height, oh, mode, antialias), 2);
  if (ow != in.width) cols = detail::to_fixed(axis_weights<float>(in.width, ow, mode, antialias), tap_multiple);
  const uint8_t* src = b.image.data_ptr<uint8_t>();
  const auto* storage_begin = static_cast<const uint8_t*>(b.image.storage()->data());
  const int64_t readable = static_cast<int64_t>(b.image.storage()->nbytes()) - (src - storage_begin);
  detail::resample_uint8(src, in, out.image.data_ptr<uint8_t>(), out.layout, oh != in.height ? &rows : nullptr,
                         ow != in.width ? &cols : nullptr, readable);
  return detail::unbatched(out);
}

Tensor resize_nearest(const BatchedImage& b, int64_t oh, int64_t ow) {
  const detail::ImageLayout& in = b.layout;
  BatchedImage out = detail::new_image_like(b, oh, ow, b.image.dtype());
  detail::gather_pixels(b.image.data_ptr(), in, out.image.data_ptr(), out.layout,
                        detail::nearest_indices(in.height, oh), detail::nearest_indices(in.width, ow),
                        b.image.element_size());
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
  if (interpolation == InterpolationMode::Nearest) return resize_nearest(b, oh, ow);
  switch (dtype) {
    case kUInt8: return resize_uint8(b, oh, ow, interpolation, aa);
    case kFloat32: return resize_float<float>(b, oh, ow, interpolation, aa);
    case kFloat64: return resize_float<double>(b, oh, ow, interpolation, aa);
    default: {
      // As torchvision: through float32, integer results rounded.
      Tensor r = resize(img.to(kFloat32), {oh, ow}, interpolation, std::nullopt, antialias);
      if (!is_floating_point(dtype)) r = r.round();
      return r.to(dtype);
    }
  }
}

}  // namespace ember::vision::transforms::functional
