// gaussian_blur: torchvision's kernel, applied as two 1-D passes
// (gaussian_blur_slot, kernels/slots/color_kernels.h; on any device whose
// backend fills it). The weights are computed here, on the host, from the
// arguments.
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
#include "kernels/slots/color_kernels.h"
#include "transforms/color/image.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(gaussian_blur_slot, GaussianBlurFn, "vision.gaussian_blur");

}  // namespace ember::vision

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
  detail::check_kernel(gaussian_blur_slot, img, op);
  Tensor out = empty(img.sizes(), img.options());
  if (g.numel() == 0) return out;

  gaussian_blur_slot(img.device())(out, img, gaussian_kernel1d(kx, sx), gaussian_kernel1d(ky, sy));
  return out;
}

}  // namespace ember::vision::transforms::functional
