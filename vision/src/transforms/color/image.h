#pragma once
// What the color op files share: the [..., C, H, W] geometry of an image
// batch (kernels/image_layout.h), torchvision's argument checks, and the
// float32 detour of float16/bfloat16 images. The kernels behind the color
// slots (kernels/slots/color_kernels.h) and their arithmetic (Note [Color
// arithmetic]) are in kernels/cpu/.
#include <cstdint>

#include <ember/core/error.h>
#include <ember/core/tensor.h>

#include "kernels/image_layout.h"

namespace ember::vision::transforms::detail {

// Checks that `img` is an image of at least `min_dim` dims (torchvision's
// _assert_image_tensor / "at least 3 dimensions") and returns its geometry.
ImageGeometry image_geometry(const Tensor& img, const char* op, int64_t min_dim = 3);

// torchvision's _assert_channels(img, [1, 3]).
void check_channels_1_or_3(const ImageGeometry& g, const char* op);

// The dtypes the color kernels compute in: uint8, float32, float64 (and
// float16/bfloat16, which the op files convert to float32 first: see
// compute_in_float32). Other dtypes raise an error naming the op.
void check_image_dtype(const Tensor& img, const char* op);
bool is_reduced_float(DType dtype);

// Checks that the device's kernel behind `slot` computes the image's dtype
// (KernelSlot::supports), else an error naming the op, the dtype and the device.
template <class Slot>
void check_kernel(const Slot& slot, const Tensor& img, const char* op) {
  EMBER_CHECK(slot.supports(img.device(), img.dtype()), op, ": no kernel for ", img.dtype(), " images on ",
              img.device());
}

// A contiguous view of the input (copies only when needed, on its device).
Tensor contiguous_image(const Tensor& img);

// For float16/bfloat16 images: computes `fn` on a float32 copy and casts the
// result back (torchvision computes in the reduced type with a rounding per
// op; the result differs from it by about one unit of the reduced type).
template <class F>
Tensor compute_in_float32(const Tensor& img, F&& fn) {
  return fn(img.to(DType::Float32)).to(img.dtype());
}

}  // namespace ember::vision::transforms::detail
