// invert, posterize, solarize: functions of one value.
#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "transforms/color/image.h"

namespace ember::vision::transforms::functional {
namespace {

// f of every value of a row; f and the pointers are local and restrict so
// that the loop vectorizes (a uint8 store may alias anything otherwise).
template <class T, class F>
void map_row(const T* __restrict src, int64_t stride, T* __restrict dst, int64_t n, F f) {
  if (stride == 1) {
    for (int64_t x = 0; x < n; ++x) dst[x] = f(src[x]);
  } else {
    for (int64_t x = 0; x < n; ++x) dst[x] = f(src[x * stride]);
  }
}

// Writes f(value) of every element of img (any strides) into the contiguous `out`.
template <class T, class F>
void map_values(const Tensor& img, Tensor& out, const F& f) {
  T* dst = out.data_ptr<T>();
  detail::for_each_run<const T>(img, [&](int64_t index, const T* src, int64_t stride, int64_t n) {
    map_row<T>(src, stride, dst + index, n, f);
  });
}

void check_pointwise_image(const Tensor& img, const char* op) {
  const auto g = detail::image_geometry(img, op, 3);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
}

}  // namespace

Tensor invert(const Tensor& img) {
  check_pointwise_image(img, "invert");
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [](const Tensor& x) { return invert(x); });
  Tensor out = empty(img.sizes(), img.dtype());
  detail::dispatch_image(img.dtype(), "invert", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, uint8_t>) {
      map_values<T>(img, out, [](T v) { return static_cast<uint8_t>(255 - v); });
    } else {
      map_values<T>(img, out, [](T v) { return T(1) - v; });
    }
  });
  return out;
}

Tensor posterize(const Tensor& img, int64_t bits) {
  EMBER_CHECK(bits >= 0 && bits <= 8, "posterize: the number of bits must be between 0 and 8, got ", bits);
  check_pointwise_image(img, "posterize");
  EMBER_CHECK(img.dtype() == DType::UInt8, "posterize: only uint8 images are supported, got ", img.dtype());
  Tensor out = empty(img.sizes(), img.dtype());
  // torchvision: img & -(2 ** (8 - bits)), i.e. clears the low 8 - bits bits.
  const auto mask = static_cast<uint8_t>(-(int64_t{1} << (8 - bits)));
  map_values<uint8_t>(img, out, [mask](uint8_t v) { return static_cast<uint8_t>(v & mask); });
  return out;
}

Tensor solarize(const Tensor& img, double threshold) {
  check_pointwise_image(img, "solarize");
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return solarize(x, threshold); });
  Tensor out = empty(img.sizes(), img.dtype());
  detail::dispatch_image(img.dtype(), "solarize", [&](auto tag) {
    using T = decltype(tag);
    using C = detail::compute_t<T>;
    EMBER_CHECK(threshold <= static_cast<double>(detail::image_bound<T>()), "solarize: threshold (", threshold,
                ") must not exceed the largest value of a ", img.dtype(), " image (", detail::image_bound<T>(), ")");
    // `img >= threshold` compares in float32 for uint8 images (the Python float
    // promotes the comparison), in the image's type otherwise.
    const C t = static_cast<C>(threshold);
    if constexpr (std::is_same_v<T, uint8_t>) {
      map_values<T>(img, out, [t](T v) { return C(v) >= t ? static_cast<uint8_t>(255 - v) : v; });
    } else {
      map_values<T>(img, out, [t](T v) { return v >= t ? T(1) - v : v; });
    }
  });
  return out;
}

}  // namespace ember::vision::transforms::functional
