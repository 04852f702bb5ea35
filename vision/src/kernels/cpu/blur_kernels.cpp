// The CPU kernel of gaussian_blur_slot: the separable blur with reflect
// padding, rows first, then columns (the weights: transforms/color/blur.cpp).
#include <cmath>
#include <vector>

#include <ember/ops/factories.h>

#include "kernels/cpu/image_loops.h"
#include "kernels/slots/color_kernels.h"

namespace ember::vision {
namespace {

using namespace transforms;

// Reflect padding's source index (no edge repeat): -1 -> 1, n -> n - 2.
inline int64_t reflect(int64_t i, int64_t n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

// A row of results into the image: uint8 as _cast_squeeze_out, torch.round
// (half to even) and the cast; floats as they are.
template <class T, class C>
void store_row(const C* __restrict acc, T* __restrict out, int64_t n) {
  for (int64_t x = 0; x < n; ++x) {
    if constexpr (std::is_same_v<T, uint8_t>) {
      out[x] = static_cast<uint8_t>(static_cast<int32_t>(detail::clamp_value(std::nearbyint(acc[x]), C(0), C(255))));
    } else {
      out[x] = static_cast<T>(acc[x]);
    }
  }
}

// in: any strides; wx32/wy32: odd lengths, each half smaller than the side.
void gaussian_blur_kernel(Tensor& out, const Tensor& img, const std::vector<float>& wx32,
                          const std::vector<float>& wy32) {
  const auto g = detail::geometry_of(img);
  const int64_t kx = static_cast<int64_t>(wx32.size()), ky = static_cast<int64_t>(wy32.size());
  const int64_t rx = kx / 2, ry = ky / 2;
  const int64_t width = g.width, height = g.height, rows = g.planes() * height;
  detail::dispatch_image(img.dtype(), "gaussian_blur", [&](auto tag) {
    using T = decltype(tag);
    using C = detail::compute_t<T>;
    // The float32 weights in the compute type (float64 images: widened, as
    // torchvision's `.to(dtype)`).
    const std::vector<C> wx(wx32.begin(), wx32.end()), wy(wy32.begin(), wy32.end());

    // Pass 1: each row, reflect-padded, convolved with wx.
    // (A tensor, not a std::vector: the caching allocator hands back warm
    // pages instead of zeroing fresh ones on every call.)
    const Tensor rows_x_tensor = empty({rows * width}, std::is_same_v<C, double> ? DType::Float64 : DType::Float32);
    C* const rows_x = static_cast<C*>(rows_x_tensor.data_ptr());
    detail::for_each_row<const T>(img, [&](int64_t row, const T* src, int64_t stride) {
      thread_local std::vector<C> padded;
      padded.resize(static_cast<size_t>(width + 2 * rx));
      C* p = padded.data() + rx;
      for (int64_t x = 0; x < width; ++x) p[x] = C(src[x * stride]);
      for (int64_t j = 1; j <= rx; ++j) {
        p[-j] = p[j];
        p[width - 1 + j] = p[width - 1 - j];
      }
      C* o = rows_x + row * width;
      for (int64_t x = 0; x < width; ++x) o[x] = wx[0] * padded[static_cast<size_t>(x)];
      for (int64_t j = 1; j < kx; ++j) {
        const C w = wx[static_cast<size_t>(j)];
        const C* q = padded.data() + j;
        for (int64_t x = 0; x < width; ++x) o[x] += w * q[x];
      }
    }, kx);

    // Pass 2: each output row, a wy-weighted sum of the reflected rows.
    T* dst = out.data_ptr<T>();
    detail::parallel_items(rows, width * ky, [&](int64_t begin, int64_t end) {
      std::vector<C> acc(static_cast<size_t>(width));
      for (int64_t row = begin; row < end; ++row) {
        const int64_t plane = row / height, y = row % height;
        const C* base = rows_x + plane * height * width;
        for (int64_t i = 0; i < ky; ++i) {
          const C w = wy[static_cast<size_t>(i)];
          const C* r = base + reflect(y + i - ry, height) * width;
          if (i == 0) {
            for (int64_t x = 0; x < width; ++x) acc[static_cast<size_t>(x)] = w * r[x];
          } else {
            for (int64_t x = 0; x < width; ++x) acc[static_cast<size_t>(x)] += w * r[x];
          }
        }
        store_row<T, C>(acc.data(), dst + row * width, width);
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(gaussian_blur_slot, CPU, gaussian_blur_kernel,
                                 dtype_bit(kUInt8) | dtype_bit(kFloat32) | dtype_bit(kFloat64));

}  // namespace ember::vision
