#pragma once
// How the geometry kernels see an image batch: `count` 2-d images of
// height x width pixels, each pixel `pixel` consecutive values, rows
// row_stride values apart. A [B, C, H, W] tensor is either planar (W has
// stride 1: B * C images of one value per pixel) or interleaved (C has stride
// 1 and W stride C, as io::decode_jpeg's [C, H, W] view of HWC rows: B images
// of C values per pixel). Other strides are copied into the planar layout
// first, so the kernels know only these two.
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::vision::transforms::detail {

struct ImageLayout {
  bool interleaved = false;
  int64_t count = 0;        // images
  int64_t height = 0;
  int64_t width = 0;
  int64_t pixel = 1;        // values per pixel
  int64_t row_stride = 0;   // in values
  // Where image i starts, in values from the data pointer.
  int64_t channels = 1;     // planar: images per batch item
  int64_t batch_stride = 0;
  int64_t channel_stride = 0;
  int64_t offset(int64_t i) const {
    return interleaved ? i * batch_stride
                                      : (i / channels) * batch_stride + (i % channels) * channel_stride;
  }
  int64_t row_values() const { return width * pixel; }
};

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

// An uninitialized [B, C, h, w] output in the same layout as `like`, and its layout.
BatchedImage new_image_like(const BatchedImage& like, int64_t height, int64_t width, DType dtype);

// The [..., C, h, w] result of a batched output.
Tensor unbatched(const BatchedImage& out);

}  // namespace ember::vision::transforms::detail
