// adjust_brightness, adjust_contrast, adjust_saturation, adjust_gamma,
// adjust_sharpness: torchvision's _blend of the image with a second image (black,
// its mean gray, its grayscale, a blurred copy), and the gamma curve.
// Arithmetic as Note [Color arithmetic] (image.h).
#include <array>
#include <cmath>

#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "transforms/color/image.h"

namespace ember::vision::transforms::functional {
namespace {

using detail::clamp_to_image;
using detail::compute_t;
using detail::ImageGeometry;

void check_factor(double factor, const char* op, const char* name) {
  EMBER_CHECK(factor >= 0, op, ": ", name, " (", factor, ") must be non-negative");
}

// _blend's two weights: `ratio * img1 + (1.0 - ratio) * img2` rounds the
// Python floats ratio and 1.0 - ratio to the compute type.
template <class C>
struct BlendWeights {
  explicit BlendWeights(double ratio) : a(static_cast<C>(ratio)), b(static_cast<C>(1.0 - ratio)) {}
  C a, b;
};

ImageGeometry checked_image(const Tensor& img, const char* op, int64_t min_dim) {
  const auto g = detail::image_geometry(img, op, min_dim);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
  return g;
}

// 0.2989 r + 0.587 g + 0.114 b of every pixel of image n, summed in double;
// one channel: the values. The sum of torchvision's `rgb_to_grayscale(img).to(float)`.
template <class T>
double gray_sum(const T* image, const ImageGeometry& g) {
  const int64_t plane = g.plane();
  double sum = 0;
  if (g.channels == 3) {
    const T *r = image, *gr = image + plane, *b = image + 2 * plane;
    for (int64_t i = 0; i < plane; ++i) sum += static_cast<double>(detail::luma<T>(r[i], gr[i], b[i]));
  } else {
    for (int64_t i = 0; i < plane; ++i) sum += static_cast<double>(image[i]);
  }
  return sum;
}

}  // namespace

Tensor adjust_brightness(const Tensor& img, double brightness_factor) {
  const char* op = "adjust_brightness";
  check_factor(brightness_factor, op, "brightness_factor");
  const auto g = checked_image(img, op, 2);
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_brightness(x, brightness_factor); });
  Tensor out = empty(img.sizes(), img.dtype());
  const int64_t width = g.width;
  detail::dispatch_image(img.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const BlendWeights<C> w(brightness_factor);
    const C black = w.b * C(0);
    T* dst = out.data_ptr<T>();
    detail::for_each_row<const T>(img, [&](int64_t row, const T* src, int64_t stride) {
      T* o = dst + row * width;
      if (stride == 1) {
        for (int64_t x = 0; x < width; ++x) o[x] = clamp_to_image<T>(w.a * C(src[x]) + black);
      } else {
        for (int64_t x = 0; x < width; ++x) o[x] = clamp_to_image<T>(w.a * C(src[x * stride]) + black);
      }
    });
  });
  return out;
}

Tensor adjust_contrast(const Tensor& img, double contrast_factor) {
  const char* op = "adjust_contrast";
  check_factor(contrast_factor, op, "contrast_factor");
  const auto g = checked_image(img, op, 3);
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_contrast(x, contrast_factor); });
  Tensor out = empty(img.sizes(), img.dtype());
  if (g.numel() == 0) return out;
  const Tensor src = detail::contiguous_image(img);
  detail::dispatch_image(img.dtype(), op, [&](auto tag) {
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
      const C gray = w.b * mean;
      detail::parallel_items(image_size, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = clamp_to_image<T>(w.a * C(in[i]) + gray);
      });
    }
  });
  return out;
}

Tensor adjust_saturation(const Tensor& img, double saturation_factor) {
  const char* op = "adjust_saturation";
  check_factor(saturation_factor, op, "saturation_factor");
  const auto g = checked_image(img, op, 2);
  if (g.channels == 1) return img;  // torchvision (and PIL): nothing to desaturate
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_saturation(x, saturation_factor); });
  Tensor out = empty(img.sizes(), img.dtype());
  if (g.numel() == 0) return out;
  const Tensor src = detail::contiguous_image(img);
  const int64_t plane = g.plane();
  detail::dispatch_image(img.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const BlendWeights<C> w(saturation_factor);
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    // Items are (image, row) pairs; each blends the row's three channels with
    // its grayscale (uint8: the truncated grayscale, as torchvision).
    detail::parallel_items(g.batch * g.height, 3 * g.width, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t offset = (item / g.height) * 3 * plane + (item % g.height) * g.width;
        const T *r = in + offset, *gr = r + plane, *b = r + 2 * plane;
        T *orow = dst + offset, *og = orow + plane, *ob = orow + 2 * plane;
        for (int64_t x = 0; x < g.width; ++x) {
          const C l = w.b * C(detail::luma<T>(r[x], gr[x], b[x]));
          orow[x] = clamp_to_image<T>(w.a * C(r[x]) + l);
          og[x] = clamp_to_image<T>(w.a * C(gr[x]) + l);
          ob[x] = clamp_to_image<T>(w.a * C(b[x]) + l);
        }
      }
    });
  });
  return out;
}

namespace {

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

}  // namespace

Tensor adjust_gamma(const Tensor& img, double gamma, double gain) {
  const char* op = "adjust_gamma";
  const auto g = checked_image(img, op, 2);
  EMBER_CHECK(gamma >= 0, op, ": gamma (", gamma, ") must be a non-negative real number");
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_gamma(x, gamma, gain); });
  Tensor out = empty(img.sizes(), img.dtype());
  const int64_t width = g.width;
  detail::dispatch_image(img.dtype(), op, [&](auto tag) {
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
      detail::for_each_row<const T>(img, [&](int64_t row, const T* src, int64_t stride) {
        T* o = dst + row * width;
        for (int64_t x = 0; x < width; ++x) o[x] = table[src[x * stride]];
      });
    } else {
      detail::for_each_row<const T>(img, [&](int64_t row, const T* src, int64_t stride) {
        T* o = dst + row * width;
        for (int64_t x = 0; x < width; ++x)
          o[x] = detail::clamp_value(k * pow_like_torch(src[x * stride], e), C(0), C(1));
      });
    }
  });
  return out;
}

Tensor adjust_sharpness(const Tensor& img, double sharpness_factor) {
  const char* op = "adjust_sharpness";
  check_factor(sharpness_factor, op, "sharpness_factor");
  const auto g = checked_image(img, op, 3);
  if (g.width <= 2 || g.height <= 2) return img;
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_sharpness(x, sharpness_factor); });
  Tensor out = empty(img.sizes(), img.dtype());
  if (g.numel() == 0) return out;
  const Tensor src = detail::contiguous_image(img);
  const int64_t plane = g.plane(), width = g.width, height = g.height;
  detail::dispatch_image(img.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const BlendWeights<C> w(sharpness_factor);
    // torchvision's kernel: ones(3, 3) with 5 in the middle, divided by its
    // sum (13) in the compute type.
    const C edge = C(1) / C(13), center = C(5) / C(13);
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    // The degenerate (blurred) value at (y, x) of a plane: the interior is the
    // 3x3 convolution (uint8: rounded, as _cast_squeeze_out), the border the
    // image itself.
    auto blurred = [&](const T* p, int64_t y, int64_t x) -> C {
      const T* c = p + y * width + x;
      if (y == 0 || x == 0 || y == height - 1 || x == width - 1) return C(*c);
      const T* up = c - width;
      const T* down = c + width;
      C acc = edge * C(up[-1]) + edge * C(up[0]) + edge * C(up[1]);
      acc += edge * C(c[-1]) + center * C(c[0]) + edge * C(c[1]);
      acc += edge * C(down[-1]) + edge * C(down[0]) + edge * C(down[1]);
      if constexpr (std::is_same_v<T, uint8_t>) {
        return std::nearbyint(acc);
      } else {
        return acc;
      }
    };
    detail::parallel_items(g.planes() * height, width, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t p = item / height, y = item % height;
        const T* pin = in + p * plane;
        const T* row = pin + y * width;
        T* o = dst + p * plane + y * width;
        for (int64_t x = 0; x < width; ++x) o[x] = clamp_to_image<T>(w.a * C(row[x]) + w.b * blurred(pin, y, x));
      }
    });
  });
  return out;
}

}  // namespace ember::vision::transforms::functional
