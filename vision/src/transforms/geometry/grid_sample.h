#pragma once
// The warps behind affine, rotate and perspective, as torchvision 0.14's
// tensor path does them: an inverse-mapping grid (_gen_affine_grid /
// _perspective_grid) sampled like torch.nn.functional.grid_sample with
// align_corners=False and zeros padding, with the fill color blended through
// a sampled mask channel (_apply_grid_transform).
#include <array>
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

#include "ember/vision/transforms/interpolation.h"
#include "kernels/slots/geometry_kernels.h"  // Warp

namespace ember::vision::transforms::detail {

// Warps [..., C, H, W] (any dtype but bool and complex; uint8 and float64 as
// torchvision: sampled in float32 / float64 and rounded back). fill: {} for
// none (zeros outside, no mask), one value or one per channel. `op` names the
// caller in errors.
Tensor apply_warp(const Tensor& img, const Warp& warp, InterpolationMode mode, const std::vector<double>& fill,
                  const char* op);

// _compute_affine_output_size: the {width, height} that holds the whole image
// of size w x h transformed by the (inverse) matrix, computed in float32.
std::array<int64_t, 2> affine_output_size(const std::array<double, 6>& matrix, int64_t w, int64_t h);

}  // namespace ember::vision::transforms::detail
