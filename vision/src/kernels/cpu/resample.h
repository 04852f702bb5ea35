#pragma once
// Separable resampling kernels: a horizontal pass with the column weights
// and a vertical pass with the row weights, threaded over image rows.
#include <cstdint>

#include "kernels/image_layout.h"
#include "kernels/resample_weights.h"

namespace ember::vision::transforms::detail {

// Floating point (S = float or double), horizontal pass first as torch: only
// the input rows that some output row reads are resampled. A null weights
// pointer leaves that axis as it is (same size).
template <class S>
void resample_float(const S* src, const ImageLayout& in, S* dst, const ImageLayout& out, const AxisWeights<S>* rows,
                    const AxisWeights<S>* cols);

// uint8 in Q14 fixed point with an int16 intermediate (resample_uint8.cpp):
// results within one unit of the float computation, rounded and clamped.
// The pass order is chosen by cost (see there).
// src_readable: the bytes from src on that belong to the input's storage.
void resample_uint8(const uint8_t* src, const ImageLayout& in, uint8_t* dst, const ImageLayout& out,
                    const FixedAxisWeights* rows, const FixedAxisWeights* cols, int64_t src_readable);

}  // namespace ember::vision::transforms::detail
