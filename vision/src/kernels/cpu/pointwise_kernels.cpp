// The CPU kernels of invert_slot, posterize_slot and solarize_slot: functions
// of one value, over an image of any strides into a contiguous output.
#include "kernels/cpu/image_loops.h"
#include "kernels/slots/color_kernels.h"

namespace ember::vision {
namespace {

using namespace transforms;

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

void invert_kernel(Tensor& out, const Tensor& img) {
  detail::dispatch_image(img.dtype(), "invert", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, uint8_t>) {
      map_values<T>(img, out, [](T v) { return static_cast<uint8_t>(255 - v); });
    } else {
      map_values<T>(img, out, [](T v) { return T(1) - v; });
    }
  });
}

void posterize_kernel(Tensor& out, const Tensor& img, int64_t bits) {
  // torchvision: img & -(2 ** (8 - bits)), i.e. clears the low 8 - bits bits.
  const auto mask = static_cast<uint8_t>(-(int64_t{1} << (8 - bits)));
  map_values<uint8_t>(img, out, [mask](uint8_t v) { return static_cast<uint8_t>(v & mask); });
}

void solarize_kernel(Tensor& out, const Tensor& img, double threshold) {
  detail::dispatch_image(img.dtype(), "solarize", [&](auto tag) {
    using T = decltype(tag);
    using C = detail::compute_t<T>;
    // `img >= threshold` compares in float32 for uint8 images (the Python float
    // promotes the comparison), in the image's type otherwise.
    const C t = static_cast<C>(threshold);
    if constexpr (std::is_same_v<T, uint8_t>) {
      map_values<T>(img, out, [t](T v) { return C(v) >= t ? static_cast<uint8_t>(255 - v) : v; });
    } else {
      map_values<T>(img, out, [t](T v) { return v >= t ? T(1) - v : v; });
    }
  });
}

constexpr uint32_t kImageDTypes = dtype_bit(kUInt8) | dtype_bit(kFloat32) | dtype_bit(kFloat64);

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(invert_slot, CPU, invert_kernel, kImageDTypes);
EMBER_REGISTER_KERNEL_FOR_DTYPES(posterize_slot, CPU, posterize_kernel, dtype_bit(kUInt8));
EMBER_REGISTER_KERNEL_FOR_DTYPES(solarize_slot, CPU, solarize_kernel, kImageDTypes);

}  // namespace ember::vision
