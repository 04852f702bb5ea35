#pragma once
// Internals of the uint8 resampler (resample_uint8.cpp), exposed for tests.
#include <cstdint>
#include <vector>

#include "transforms/geometry/image_layout.h"
#include "transforms/geometry/resample_weights.h"

namespace ember::vision::transforms::detail {

// The column weights laid out for the vector kernels of one pixel size.
struct HorizontalPlan {
  const FixedAxisWeights* weights = nullptr;
  std::vector<int16_t> expanded;  // interleaved pixels: per output and tap pair, (w0, w1) per value
  int64_t simd_end_uint8 = 0;     // outputs [0, simd_end) take the vector path when reading uint8 rows
  int64_t simd_end_int16 = 0;     // ... when reading the padded int16 rows
};
HorizontalPlan make_horizontal_plan(const FixedAxisWeights& w, int64_t pixel);

enum class PassOrder { Auto, HorizontalFirst, VerticalFirst };

// resample_uint8 with the pass order forced (tests run both).
void resample_uint8(const uint8_t* src, const ImageLayout& in, uint8_t* dst, const ImageLayout& out,
                    const FixedAxisWeights* rows, const FixedAxisWeights* cols, PassOrder order);

}  // namespace ember::vision::transforms::detail
