#pragma once
// nn::functional sampling ops, as torch.nn.functional's: interpolate (nearest,
// nearest-exact, linear, bilinear, bicubic, trilinear, area), pixel_shuffle /
// pixel_unshuffle, channel_shuffle, fold / unfold (col2im / im2col) and the
// padding layers' pad (see ember/ops/shape.h: pad).
#include <optional>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::functional {

// torch.nn.functional.interpolate's keyword arguments, in its order:
//   F::interpolate(x, {.size = {8, 8}, .mode = "bilinear", .align_corners = true});
//   F::interpolate(x, {.scale_factor = {2}});
struct InterpolateOptions {
  // Output spatial size: one value for every spatial dim, or one per dim.
  std::vector<int64_t> size = {};
  // Multiplier of the spatial size (one value, or one per dim); exclusive with size.
  std::vector<double> scale_factor = {};
  // "nearest", "nearest-exact", "linear" (3-d), "bilinear" (4-d), "bicubic"
  // (4-d), "trilinear" (5-d) or "area" (adaptive average pooling).
  std::string mode = "nearest";
  // Interpolating modes only (linear, bilinear, bicubic, trilinear); default false.
  std::optional<bool> align_corners = std::nullopt;
  // With scale_factor: true computes the output size and then samples with
  // in/out as the scale (as with an explicit size); false/unset samples with
  // 1/scale_factor.
  std::optional<bool> recompute_scale_factor = std::nullopt;
};

// Resamples the spatial dims of a [N, C, d1(, d2(, d3))] input (3-d, 4-d or
// 5-d; channels_last inputs give channels_last outputs). Floating point
// inputs; nearest modes take any dtype. Differentiable (the backward is the
// adjoint resampling).
Tensor interpolate(const Tensor& input, const InterpolateOptions& options = {});

// [*, C*r*r, H, W] -> [*, C, H*r, W*r] and back.
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
// [N, C, *]: the channels seen as [groups, C/groups] are transposed.
Tensor channel_shuffle(const Tensor& input, int64_t groups);

// Sliding-block geometry of fold/unfold; each field holds one value (both
// spatial dims) or two.
struct UnfoldOptions {
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> dilation = {1};
  std::vector<int64_t> padding = {0};
  std::vector<int64_t> stride = {1};
};
struct FoldOptions {
  std::vector<int64_t> output_size;
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> dilation = {1};
  std::vector<int64_t> padding = {0};
  std::vector<int64_t> stride = {1};
};
// im2col: [N, C, H, W] (or [C, H, W]) -> [N, C*kh*kw, L] (or [C*kh*kw, L]),
// L = the number of blocks.
Tensor unfold(const Tensor& input, const UnfoldOptions& options);
// col2im, the adjoint of unfold: blocks [N, C*kh*kw, L] (or unbatched) are
// summed into [N, C, output_size...].
Tensor fold(const Tensor& input, const FoldOptions& options);

}  // namespace ember::nn::functional
