#pragma once
// Internals of the uint8 resampler (resample_uint8.cpp), exposed for tests.
#include <cstdint>
#include <vector>

#include "kernels/image_layout.h"
#include "kernels/resample_weights.h"

namespace ember::vision::transforms::detail {

// The column weights laid out for the vector kernels of one pixel size.
struct HorizontalPlan {
  const FixedAxisWeights* weights = nullptr;
  bool vectorized = false;
  int64_t out_stride = 0;         // outputs per tap pair in the tables below (padded)
  std::vector<int16_t> expanded;  // interleaved pixels: [tap pair][output] (w0, w1) per value, 8 int16
  std::vector<int32_t> pairs8;    // planes: [tap pair][output] w0 | w1 << 16
  std::vector<int32_t> start32;   // planes: window starts
  std::vector<int64_t> offset;    // interleaved pixels: window starts in values
  std::vector<char> shuffles;         // planes, two taps: per block of 8 outputs, whether shuffle_masks serve
  std::vector<int8_t> shuffle_masks;  // ... four 32-byte pshufb masks per block
  int64_t simd_end_uint8 = 0;     // outputs [0, simd_end) read a uint8 row in place, the rest a padded copy
};
HorizontalPlan make_horizontal_plan(const FixedAxisWeights& w, int64_t pixel);

enum class PassOrder { Auto, HorizontalFirst, VerticalFirst };

// resample_uint8 with the pass order forced (tests run both).
// src_readable: how many bytes from src on may be read (the rest of the
// tensor's storage); rows with memory after them skip the padded tail copies.
void resample_uint8(const uint8_t* src, const ImageLayout& in, uint8_t* dst, const ImageLayout& out,
                    const FixedAxisWeights* rows, const FixedAxisWeights* cols, PassOrder order,
                    int64_t src_readable = 0);

}  // namespace ember::vision::transforms::detail
