// The warps' op side: checks, output allocation on the input's device, and
// the call of warp_slot (the grid and its sampling: kernels/cpu/warp_kernels.cpp,
// Note [Warp numerics]); affine_output_size.
#include "transforms/geometry/grid_sample.h"

#include <algorithm>
#include <cmath>

#include <ember/core/error.h>
#include <ember/ops/elementwise.h>

#include "kernels/slots/geometry_kernels.h"
#include "transforms/geometry/image_layout.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(warp_slot, WarpFn, "vision.warp");

}  // namespace ember::vision

namespace ember::vision::transforms::detail {

Tensor apply_warp(const Tensor& img, const Warp& warp, InterpolationMode mode, const std::vector<double>& fill,
                  const char* op) {
  EMBER_CHECK(mode == InterpolationMode::Nearest || mode == InterpolationMode::Bilinear, op,
              ": interpolation must be nearest or bilinear for tensors, got ", interpolation_name(mode));
  const BatchedImage b = batched_image(img, op);
  const int64_t channels = b.image.size(1);
  EMBER_CHECK(fill.size() <= 1 || static_cast<int64_t>(fill.size()) == channels, op, ": fill has ", fill.size(),
              " values, which cannot broadcast to the image's ", channels, " channels");
  EMBER_CHECK(warp.out_height > 0 && warp.out_width > 0, op, ": the output size ", warp.out_height, "x",
              warp.out_width, " is empty");
  const DType dtype = img.dtype();
  EMBER_CHECK(dtype != kBool && !is_complex(dtype), op, ": unsupported dtype ", dtype);
  if (dtype == kUInt8 || dtype == kFloat32 || dtype == kFloat64) {
    EMBER_CHECK(warp_slot.supports(img.device(), dtype), op, ": no warp kernel for ", dtype, " images on ",
                img.device());
    BatchedImage out = new_image_like(b, warp.out_height, warp.out_width, dtype);
    warp_slot(img.device())(out.image, b.image, warp, mode, fill);
    return unbatched(out);
  }
  // As torchvision: through float32, rounded back for integer types.
  Tensor r = apply_warp(img.to(kFloat32), warp, mode, fill, op);
  if (!is_floating_point(dtype)) r = r.round();
  return r.to(dtype);
}

std::array<int64_t, 2> affine_output_size(const std::array<double, 6>& matrix, int64_t w, int64_t h) {
  // In float32, as torchvision (pts @ theta.T, shifted, truncated to 1e-4).
  const float hw = static_cast<float>(0.5 * static_cast<double>(w)), hh = static_cast<float>(0.5 * static_cast<double>(h));
  const float pts[4][2] = {{-hw, -hh}, {-hw, hh}, {hw, hh}, {hw, -hh}};
  float t[6];
  for (int i = 0; i < 6; ++i) t[i] = static_cast<float>(matrix[static_cast<size_t>(i)]);
  float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (const auto& p : pts) {
    const float v[2] = {p[0] * t[0] + p[1] * t[1] + t[2], p[0] * t[3] + p[1] * t[4] + t[5]};
    for (int k = 0; k < 2; ++k) {
      lo[k] = std::min(lo[k], v[k]);
      hi[k] = std::max(hi[k], v[k]);
    }
  }
  const float shift[2] = {hw, hh};
  const float tol = 1e-4f;
  std::array<int64_t, 2> size{};
  for (int k = 0; k < 2; ++k) {
    const float cmax = std::ceil(std::trunc((hi[k] + shift[k]) / tol) * tol);
    const float cmin = std::floor(std::trunc((lo[k] + shift[k]) / tol) * tol);
    size[static_cast<size_t>(k)] = static_cast<int64_t>(cmax - cmin);
  }
  return size;
}

}  // namespace ember::vision::transforms::detail
