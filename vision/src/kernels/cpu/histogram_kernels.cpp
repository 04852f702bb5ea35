// The CPU kernels of autocontrast_slot and equalize_slot: per-plane maps
// built from each plane's values (its range, its histogram), then applied;
// uint8 maps are tables (Note [uint8 tables] in convert_normalize_kernels.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "kernels/cpu/image_loops.h"
#include "kernels/slots/color_kernels.h"

namespace ember::vision {
namespace {

using namespace transforms;

// in: contiguous.
void autocontrast_kernel(Tensor& out, const Tensor& src) {
  const auto g = detail::geometry_of(src);
  const int64_t plane = g.plane();
  detail::dispatch_image(src.dtype(), "autocontrast", [&](auto tag) {
    using T = decltype(tag);
    using C = detail::compute_t<T>;
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    detail::parallel_items(g.planes(), 2 * plane, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const T* x = in + p * plane;
        T* o = dst + p * plane;
        T lo = x[0], hi = x[0];
        for (int64_t i = 1; i < plane; ++i) {
          lo = std::min(lo, x[i]);
          hi = std::max(hi, x[i]);
        }
        // torchvision: scale = bound / (max - min), where Python's
        // `float / tensor` is `tensor.reciprocal() * float`: two roundings (a
        // single division differs by one unit on some uint8 values). A constant
        // plane (infinite scale) keeps its values (min 0, scale 1).
        C minimum = C(lo);
        C scale = (C(1) / (C(hi) - minimum)) * detail::image_bound<T>();
        if (!std::isfinite(scale)) {
          minimum = C(0);
          scale = C(1);
        }
        if constexpr (std::is_same_v<T, uint8_t>) {
          std::array<uint8_t, 256> table;
          for (int v = 0; v < 256; ++v)
            table[static_cast<size_t>(v)] = detail::clamp_to_image<T>((C(v) - minimum) * scale);
          for (int64_t i = 0; i < plane; ++i) o[i] = table[x[i]];
        } else {
          for (int64_t i = 0; i < plane; ++i) o[i] = detail::clamp_to_image<T>((x[i] - minimum) * scale);
        }
      }
    });
  });
}

// in: contiguous, uint8.
void equalize_kernel(Tensor& out, const Tensor& src) {
  const auto g = detail::geometry_of(src);
  const int64_t plane = g.plane();
  const uint8_t* in = src.data_ptr<uint8_t>();
  uint8_t* dst = out.data_ptr<uint8_t>();
  detail::parallel_items(g.planes(), 2 * plane, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const uint8_t* x = in + p * plane;
      uint8_t* o = dst + p * plane;
      std::array<int64_t, 256> hist{};
      for (int64_t i = 0; i < plane; ++i) ++hist[x[i]];
      // torchvision's _scale_channel: step = (sum of the non-zero bins but the
      // last) // 255; nothing to spread when it is 0.
      int64_t last = 255;
      while (last > 0 && hist[static_cast<size_t>(last)] == 0) --last;
      const int64_t step = (plane - hist[static_cast<size_t>(last)]) / 255;
      if (step == 0) {
        std::memcpy(o, x, static_cast<size_t>(plane));
        continue;
      }
      // lut = (cumsum(hist) + step // 2) // step, shifted right by one (lut[0]
      // = 0) and clamped to [0, 255].
      std::array<uint8_t, 256> table;
      table[0] = 0;
      int64_t cumsum = 0;
      for (size_t v = 1; v < 256; ++v) {
        cumsum += hist[v - 1];
        table[v] = static_cast<uint8_t>(std::clamp<int64_t>((cumsum + step / 2) / step, 0, 255));
      }
      for (int64_t i = 0; i < plane; ++i) o[i] = table[x[i]];
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(autocontrast_slot, CPU, autocontrast_kernel,
                                 dtype_bit(kUInt8) | dtype_bit(kFloat32) | dtype_bit(kFloat64));
EMBER_REGISTER_KERNEL_FOR_DTYPES(equalize_slot, CPU, equalize_kernel, dtype_bit(kUInt8));

}  // namespace ember::vision
