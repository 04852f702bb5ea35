#pragma once
// Moves whole pixels by index maps: out[i][y][x] = in[i][rows[y]][cols[x]]
// for every value of the pixel, by element size (any dtype). Nearest resize
// and the edge / reflect / symmetric pads are such maps.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/image_layout.h"

namespace ember::vision::transforms::detail {

void gather_pixels(const void* src, const ImageLayout& in, void* dst, const ImageLayout& out,
                   const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, size_t element_size);

}  // namespace ember::vision::transforms::detail
