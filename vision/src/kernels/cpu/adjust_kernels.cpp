// The CPU kernels of brightness_slot, contrast_slot, saturation_slot,
// gamma_slot and sharpness_slot: torchvision's _blend of the image with a
// second image (black, its mean gray, its grayscale, a blurred copy), and the
// gamma curve. Arithmetic as Note [Color arithmetic] (image_loops.h).
#include <array>
#include <cmath>

#include "kernels/cpu/image_loops.h"
#include "kernels/slots/color_kernels.h"

namespace ember::vision {
namespace {

using namespace transforms;
using detail::clamp_to_image;
using detail::compute_t;
using detail::ImageGeometry;

// _blend's two weights: `ratio * img1 + (1.0 - ratio) * img2` rounds the
// Python floats ratio and 1.0 - ratio to the compute type.
template <class C>
struct BlendWeights {
  explicit BlendWeights(double ratio) : a(static_cast<C>(ratio)), b(static_cast<C>(1.0 - ratio)) {}
  C a, b;
};

// `.clamp(0, bound).to(T)`; Bounded: the value is known to fit int32
// (clamp_to_image_bounded).
template <class T, bool Bounded, class C>
inline T clamp(C x) {
  if constexpr (Bounded) {
    return detail::clamp_to_image_bounded<T>(x);
  } else {
    return clamp_to_image<T>(x);
  }
}

// Calls f(std::true_type) when a blend with weights a and b stays within
// int32 (always, but for factors beyond 2^20), else f(std::false_type).
template <class C, class F>
void with_bound(C a, C b, F&& f) {
  if (detail::blend_bounded(a, b)) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// clamp(a * x + add) of a row: _blend of the row with a constant image
// (black for brightness, the mean gray for contrast). Scalars by value and
// restrict pointers, so that the loop vectorizes (a uint8 store may alias
// anything otherwise).
template <class T, class C, bool Bounded>
void blend_constant_row(const T* __restrict src, int64_t stride, T* __restrict dst, int64_t n, C a, C add) {
  if (stride == 1) {
    for (int64_t x = 0; x < n; ++x) dst[x] = clamp<T, Bounded>(a * C(src[x]) + add);
  } else {
    for (int64_t x = 0; x < n; ++x) dst[x] = clamp<T, Bounded>(a * C(src[x * stride]) + add);
  }
}

// _blend of an RGB row with its grayscale.
template <class T, class C, bool Bounded>
void saturate_row(const T* __restrict r, const T* __restrict g, const T* __restrict b, T* __restrict out_r,
                  T* __restrict out_g, T* __restrict out_b, int64_t n, C wa, C wb) {
  for (int64_t x = 0; x < n; ++x) {
    const C l = wb * C(detail::luma<T>(r[x], g[x], b[x]));
    out_r[x] = clamp<T, Bounded>(wa * C(r[x]) + l);
    out_g[x] = clamp<T, Bounded>(wa * C(g[x]) + l);
    out_b[x] = clamp<T, Bounded>(wa * C(b[x]) + l);
  }
}

template <class T>
double gray_sum_rows(const T* __restrict r, const T* __restrict g, const T* __restrict b, int64_t n) {
  // Integer gray values (uint8) are summed exactly; floats in double.
  if constexpr (std::is_same_v<T, uint8_t>) {
    int64_t sum = 0;
    for (int64_t x = 0; x < n; ++x) sum += detail::luma<T>(r[x], g[x], b[x]);
    return static_cast<double>(sum);
  } else {
    double sum = 0;
    for (int64_t x = 0; x < n; ++x) sum += static_cast<double>(detail::luma<T>(r[x], g[x], b[x]));
    return sum;
  }
}

template <class T>
double value_sum(const T* __restrict v, int64_t n) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    int64_t sum = 0;
    for (int64_t x = 0; x < n; ++x) sum += v[x];
    return static_cast<double>(sum);
  } else {
    double sum = 0;
    for (int64_t x = 0; x < n; ++x) sum += static_cast<double>(v[x]);
    return sum;
  }
}

// 0.2989 r + 0.587 g + 0.114 b of every pixel of image n, summed in double;
// one channel: the values. The sum of torchvision's `rgb_to_grayscale(img).to(float)`.
template <class T>
double gray_sum(const T* image, const ImageGeometry& g) {
  const int64_t plane = g.plane();
  if (g.channels == 3) return gray_sum_rows<T>(image, image + plane, image + 2 * plane, plane);
  return value_sum<T>(image, plane);
}
// torch.pow(tensor, exponent) of a float tensor, with the exponents torch
// computes without pow (PowKernel.cpp): 0 (fill 1), 1 (copy), 0.5, 2, 3.
template <class C>
inline C pow_like_torch(C x, C e) {
  if (e == C(0)) return C(1);
  if (e == C(1)) return x;
  if (e == C(0.5)) return std::sqrt(x);
  if (e == C(2)) return x * x;
  if (e == C(3)) return x * x * x;
  return std::pow(x, e);
}

void lookup_u8_row(const uint8_t* __restrict src, int64_t stride, const uint8_t* __restrict table,
                   uint8_t* __restrict out, int64_t n) {
  if (stride == 1) {
    for (int64_t x = 0; x < n; ++x) out[x] = table[src[x]];
  } else {
    for (int64_t x = 0; x < n; ++x) out[x] = table[src[x * stride]];
  }
}

// One interior row of adjust_sharpness: blurred = the 3x3 kernel on
// (up, row, down) for x in [1, n - 1) (uint8: rounded half to even, as
// torch.round), the border pixels x = 0 and n - 1 blurred = themselves; then
// _blend(row, blurred).
template <class T, class C, bool Bounded>
void sharpen_row(const T* __restrict up, const T* __restrict row, const T* __restrict down, T* __restrict out,
                 int64_t n, C edge, C center, C wa, C wb) {
  out[0] = clamp<T, Bounded>(wa * C(row[0]) + wb * C(row[0]));
  for (int64_t x = 1; x < n - 1; ++x) {
    C acc = edge * C(up[x - 1]) + edge * C(up[x]) + edge * C(up[x + 1]);
    acc += edge * C(row[x - 1]) + center * C(row[x]) + edge * C(row[x + 1]);
    acc += edge * C(down[x - 1]) + edge * C(down[x]) + edge * C(down[x + 1]);
    if constexpr (std::is_same_v<T, uint8_t>) acc = std::nearbyint(acc);
    out[x] = clamp<T, Bounded>(wa * C(row[x]) + wb * acc);
  }
  out[n - 1] = clamp<T, Bounded>(wa * C(row[n - 1]) + wb * C(row[n - 1]));
}

// The first and last rows: blurred = the image.
template <class T, class C, bool Bounded>
void blend_self_row(const T* __restrict row, T* __restrict out, int64_t n, C wa, C wb) {
  for (int64_t x = 0; x < n; ++x) out[x] = clamp<T, Bounded>(wa * C(row[x]) + wb * C(row[x]));
}

// in: any strides.
void brightness_kernel(Tensor& out, const Tensor& img, double brightness_factor) {
  detail::dispatch_image(img.dtype(), "adjust_brightness", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const BlendWeights<C> w(brightness_factor);
    const C a = w.a, black = w.b * C(0);
    T* dst = out.data_ptr<T>();
    with_bound(w.a, w.b, [&](auto bounded) {
      detail::for_each_run<const T>(img, [&, a, black](int64_t index, const T* src, int64_t stride, int64_t n) {
        blend_constant_row<T, C, decltype(bounded)::value>(src, stride, dst + index, n, a, black);
      });
    });
  });
}

// in: contiguous, 1 or 3 channels.
void contrast_kernel(Tensor& out, const Tensor& src, double contrast_factor) {
  const auto g = detail::geometry_of(src);
  detail::dispatch_image(src.dtype(), "adjust_contrast", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const BlendWeights<C> w(contrast_factor);
    const int64_t image_size = g.channels * g.plane();
    for (int64_t n = 0; n < g.batch; ++n) {
      const T* in = src.data_ptr<T>() + n * image_size;
      T* o = out.data_ptr<T>() + n * image_size;
      // torch.mean of the float grayscale: the float sum over the count.
      const double sum = gray_sum<T>(in, g);
      const C mean = static_cast<C>(sum) / static_cast<C>(g.plane());
      const C a = w.a, gray = w.b * mean;
      with_bound(w.a, w.b, [&](auto bounded) {
        detail::parallel_items(image_size, 1, [&, a, gray](int64_t begin, int64_t end) {
          blend_constant_row<T, C, decltype(bounded)::value>(in + begin, 1, o + begin, end - begin, a, gray);
        });
      });
    }
  });
}

// in: contiguous, 3 channels.
void saturation_kernel(Tensor& out, const Tensor& src, double saturation_factor) {
  const auto g = detail::geometry_of(src);
  const int64_t plane = g.plane();
  detail::dispatch_image(src.dtype(), "adjust_saturation", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const BlendWeights<C> w(saturation_factor);
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    // Items are (image, row) pairs; each blends the row's three channels with
    // its grayscale (uint8: the truncated grayscale, as torchvision).
    with_bound(w.a, w.b, [&](auto bounded) {
      detail::parallel_items(g.batch * g.height, 3 * g.width, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
          const int64_t offset = (item / g.height) * 3 * plane + (item % g.height) * g.width;
          const T* r = in + offset;
          T* o = dst + offset;
          saturate_row<T, C, decltype(bounded)::value>(r, r + plane, r + 2 * plane, o, o + plane, o + 2 * plane,
                                                       g.width, w.a, w.b);
        }
      });
    });
  });
}

// in: any strides.
void gamma_kernel(Tensor& out, const Tensor& img, double gamma, double gain) {
  detail::dispatch_image(img.dtype(), "adjust_gamma", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C e = static_cast<C>(gamma), k = static_cast<C>(gain);
    T* dst = out.data_ptr<T>();
    if constexpr (std::is_same_v<T, uint8_t>) {
      // convert_image_dtype to float32, (gain * x^gamma).clamp(0, 1), back to
      // uint8 (x * 255.999, truncated): 256 results (Note [uint8 tables]).
      std::array<uint8_t, 256> table;
      for (int v = 0; v < 256; ++v) {
        const C x = static_cast<C>(v) / C(255);
        const C y = detail::clamp_value(k * pow_like_torch(x, e), C(0), C(1));
        table[static_cast<size_t>(v)] = static_cast<uint8_t>(static_cast<int32_t>(y * static_cast<C>(255.999)));
      }
      detail::for_each_run<const T>(img, [&](int64_t index, const T* src, int64_t stride, int64_t n) {
        lookup_u8_row(src, stride, table.data(), dst + index, n);
      });
    } else {
      detail::for_each_run<const T>(img, [&, e, k](int64_t index, const T* src, int64_t stride, int64_t n) {
        T* o = dst + index;
        for (int64_t x = 0; x < n; ++x) o[x] = detail::clamp_value(k * pow_like_torch(src[x * stride], e), C(0), C(1));
      });
    }
  });
}

// in: contiguous, 1 or 3 channels, at least 3x3.
void sharpness_kernel(Tensor& out, const Tensor& src, double sharpness_factor) {
  const auto g = detail::geometry_of(src);
  const int64_t plane = g.plane(), width = g.width, height = g.height;
  detail::dispatch_image(src.dtype(), "adjust_sharpness", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const BlendWeights<C> w(sharpness_factor);
    // torchvision's kernel: ones(3, 3) with 5 in the middle, divided by its
    // sum (13) in the compute type; the border keeps the image (blurred =
    // image there), and uint8 blurred values are rounded (_cast_squeeze_out).
    const C edge = C(1) / C(13), center = C(5) / C(13);
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    with_bound(w.a, w.b, [&](auto bounded) {
      constexpr bool B = decltype(bounded)::value;
      detail::parallel_items(g.planes() * height, 10 * width, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
          const int64_t p = item / height, y = item % height;
          const T* row = in + p * plane + y * width;
          T* o = dst + p * plane + y * width;
          if (y == 0 || y == height - 1) {
            blend_self_row<T, C, B>(row, o, width, w.a, w.b);
          } else {
            sharpen_row<T, C, B>(row - width, row, row + width, o, width, edge, center, w.a, w.b);
          }
        }
      });
    });
  });
}

constexpr uint32_t kImageDTypes = dtype_bit(kUInt8) | dtype_bit(kFloat32) | dtype_bit(kFloat64);

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(brightness_slot, CPU, brightness_kernel, kImageDTypes);
EMBER_REGISTER_KERNEL_FOR_DTYPES(contrast_slot, CPU, contrast_kernel, kImageDTypes);
EMBER_REGISTER_KERNEL_FOR_DTYPES(saturation_slot, CPU, saturation_kernel, kImageDTypes);
EMBER_REGISTER_KERNEL_FOR_DTYPES(gamma_slot, CPU, gamma_kernel, kImageDTypes);
EMBER_REGISTER_KERNEL_FOR_DTYPES(sharpness_slot, CPU, sharpness_kernel, kImageDTypes);

}  // namespace ember::vision
