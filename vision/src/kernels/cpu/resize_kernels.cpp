// The CPU kernel of resize_slot: the per-axis weights (kernels/resample_weights.h)
// and the separable resamplers (resample_float.cpp, resample_uint8.cpp).
#include <ember/core/tensor.h>

#include "kernels/cpu/resample.h"
#include "kernels/image_layout.h"
#include "kernels/resample_weights.h"
#include "kernels/slots/geometry_kernels.h"

namespace ember::vision {
namespace {

using transforms::InterpolationMode;
using transforms::detail::AxisWeights;
using transforms::detail::ImageLayout;
using transforms::detail::ResampleFilter;

template <class S>
AxisWeights<S> axis_weights(int64_t in, int64_t out, InterpolationMode mode, bool antialias) {
  const ResampleFilter filter = mode == InterpolationMode::Bicubic ? ResampleFilter::Cubic : ResampleFilter::Linear;
  return antialias ? transforms::detail::antialias_weights<S>(in, out, filter)
                   : transforms::detail::interpolation_weights<S>(in, out, filter);
}

template <class S>
void resize_float(Tensor& out, const Tensor& src, const ImageLayout& in, const ImageLayout& ol, InterpolationMode mode,
                  bool antialias) {
  const int64_t oh = ol.height, ow = ol.width;
  AxisWeights<S> rows, cols;
  if (oh != in.height) rows = axis_weights<S>(in.height, oh, mode, antialias);
  if (ow != in.width) cols = axis_weights<S>(in.width, ow, mode, antialias);
  transforms::detail::resample_float<S>(src.data_ptr<S>(), in, out.data_ptr<S>(), ol,
                                        oh != in.height ? &rows : nullptr, ow != in.width ? &cols : nullptr);
}

void resize_uint8(Tensor& out, const Tensor& src, const ImageLayout& in, const ImageLayout& ol, InterpolationMode mode,
                  bool antialias) {
  const int64_t oh = ol.height, ow = ol.width;
  // The vector kernels take taps in pairs.
  const int64_t tap_multiple = 2;
  transforms::detail::FixedAxisWeights rows, cols;
  if (oh != in.height) rows = transforms::detail::to_fixed(axis_weights<float>(in.height, oh, mode, antialias), 2);
  if (ow != in.width)
    cols = transforms::detail::to_fixed(axis_weights<float>(in.width, ow, mode, antialias), tap_multiple);
  const uint8_t* data = src.data_ptr<uint8_t>();
  const auto* storage_begin = static_cast<const uint8_t*>(src.storage()->data());
  const int64_t readable = static_cast<int64_t>(src.storage()->nbytes()) - (data - storage_begin);
  transforms::detail::resample_uint8(data, in, out.data_ptr<uint8_t>(), ol, oh != in.height ? &rows : nullptr,
                                     ow != in.width ? &cols : nullptr, readable);
}

void resize_kernel(Tensor& out, const Tensor& in, InterpolationMode mode, bool antialias) {
  const ImageLayout il = transforms::detail::layout_of(in, transforms::detail::is_interleaved(in));
  const ImageLayout ol = transforms::detail::layout_of(out, il.interleaved);
  switch (in.dtype()) {
    case kUInt8: return resize_uint8(out, in, il, ol, mode, antialias);
    case kFloat32: return resize_float<float>(out, in, il, ol, mode, antialias);
    case kFloat64: return resize_float<double>(out, in, il, ol, mode, antialias);
    default: EMBER_FAIL("resize: the CPU kernel computes uint8, float32 and float64, got ", in.dtype());
  }
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(resize_slot, CPU, resize_kernel,
                                 dtype_bit(kUInt8) | dtype_bit(kFloat32) | dtype_bit(kFloat64));

}  // namespace ember::vision
