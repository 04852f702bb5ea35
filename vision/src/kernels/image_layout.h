#pragma once
// How vision's kernels see an image tensor: metadata only (sizes and
// strides), shared by the op files, which check and allocate, and by every
// backend's kernels, which compute.
#include <cstdint>

#include <ember/core/tensor.h>

namespace ember::vision::transforms::detail {

// An image batch [..., C, H, W] (or [H, W], one channel) seen as `batch`
// images of `channels` planes of height x width.
struct ImageGeometry {
  int64_t batch = 1;
  int64_t channels = 1;
  int64_t height = 0;
  int64_t width = 0;
  int64_t plane() const { return height * width; }
  int64_t planes() const { return batch * channels; }
  int64_t numel() const { return planes() * plane(); }
};

// The geometry of an image of at least 2 dims (no checks: the op file has
// made them, transforms/color/image.h's image_geometry).
ImageGeometry geometry_of(const Tensor& img);

// How the geometry kernels see an image batch: `count` 2-d images of
// height x width pixels, each pixel `pixel` consecutive values, rows
// row_stride values apart. A [B, C, H, W] tensor is either planar (W has
// stride 1: B * C images of one value per pixel) or interleaved (C has stride
// 1 and W stride C, as io::decode_jpeg's [C, H, W] view of HWC rows: B images
// of C values per pixel). Other strides are copied into the planar layout
// first (transforms/geometry/image_layout.h), so the kernels know only these two.
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

// Whether a [B, C, H, W] image that is planar or interleaved is interleaved
// (W not contiguous and more than one column).
bool is_interleaved(const Tensor& t);
// The layout of a [B, C, H, W] tensor. A kernel reads its input's layout as
// layout_of(in, is_interleaved(in)) and writes its output in the same one,
// layout_of(out, that.interleaved) (an interleaved output one pixel wide has
// the strides of a planar one).
ImageLayout layout_of(const Tensor& t, bool interleaved);

}  // namespace ember::vision::transforms::detail
