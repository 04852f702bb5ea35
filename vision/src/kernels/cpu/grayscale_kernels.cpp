// The CPU kernel of grayscale_slot: torchvision's rgb_to_grayscale per pixel
// (Note [Color arithmetic] in image_loops.h).
#include <cstring>

#include "kernels/cpu/image_loops.h"
#include "kernels/slots/color_kernels.h"

namespace ember::vision {
namespace {

using namespace transforms;

template <class T>
void luma_row(const T* __restrict r, const T* __restrict g, const T* __restrict b, T* __restrict out, int64_t n) {
  for (int64_t x = 0; x < n; ++x) out[x] = detail::luma<T>(r[x], g[x], b[x]);
}

// in: contiguous, 1 or 3 channels; out: contiguous, 1 or 3 channels.
void grayscale_kernel(Tensor& out, const Tensor& src) {
  const auto g = detail::geometry_of(src);
  const int64_t num_output_channels = out.size(-3);
  const int64_t plane = g.plane();
  detail::dispatch_image(src.dtype(), "rgb_to_grayscale", [&](auto tag) {
    using T = decltype(tag);
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    // One item per (image, row): reads the row of each input channel and
    // writes the row of each output channel.
    const int64_t width = g.width;
    detail::parallel_items(g.batch * g.height, width * 3, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t n = item / g.height, y = item % g.height;
        const T* image = in + n * g.channels * plane + y * width;
        T* o = dst + n * num_output_channels * plane + y * width;
        if (g.channels == 3) {
          luma_row<T>(image, image + plane, image + 2 * plane, o, width);
        } else {
          std::memcpy(o, image, static_cast<size_t>(width) * sizeof(T));
        }
        for (int64_t c = 1; c < num_output_channels; ++c)
          std::memcpy(o + c * plane, o, static_cast<size_t>(width) * sizeof(T));
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(grayscale_slot, CPU, grayscale_kernel,
                                 dtype_bit(kUInt8) | dtype_bit(kFloat32) | dtype_bit(kFloat64));

}  // namespace ember::vision
