// Pixel gathers by row and column maps: the CPU kernel of gather_pixels_slot.
#include "kernels/cpu/gather.h"

#include <cstring>

#include <ember/core/error.h>
#include <ember/core/parallel.h>

#include "kernels/slots/geometry_kernels.h"

namespace ember::vision::transforms::detail {
namespace {

template <class T, int kPixel>
void gather_row(const T* src_row, T* dst_row, const int64_t* cols, int64_t width, int64_t pixel) {
  if constexpr (kPixel > 0) {
    for (int64_t x = 0; x < width; ++x) {
      const T* s = src_row + cols[x] * kPixel;
      for (int c = 0; c < kPixel; ++c) dst_row[x * kPixel + c] = s[c];
    }
  } else {
    for (int64_t x = 0; x < width; ++x) std::memcpy(dst_row + x * pixel, src_row + cols[x] * pixel, sizeof(T) * pixel);
  }
}

template <class T>
void gather_typed(const T* src, const ImageLayout& in, T* dst, const ImageLayout& out, const std::vector<int64_t>& rows,
                  const std::vector<int64_t>& cols) {
  const int64_t total_rows = out.count * out.height;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, out.row_values()));
  parallel_for(0, total_rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t i = r / out.height, y = r % out.height;
      const T* s = src + in.offset(i) + rows[static_cast<size_t>(y)] * in.row_stride;
      T* d = dst + out.offset(i) + y * out.row_stride;
      switch (in.pixel) {
        case 1: gather_row<T, 1>(s, d, cols.data(), out.width, 1); break;
        case 3: gather_row<T, 3>(s, d, cols.data(), out.width, 3); break;
        case 4: gather_row<T, 4>(s, d, cols.data(), out.width, 4); break;
        default: gather_row<T, 0>(s, d, cols.data(), out.width, in.pixel); break;
      }
    }
  });
}

}  // namespace

void gather_pixels(const void* src, const ImageLayout& in, void* dst, const ImageLayout& out,
                   const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, size_t element_size) {
  switch (element_size) {
    case 1: return gather_typed(static_cast<const uint8_t*>(src), in, static_cast<uint8_t*>(dst), out, rows, cols);
    case 2: return gather_typed(static_cast<const uint16_t*>(src), in, static_cast<uint16_t*>(dst), out, rows, cols);
    case 4: return gather_typed(static_cast<const uint32_t*>(src), in, static_cast<uint32_t*>(dst), out, rows, cols);
    case 8: return gather_typed(static_cast<const uint64_t*>(src), in, static_cast<uint64_t*>(dst), out, rows, cols);
    default: EMBER_FAIL("gather_pixels: unsupported element size ", element_size);
  }
}

}  // namespace ember::vision::transforms::detail

namespace ember::vision {
namespace {

void gather_pixels_kernel(Tensor& out, const Tensor& in, const std::vector<int64_t>& rows,
                          const std::vector<int64_t>& cols) {
  using namespace transforms::detail;
  const ImageLayout in_layout = layout_of(in, is_interleaved(in));
  gather_pixels(in.data_ptr(), in_layout, out.data_ptr(), layout_of(out, in_layout.interleaved), rows, cols,
                in.element_size());
}

}  // namespace

// Every dtype of at most 8 bytes.
EMBER_REGISTER_KERNEL_FOR_DTYPES(gather_pixels_slot, CPU, gather_pixels_kernel, kMaskAll & ~dtype_bit(kComplex128));

}  // namespace ember::vision
