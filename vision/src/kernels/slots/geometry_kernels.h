#pragma once
// Kernel slots of vision's geometry transforms (transforms/geometry/): the
// separable resize, pixel gathers by index maps (nearest resize, the edge,
// reflect and symmetric pads) and the grid warps (affine, rotate,
// perspective). Defined in the op files, filled by kernels/cpu/ (and by any
// backend that registers for them, docs/architecture.md "Device backends").
//
// Images reach the kernels as [B, C, H, W] tensors in one of the two layouts
// of kernels/image_layout.h (planar or interleaved); the output, allocated by
// the op file on the input's device, has the input's layout.
#include <array>
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

#include "ember/vision/transforms/interpolation.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::vision {

// out = in resized to out's height and width, bilinear or bicubic
// (torchvision's F.interpolate with align_corners=False, with or without
// antialiasing). uint8, float32, float64.
using ResizeFn = void(Tensor& out, const Tensor& in, transforms::InterpolationMode mode, bool antialias);
extern KernelSlot<ResizeFn> resize_slot;

// out[i][y][x] = in[i][rows[y]][cols[x]] for every value of the pixel: the
// whole pixels moved by index maps (nearest resize, the index-map pads). Any
// dtype of 1, 2, 4 or 8 bytes.
using GatherPixelsFn = void(Tensor& out, const Tensor& in, const std::vector<int64_t>& rows,
                            const std::vector<int64_t>& cols);
extern KernelSlot<GatherPixelsFn> gather_pixels_slot;

}  // namespace ember::vision

namespace ember::vision::transforms::detail {

// A warp's inverse map (transforms/geometry/grid_sample.h).
struct Warp {
  enum class Kind { Affine, Perspective };
  Kind kind = Kind::Affine;
  // Affine: the 2x3 inverse matrix (6 values, output pixel -> input pixel,
  // both relative to their image's center). Perspective: the 8 coefficients.
  std::array<double, 8> m{};
  int64_t out_height = 0;
  int64_t out_width = 0;
};

}  // namespace ember::vision::transforms::detail

namespace ember::vision {

// out = in sampled through the warp's grid (nearest or bilinear, zeros
// outside); fill: {} for none, else one value per channel blended in through
// the sampled mask (Note [Warp numerics] in kernels/cpu/warp_kernels.cpp).
// uint8 (sampled in float32), float32, float64.
using WarpFn = void(Tensor& out, const Tensor& in, const transforms::detail::Warp& warp,
                    transforms::InterpolationMode mode, const std::vector<double>& fill);
extern KernelSlot<WarpFn> warp_slot;

}  // namespace ember::vision
