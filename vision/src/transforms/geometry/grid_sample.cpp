// Grid generation and sampling for the warps.
//
// Note [Warp numerics]
// The grid is computed in the sampling type S (float32 for uint8 and float32
// images, float64 for float64), with torch's operations in torch's order and
// without fused multiply-adds (this file is compiled with -ffp-contract=off):
// a nearest-neighbour sample whose coordinate lies on a pixel edge then rounds
// the same way as torchvision. The sampling itself follows grid_sample's
// vectorized CPU kernel: coordinates unnormalized as (g + 1) * size / 2 - 0.5,
// nearest rounds half to even, bilinear weights from the distances to the
// floor corner, corners outside the image contribute zero.
#include "transforms/geometry/grid_sample.h"

#include <algorithm>
#include <cmath>

#include <ember/core/error.h>
#include <ember/core/parallel.h>
#include <ember/ops/elementwise.h>

#include "transforms/geometry/image_layout.h"

namespace ember::vision::transforms::detail {
namespace {

// The normalized sampling grid ([-1, 1] spans the input), one (x, y) per output pixel.
template <class S>
struct Grid {
  int64_t height = 0, width = 0;
  std::vector<S> x, y;
};

// torch.linspace(start, start + n - 1, n): exact half-integers.
template <class S>
S base_coord(int64_t i, int64_t n, bool centered) {
  return centered ? static_cast<S>(static_cast<double>(i) - static_cast<double>(n) * 0.5 + 0.5)
                  : static_cast<S>(static_cast<double>(i) + 0.5);
}

// _gen_affine_grid(theta, w, h, ow, oh): base [x, y, 1] times theta^T / [w/2, h/2].
template <class S>
Grid<S> affine_grid(const std::array<double, 8>& m, int64_t w, int64_t h, int64_t ow, int64_t oh) {
  const S half_w = static_cast<S>(0.5 * static_cast<double>(w));
  const S half_h = static_cast<S>(0.5 * static_cast<double>(h));
  const S t[6] = {static_cast<S>(m[0]), static_cast<S>(m[1]), static_cast<S>(m[2]),
                  static_cast<S>(m[3]), static_cast<S>(m[4]), static_cast<S>(m[5])};
  const S ax = t[0] / half_w, bx = t[1] / half_w, cx = t[2] / half_w;
  const S ay = t[3] / half_h, by = t[4] / half_h, cy = t[5] / half_h;
  Grid<S> g;
  g.height = oh;
  g.width = ow;
  g.x.resize(static_cast<size_t>(oh * ow));
  g.y.resize(static_cast<size_t>(oh * ow));
  for (int64_t j = 0; j < oh; ++j) {
    const S y = base_coord<S>(j, oh, true);
    for (int64_t i = 0; i < ow; ++i) {
      const S x = base_coord<S>(i, ow, true);
      g.x[static_cast<size_t>(j * ow + i)] = x * ax + y * bx + cx;
      g.y[static_cast<size_t>(j * ow + i)] = x * ay + y * by + cy;
    }
  }
  return g;
}

// _perspective_grid(coeffs, ow, oh): (base theta1^T / [ow/2, oh/2]) / (base theta2^T) - 1.
template <class S>
Grid<S> perspective_grid(const std::array<double, 8>& c, int64_t ow, int64_t oh) {
  const S half_w = static_cast<S>(0.5 * static_cast<double>(ow));
  const S half_h = static_cast<S>(0.5 * static_cast<double>(oh));
  S k[8];
  for (int i = 0; i < 8; ++i) k[i] = static_cast<S>(c[static_cast<size_t>(i)]);
  const S ax = k[0] / half_w, bx = k[1] / half_w, cx = k[2] / half_w;
  const S ay = k[3] / half_h, by = k[4] / half_h, cy = k[5] / half_h;
  Grid<S> g;
  g.height = oh;
  g.width = ow;
  g.x.resize(static_cast<size_t>(oh * ow));
  g.y.resize(static_cast<size_t>(oh * ow));
  for (int64_t j = 0; j < oh; ++j) {
    const S y = base_coord<S>(j, oh, false);
    for (int64_t i = 0; i < ow; ++i) {
      const S x = base_coord<S>(i, ow, false);
      const S den = x * k[6] + y * k[7] + S(1);
      g.x[static_cast<size_t>(j * ow + i)] = (x * ax + y * bx + cx) / den - S(1);
      g.y[static_cast<size_t>(j * ow + i)] = (x * ay + y * by + cy) / den - S(1);
    }
  }
  return g;
}

// Where each output pixel reads: offsets of up to four input pixels (in
// values, from the image start) with their weights, and the mask value.
template <class S>
struct Taps {
  std::vector<int64_t> offset;  // 4 per pixel (nearest: 1)
  std::vector<S> weight;        // 4 per pixel (nearest: unused)
  std::vector<S> mask;          // sum of the in-image weights (nearest: 1 or 0)
};

template <class S>
Taps<S> make_taps(const Grid<S>& g, const ImageLayout& in, InterpolationMode mode) {
  const int64_t n = g.height * g.width;
  const int64_t w = in.width, h = in.height;
  const S scale_x = static_cast<S>(w) / S(2), scale_y = static_cast<S>(h) / S(2);
  Taps<S> t;
  const bool nearest = mode == InterpolationMode::Nearest;
  t.offset.resize(static_cast<size_t>(n * (nearest ? 1 : 4)));
  if (!nearest) t.weight.resize(static_cast<size_t>(n * 4));
  t.mask.resize(static_cast<size_t>(n));
  auto inside = [&](S x, S y) { return x >= S(0) && x < static_cast<S>(w) && y >= S(0) && y < static_cast<S>(h); };
  auto offset_of = [&](S x, S y) {
    return static_cast<int64_t>(y) * in.row_stride + static_cast<int64_t>(x) * in.pixel;
  };
  for (int64_t p = 0; p < n; ++p) {
    const S ix = (g.x[static_cast<size_t>(p)] + S(1)) * scale_x - S(0.5);
    const S iy = (g.y[static_cast<size_t>(p)] + S(1)) * scale_y - S(0.5);
    if (nearest) {
      const S x = std::nearbyint(ix), y = std::nearbyint(iy);
      const bool ok = inside(x, y);
      t.offset[static_cast<size_t>(p)] = ok ? offset_of(x, y) : -1;
      t.mask[static_cast<size_t>(p)] = ok ? S(1) : S(0);
      continue;
    }
    const S x0 = std::floor(ix), y0 = std::floor(iy);
    const S dw = ix - x0, de = S(1) - dw, dn = iy - y0, ds = S(1) - dn;
    const S corner_w[4] = {ds * de, ds * dw, dn * de, dn * dw};  // nw, ne, sw, se
    const S cx[4] = {x0, x0 + S(1), x0, x0 + S(1)};
    const S cy[4] = {y0, y0, y0 + S(1), y0 + S(1)};
    S mask = 0;
    for (int k = 0; k < 4; ++k) {
      const bool ok = inside(cx[k], cy[k]);
      t.offset[static_cast<size_t>(p * 4 + k)] = ok ? offset_of(cx[k], cy[k]) : 0;
      t.weight[static_cast<size_t>(p * 4 + k)] = ok ? corner_w[k] : S(0);
      mask = k == 0 ? (ok ? corner_w[0] : S(0)) : mask + (ok ? corner_w[k] : S(0));
    }
    t.mask[static_cast<size_t>(p)] = mask;
  }
  return t;
}

template <class T, class S>
T store_value(S v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(std::clamp(std::nearbyint(v), S(0), S(255)));
  } else {
    return static_cast<T>(v);
  }
}

// Samples every image of the batch with the same taps (T: the image type, S: the sampling type).
template <class T, class S>
void sample(const T* src, const ImageLayout& in, T* dst, const ImageLayout& out, const Taps<S>& taps,
            InterpolationMode mode, const std::vector<S>& fill /* per value of a pixel... see below */,
            bool use_fill) {
  const int64_t pixel = in.pixel;
  const bool nearest = mode == InterpolationMode::Nearest;
  const int64_t total = out.count * out.height;
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, out.row_values()));
  parallel_for(0, total, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t i = r / out.height, y = r % out.height;
      const T* image = src + in.offset(i);
      T* row = dst + out.offset(i) + y * out.row_stride;
      // The fill value of this plane (planar) or of each value of the pixel (interleaved).
      const int64_t plane_channel = in.interleaved ? 0 : i % in.channels;
      for (int64_t x = 0; x < out.width; ++x) {
        const int64_t p = y * out.width + x;
        for (int64_t c = 0; c < pixel; ++c) {
          const S f = use_fill ? fill[static_cast<size_t>(in.interleaved ? c : plane_channel)] : S(0);
          S v;
          if (nearest) {
            const int64_t off = taps.offset[static_cast<size_t>(p)];
            v = off >= 0 ? static_cast<S>(image[off + c]) : S(0);
            if (use_fill && off < 0) v = f;
          } else {
            const int64_t* o = taps.offset.data() + p * 4;
            const S* wt = taps.weight.data() + p * 4;
            v = static_cast<S>(image[o[0] + c]) * wt[0] + static_cast<S>(image[o[1] + c]) * wt[1] +
                static_cast<S>(image[o[2] + c]) * wt[2] + static_cast<S>(image[o[3] + c]) * wt[3];
            if (use_fill) {
              const S m = taps.mask[static_cast<size_t>(p)];
              v = v * m + (S(1) - m) * f;
            }
          }
          row[x * pixel + c] = store_value<T, S>(v);
        }
      }
    }
  });
}

template <class T, class S>
Tensor warp_typed(const BatchedImage& b, const Warp& warp, InterpolationMode mode, const std::vector<double>& fill) {
  const ImageLayout& in = b.layout;
  const Grid<S> grid = warp.kind == Warp::Kind::Affine
                           ? affine_grid<S>(warp.m, in.width, in.height, warp.out_width, warp.out_height)
                           : perspective_grid<S>(warp.m, warp.out_width, warp.out_height);
  const Taps<S> taps = make_taps(grid, in, mode);
  BatchedImage out = new_image_like(b, warp.out_height, warp.out_width, b.image.dtype());
  const int64_t channels = b.image.size(1);
  std::vector<S> fill_s(static_cast<size_t>(channels), S(0));
  for (int64_t c = 0; c < channels; ++c)
    if (!fill.empty()) fill_s[static_cast<size_t>(c)] = static_cast<S>(fill.size() == 1 ? fill[0] : fill[static_cast<size_t>(c)]);
  sample<T, S>(b.image.data_ptr<T>(), in, out.image.data_ptr<T>(), out.layout, taps, mode, fill_s, !fill.empty());
  return unbatched(out);
}

}  // namespace

Tensor apply_warp(const Tensor& img, const Warp& warp, InterpolationMode mode, const std::vector<double>& fill,
                  const char* op) {
  EMBER_CHECK(mode == InterpolationMode::Nearest || mode == InterpolationMode::Bilinear, op,
              ": interpolation must be nearest or bilinear for tensors, got ", interpolation_name(mode));
  const BatchedImage b = batched_image(img, op);
  const int64_t channels = b.image.size(1);
  EMBER_CHECK(fill.size() <= 1 || static_cast<int64_t>(fill.size()) == channels, op, ": fill has ", fill.size(),
              " values, which cannot broadcast to the image's ", channels, " channels");
  EMBER_CHECK(warp.out_height > 0 && warp.out_width > 0, op, ": the output size ", warp.out_height, "x",
              warp.out_width, " is empty");
  const DType dtype = img.dtype();
  EMBER_CHECK(dtype != kBool && !is_complex(dtype), op, ": unsupported dtype ", dtype);
  switch (dtype) {
    case kUInt8: return warp_typed<uint8_t, float>(b, warp, mode, fill);
    case kFloat32: return warp_typed<float, float>(b, warp, mode, fill);
    case kFloat64: return warp_typed<double, double>(b, warp, mode, fill);
    default: {
      // As torchvision: through float32, rounded back for integer types.
      Tensor r = apply_warp(img.to(kFloat32), warp, mode, fill, op);
      if (!is_floating_point(dtype)) r = r.round();
      return r.to(dtype);
    }
  }
}

std::array<int64_t, 2> affine_output_size(const std::array<double, 6>& matrix, int64_t w, int64_t h) {
  // In float32, as torchvision (pts @ theta.T, shifted, truncated to 1e-4).
  const float hw = static_cast<float>(0.5 * static_cast<double>(w)), hh = static_cast<float>(0.5 * static_cast<double>(h));
  const float pts[4][2] = {{-hw, -hh}, {-hw, hh}, {hw, hh}, {hw, -hh}};
  float t[6];
  for (int i = 0; i < 6; ++i) t[i] = static_cast<float>(matrix[static_cast<size_t>(i)]);
  float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (const auto& p : pts) {
    const float v[2] = {p[0] * t[0] + p[1] * t[1] + t[2], p[0] * t[3] + p[1] * t[4] + t[5]};
    for (int k = 0; k < 2; ++k) {
      lo[k] = std::min(lo[k], v[k]);
      hi[k] = std::max(hi[k], v[k]);
    }
  }
  const float shift[2] = {hw, hh};
  const float tol = 1e-4f;
  std::array<int64_t, 2> size{};
  for (int k = 0; k < 2; ++k) {
    const float cmax = std::ceil(std::trunc((hi[k] + shift[k]) / tol) * tol);
    const float cmin = std::floor(std::trunc((lo[k] + shift[k]) / tol) * tol);
    size[static_cast<size_t>(k)] = static_cast<int64_t>(cmax - cmin);
  }
  return size;
}

}  // namespace ember::vision::transforms::detail
