// gaussian_blur: torchvision's kernel, applied as two 1-D passes.
//
// torchvision builds a 2-D kernel, the outer product of two normalized 1-D
// Gaussians computed in float32, reflect-pads the image and runs a depthwise
// conv2d. The same kernel applied separably (rows, then columns) costs kx + ky
// multiply-adds per pixel instead of kx * ky; it differs from the 2-D sum only
// in the order of float roundings (about 1e-7 relative; a uint8 result that
// lands within that of .5 may round the other way).
#include <cmath>
#include <vector>

#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "transforms/color/image.h"

namespace ember::vision::transforms::functional {
namespace {

// torch.sum of a short contiguous float32 vector, in torch's order
// (SumKernel.cpp's cascade_sum: lanes of 8, each summed with 4 interleaved
// accumulators; the tail first, then the lanes), so that the normalized
// kernel is torchvision's to the bit. Checked against torch.sum for every
// length up to 300.
float row_sum(const float* y, int64_t stride, int64_t m) {
  // multi_row_sum with 4 columns; kernels are far shorter than the 16-row
  // blocks where its cascade levels would start.
  const int64_t rows = m / 4;
  float partial[4] = {0, 0, 0, 0};
  for (int64_t k = 0; k < 4; ++k) {
    float acc[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 16 <= rows;) {
      for (int64_t j = 0; j < 16; ++j, ++i) acc[0] += y[(4 * i + k) * stride];
      for (int64_t j = 1; j < 4; ++j) {
        acc[j] += acc[j - 1];
        acc[j - 1] = 0;
        if ((i & (int64_t{15} << (j * 4))) != 0) break;
      }
    }
    for (; i < rows; ++i) acc[0] += y[(4 * i + k) * stride];
    for (int64_t j = 1; j < 4; ++j) acc[0] += acc[j];
    partial[k] = acc[0];
  }
  for (int64_t i = rows * 4; i < m; ++i) partial[0] += y[i * stride];
  for (int64_t k = 1; k < 4; ++k) partial[0] += partial[k];
  return partial[0];
}

float torch_sum(const std::vector<float>& x) {
  const auto n = static_cast<int64_t>(x.size());
  if (n < 8) return row_sum(x.data(), 1, n);
  const int64_t vectors = n / 8;
  float total = 0;
  for (int64_t k = vectors * 8; k < n; ++k) total += x[static_cast<size_t>(k)];
  for (int64_t lane = 0; lane < 8; ++lane) total += row_sum(x.data() + lane, 8, vectors);
  return total;
}

// torchvision's _get_gaussian_kernel1d, in float32: linspace(-(k-1)/2,
// (k-1)/2, k) (integers), exp(-0.5 * (x / sigma)^2), divided by its sum.
std::vector<float> gaussian_kernel1d(int64_t size, double sigma) {
  std::vector<float> pdf(static_cast<size_t>(size));
  const float s = static_cast<float>(sigma);
  const float half = static_cast<float>((static_cast<double>(size) - 1) * 0.5);
  for (int64_t i = 0; i < size; ++i) {
    const float x = -half + static_cast<float>(i);
    const float z = x / s;
    // torch's vectorized expf is within an ulp; exp in double, rounded once,
    // is the correctly rounded value it gives on these arguments.
    pdf[static_cast<size_t>(i)] = static_cast<float>(std::exp(static_cast<double>(-0.5f * (z * z))));
  }
  const float sum = torch_sum(pdf);
  for (float& v : pdf) v /= sum;
  return pdf;
}

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

}  // namespace

Tensor gaussian_blur(const Tensor& img, const std::vector<int64_t>& kernel_size, const std::vector<double>& sigma) {
  const char* op = "gaussian_blur";
  EMBER_CHECK(kernel_size.size() == 1 || kernel_size.size() == 2, op,
              ": kernel_size must hold one or two values, got ", kernel_size.size());
  const int64_t kx = kernel_size[0], ky = kernel_size.back();
  EMBER_CHECK(kx > 0 && ky > 0 && kx % 2 == 1 && ky % 2 == 1, op,
              ": kernel_size must hold odd positive integers, got [", kx, ", ", ky, "]");
  EMBER_CHECK(sigma.size() <= 2, op, ": sigma must hold zero, one or two values, got ", sigma.size());
  // torchvision's default: 0.15 * k + 0.35 per side.
  const double sx = sigma.empty() ? 0.15 * static_cast<double>(kx) + 0.35 : sigma[0];
  const double sy = sigma.empty() ? 0.15 * static_cast<double>(ky) + 0.35 : sigma.back();
  EMBER_CHECK(sx > 0 && sy > 0, op, ": sigma must be positive, got [", sx, ", ", sy, "]");
  const auto g = detail::image_geometry(img, op, 3);
  detail::check_image_dtype(img, op);
  const int64_t rx = kx / 2, ry = ky / 2;
  EMBER_CHECK(g.numel() == 0 || (rx < g.width && ry < g.height), op, ": kernel_size [", kx, ", ", ky,
              "] needs reflect padding (", rx, ", ", ry, ") smaller than the image's width and height (", g.width,
              ", ", g.height, ")");
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return gaussian_blur(x, kernel_size, sigma); });
  Tensor out = empty(img.sizes(), img.dtype());
  if (g.numel() == 0) return out;

  const std::vector<float> wx32 = gaussian_kernel1d(kx, sx), wy32 = gaussian_kernel1d(ky, sy);
  const int64_t width = g.width, height = g.height, rows = g.planes() * height;
  detail::dispatch_image(img.dtype(), op, [&](auto tag) {
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
  return out;
}

}  // namespace ember::vision::transforms::functional
