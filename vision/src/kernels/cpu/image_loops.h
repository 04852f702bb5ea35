#pragma once
// The loops and the arithmetic that vision's CPU color kernels share: the
// dtype switch over the image dtypes (uint8, float32, float64), torchvision's
// float-then-truncate arithmetic, and the parallel walks over rows and runs
// of an image of any strides.
//
// Note [Color arithmetic]
// torchvision computes every color op with tensor ops, one rounding per op:
// _blend is `(ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(dtype)`
// in float32 for uint8 images (the Python float ratio is rounded to float32),
// and `.to(torch.uint8)` truncates. The kernels here write the same steps in
// the same order and in the same precision, and the files that include this
// are compiled with -ffp-contract=off (vision/CMakeLists.txt) so that no multiply-add is fused
// into one rounding: uint8 results then match torchvision exactly wherever
// torchvision's own result does not depend on a summation order (means,
// convolutions) or on a vectorized libm (pow, exp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <ember/core/error.h>
#include <ember/core/parallel.h>
#include <ember/core/tensor.h>

#include "kernels/image_layout.h"

namespace ember::vision::transforms::detail {

// Calls f(T{}) with T the image's element type.
template <class F>
decltype(auto) dispatch_image(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::UInt8: return f(uint8_t{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    default: EMBER_FAIL(op, ": expected a uint8, float32 or float64 image, got ", dtype);
  }
}

// The type torchvision computes a T image's color arithmetic in: float32 for
// uint8 (Python scalars times a uint8 tensor give float32), else T.
template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The largest value of an image of type T: 255 for uint8, 1 for floats.
template <class T>
constexpr compute_t<T> image_bound() {
  return std::is_same_v<T, uint8_t> ? compute_t<T>(255) : compute_t<T>(1);
}

// torch's clamp(min, max): NaN passes through (std::max(NaN, lo) is NaN,
// and so is std::min of it; the forms compile to maxps/minps).
template <class C>
inline C clamp_value(C x, C lo, C hi) {
  return std::min(std::max(x, lo), hi);
}

// `.clamp(0, bound).to(T)` of a value computed in compute_t<T>: uint8
// truncates (the cast), floats keep the value.
template <class T, class C>
inline T clamp_to_image(C x) {
  const C c = clamp_value(x, C(0), C(image_bound<T>()));
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(static_cast<int32_t>(c));
  } else {
    return static_cast<T>(c);
  }
}

// clamp_to_image for values known to lie well within int32 (blends of uint8
// values with weights of at most 2^20, see blend_bounded): for uint8 the
// lower half of the clamp moves to the integers (x < 0 truncates to <= 0 and
// is raised to 0: the same result), which GCC vectorizes in about half the
// instructions of the float clamp. Floats: clamp_to_image.
template <class T, class C>
inline T clamp_to_image_bounded(C x) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    const int32_t k = static_cast<int32_t>(std::min(x, C(255)));
    return static_cast<uint8_t>(std::max(k, 0));
  } else {
    return clamp_to_image<T>(x);
  }
}

// Whether a blend a * x + b * y of image values (|x|, |y| <= 255) stays within
// int32, so that clamp_to_image_bounded applies.
template <class C>
inline bool blend_bounded(C a, C b) {
  return std::abs(a) <= C(1 << 20) && std::abs(b) <= C(1 << 20);
}

// torchvision's rgb_to_grayscale of one pixel: 0.2989 r + 0.587 g + 0.114 b,
// each product rounded, added left to right, then `.to(T)` (uint8 truncates,
// so a white pixel gives 254).
template <class T>
inline T luma(T r, T g, T b) {
  using C = compute_t<T>;
  const C l = C(0.2989) * C(r) + C(0.587) * C(g) + C(0.114) * C(b);
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(static_cast<int32_t>(l));
  } else {
    return l;
  }
}

// Note [Image kernel grain]
// A chunk of parallel work is at least kImageGrain units of simple per-pixel
// work (one load, a few flops, one store). A 224x224 RGB crop (150 K values)
// then runs the light kernels (convert, normalize, brightness...) on one
// thread: in a data pipeline the samples are the parallelism, and waking an
// OpenMP team for 20-30 us of work saves ~10 us on an idle machine but costs
// whole scheduler ticks (8-16 ms measured on the shared 2-core machine) when
// the other core is busy. Heavy kernels (hue, blur, sharpness) pass a larger
// work_per_item and still split a single image; batches always split.
inline constexpr int64_t kImageGrain = int64_t{1} << 18;

// Runs f(begin, end) over [0, n) items of `work_per_item` units each, in
// parallel chunks of at least kImageGrain units.
template <class F>
void parallel_items(int64_t n, int64_t work_per_item, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kImageGrain / std::max<int64_t>(1, work_per_item));
  parallel_for(0, n, grain, f);
}

// Calls f(row, ptr, w_stride) for every row of t (every index but the last),
// rows numbered in t's logical row-major order, in parallel chunks; ptr is
// the row's first element in t's own strides (any layout: a crop, an
// interleaved [C, H, W] view of HWC rows). For kernels whose work per row is
// large (the blur); elementwise kernels use for_each_run.
template <class T, class F>
void for_each_row(const Tensor& t, const F& f, int64_t work_per_element = 1) {
  const int64_t d = t.dim();
  const int64_t width = t.size(d - 1);
  if (t.numel() == 0) return;
  const int64_t rows = t.numel() / width;
  const int64_t w_stride = t.stride(d - 1);
  int64_t sizes[16], strides[16];
  EMBER_CHECK(d <= 17, "image kernels: too many dims (", d, ")");
  for (int64_t k = 0; k + 1 < d; ++k) {
    sizes[k] = t.size(k);
    strides[k] = t.stride(k);
  }
  T* base = static_cast<T*>(t.data_ptr());
  parallel_items(rows, width * work_per_element, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t rest = r, offset = 0;
      for (int64_t k = d - 2; k >= 0; --k) {
        offset += (rest % sizes[k]) * strides[k];
        rest /= sizes[k];
      }
      f(r, base + offset, w_stride);
    }
  });
}

// Calls f(index, ptr, stride, n) over every element of t, in runs: n
// elements that start at t's logical (row-major) element `index` and lie at
// ptr, ptr + stride, ... A run never leaves one [H, W] plane, so a kernel's
// channel is constant along it; the plane is one run when its rows are evenly
// spaced (contiguous images, interleaved HWC views), else each row is. The
// runs are cut into parallel chunks of kImageGrain elements, and the
// position of each run is carried from the previous one (no division per
// row), so that a strided crop costs no more per row than a contiguous one.
template <class T, class F>
void for_each_run(const Tensor& t, const F& f) {
  const int64_t d = t.dim();
  const int64_t total = t.numel();
  if (total == 0) return;
  EMBER_CHECK(d >= 1 && d <= 16, "image kernels: unsupported number of dims (", d, ")");
  const int64_t width = t.size(d - 1), w_stride = t.stride(d - 1);
  // Rows merge into one run per plane when evenly spaced.
  const bool merge = d >= 2 && (t.size(d - 2) == 1 || t.stride(d - 2) == width * w_stride);
  const int64_t inner_dims = merge ? 2 : 1;
  const int64_t run_length = merge ? t.size(d - 2) * width : width;
  const int64_t outer = d - inner_dims;
  int64_t sizes[16], strides[16];
  for (int64_t k = 0; k < outer; ++k) {
    sizes[k] = t.size(k);
    strides[k] = t.stride(k);
  }
  T* base = static_cast<T*>(t.data_ptr());
  parallel_for(0, total, kImageGrain, [&](int64_t begin, int64_t end) {
    int64_t run = begin / run_length, within = begin % run_length;
    // The multi-index of `run` over the outer dims, and its offset.
    int64_t index[16], offset = 0;
    for (int64_t k = outer - 1, rest = run; k >= 0; --k) {
      index[k] = rest % sizes[k];
      rest /= sizes[k];
      offset += index[k] * strides[k];
    }
    for (int64_t i = begin; i < end;) {
      const int64_t n = std::min(run_length - within, end - i);
      f(i, base + offset + within * w_stride, w_stride, n);
      i += n;
      within = 0;
      for (int64_t k = outer - 1; k >= 0; --k) {  // next run
        offset += strides[k];
        if (++index[k] < sizes[k]) break;
        offset -= index[k] * strides[k];
        index[k] = 0;
      }
    }
  });
}

}  // namespace ember::vision::transforms::detail
