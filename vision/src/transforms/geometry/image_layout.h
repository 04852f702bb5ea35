#pragma once
// Seeing an image tensor [..., C, H, W] as a [B, C, H, W] batch in one of the
// two layouts the geometry kernels read (kernels/image_layout.h: planar or
// interleaved), and allocating outputs like it on the input's device.
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

#include "kernels/image_layout.h"

namespace ember::vision::transforms::detail {

// An image tensor [..., C, H, W] seen as [B, C, H, W] (the leading dims merged;
// a copy only when they cannot be), in a layout the kernels read.
struct BatchedImage {
  Tensor image;                  // [B, C, H, W], planar or interleaved
  std::vector<int64_t> leading;  // the original leading dims
  bool interleaved = false;
  ImageLayout layout;
};

// `op` names the caller in errors (fewer than 3 dims, empty images).
BatchedImage batched_image(const Tensor& img, const char* op);

// An uninitialized [B, C, h, w] output in the same layout as `like`, on its
// device, and its layout.
BatchedImage new_image_like(const BatchedImage& like, int64_t height, int64_t width, DType dtype);

// The [..., C, h, w] result of a batched output.
Tensor unbatched(const BatchedImage& out);

}  // namespace ember::vision::transforms::detail
