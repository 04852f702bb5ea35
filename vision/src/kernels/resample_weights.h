#pragma once
// The per-axis weights of a separable resize: each output index reads a
// window of input indices with fixed weights, computed once per axis and
// reused for every row, plane and image.
//
// The formulas are PyTorch 1.13's (aten/src/ATen/native/UpSample.h and
// cpu/UpSampleKernel.cpp), which torchvision 0.14's tensor resize calls
// through F.interpolate(align_corners=False): S is the type torch computes
// them in (float for float32 and uint8 images, which torchvision casts to
// float32; double for float64), and each expression keeps torch's
// intermediate types, so that window starts and nearest indices agree exactly.
#include <cstdint>
#include <vector>

namespace ember::vision::transforms::detail {

// One axis: output o reads input [start[o], start[o] + taps) with weights
// weights[o * taps + k]. Every window lies inside [0, in_size); windows
// shorter than `taps` are padded with zero weights.
template <class S>
struct AxisWeights {
  int64_t in_size = 0;
  int64_t out_size = 0;
  int64_t taps = 0;
  std::vector<int64_t> start;
  std::vector<S> weights;
};

enum class ResampleFilter { Linear, Cubic };

// upsample_bilinear2d / upsample_bicubic2d (A = -0.75; taps past the border
// read the border pixel) without antialiasing; in_size == out_size is the
// identity (one tap of weight 1).
template <class S>
AxisWeights<S> interpolation_weights(int64_t in_size, int64_t out_size, ResampleFilter filter);

// _upsample_bilinear2d_aa / _upsample_bicubic2d_aa: the filter (triangle, or
// cubic with a = -0.5 as PIL) stretched by the scale when downscaling,
// normalized to sum 1 over the taps inside the image.
template <class S>
AxisWeights<S> antialias_weights(int64_t in_size, int64_t out_size, ResampleFilter filter);

// upsample_nearest2d: the input index of each output, floor(o * in / out)
// computed in float, as torch does for every dtype.
std::vector<int64_t> nearest_indices(int64_t in_size, int64_t out_size);

// The weights as Q14 fixed point for the uint8 kernels, rounded so that each
// output's weights sum to exactly 1 << 14, and with `taps` rounded up to a
// multiple of `tap_multiple` when that still fits in the axis (windows are
// moved left to stay inside it).
inline constexpr int kWeightBits = 14;
struct FixedAxisWeights {
  int64_t in_size = 0;
  int64_t out_size = 0;
  int64_t taps = 0;
  std::vector<int64_t> start;
  std::vector<int16_t> weights;
  double max_abs_sum = 0;  // the largest sum of |weight| over one output (1 without negative lobes)
};
FixedAxisWeights to_fixed(const AxisWeights<float>& w, int64_t tap_multiple);

}  // namespace ember::vision::transforms::detail
