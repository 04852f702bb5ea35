// Grid generation and sampling for the warps: the CPU kernel of warp_slot.
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
#include <algorithm>
#include <cmath>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/parallel.h>

#include "kernels/image_layout.h"
#include "kernels/slots/geometry_kernels.h"

namespace ember::vision::transforms::detail {
namespace {

// The map from an output pixel to its normalized grid coordinates ([-1, 1]
// spans the input), evaluated one output row at a time with torch's
// operations in torch's order.
template <class S>
struct GridMap {
  bool perspective = false;
  int64_t out_w = 0, out_h = 0;
  S ax = 0, bx = 0, cx = 0, ay = 0, by = 0, cy = 0, g = 0, h = 0;

  // torch.linspace's points: exact half-integers.
  static S base(int64_t i, int64_t n, bool centered) {
    return centered ? static_cast<S>(static_cast<double>(i) - static_cast<double>(n) * 0.5 + 0.5)
                    : static_cast<S>(static_cast<double>(i) + 0.5);
  }
  void row(int64_t j, S* gx, S* gy) const {
    const S y = base(j, out_h, !perspective);
    for (int64_t i = 0; i < out_w; ++i) {
      const S x = base(i, out_w, !perspective);
      if (!perspective) {
        gx[i] = x * ax + y * bx + cx;
        gy[i] = x * ay + y * by + cy;
      } else {
        const S den = x * g + y * h + S(1);
        gx[i] = (x * ax + y * bx + cx) / den - S(1);
        gy[i] = (x * ay + y * by + cy) / den - S(1);
      }
    }
  }
};

// _gen_affine_grid(theta, w, h, ow, oh): [x, y, 1] times theta^T / [w/2, h/2];
// _perspective_grid(coeffs, ow, oh): ([x, y, 1] theta1^T / [ow/2, oh/2]) /
// ([x, y, 1] theta2^T) - 1.
template <class S>
GridMap<S> grid_map(const Warp& warp, int64_t w, int64_t h) {
  GridMap<S> m;
  m.perspective = warp.kind == Warp::Kind::Perspective;
  m.out_w = warp.out_width;
  m.out_h = warp.out_height;
  const S half_w = static_cast<S>(0.5 * static_cast<double>(m.perspective ? warp.out_width : w));
  const S half_h = static_cast<S>(0.5 * static_cast<double>(m.perspective ? warp.out_height : h));
  S k[8];
  for (int i = 0; i < 8; ++i) k[i] = static_cast<S>(warp.m[static_cast<size_t>(i)]);
  m.ax = k[0] / half_w, m.bx = k[1] / half_w, m.cx = k[2] / half_w;
  m.ay = k[3] / half_h, m.by = k[4] / half_h, m.cy = k[5] / half_h;
  m.g = k[6], m.h = k[7];
  return m;
}

// Where the output pixels of one row read: per pixel, the offsets (in values
// from the image start) of up to four input pixels with their weights, and the
// mask (the sum of the in-image weights; nearest: 1 or 0, offset -1 outside).
template <class S>
struct RowTaps {
  std::vector<S> gx, gy;
  std::vector<int64_t> offset;
  std::vector<S> weight, mask;

  void compute(const GridMap<S>& map, int64_t j, const ImageLayout& in, bool nearest) {
    const int64_t n = map.out_w;
    gx.resize(static_cast<size_t>(n));
    gy.resize(static_cast<size_t>(n));
    offset.resize(static_cast<size_t>(n * 4));
    weight.resize(static_cast<size_t>(n * 4));
    mask.resize(static_cast<size_t>(n));
    map.row(j, gx.data(), gy.data());
    const S w = static_cast<S>(in.width), h = static_cast<S>(in.height);
    const S scale_x = w / S(2), scale_y = h / S(2);
    auto inside = [&](S x, S y) { return x >= S(0) && x < w && y >= S(0) && y < h; };
    auto offset_of = [&](S x, S y) {
      return static_cast<int64_t>(y) * in.row_stride + static_cast<int64_t>(x) * in.pixel;
    };
    for (int64_t p = 0; p < n; ++p) {
      // grid_sample's unnormalization (align_corners=False), as its vectorized CPU kernel.
      const S ix = (gx[static_cast<size_t>(p)] + S(1)) * scale_x - S(0.5);
      const S iy = (gy[static_cast<size_t>(p)] + S(1)) * scale_y - S(0.5);
      if (nearest) {
        const S x = std::nearbyint(ix), y = std::nearbyint(iy);  // half to even
        const bool ok = inside(x, y);
        offset[static_cast<size_t>(p)] = ok ? offset_of(x, y) : -1;
        mask[static_cast<size_t>(p)] = ok ? S(1) : S(0);
        continue;
      }
      const S x0 = std::floor(ix), y0 = std::floor(iy);
      const S dw = ix - x0, de = S(1) - dw, dn = iy - y0, ds = S(1) - dn;
      const S corner_w[4] = {ds * de, ds * dw, dn * de, dn * dw};  // nw, ne, sw, se
      const S cx[4] = {x0, x0 + S(1), x0, x0 + S(1)};
      const S cy[4] = {y0, y0, y0 + S(1), y0 + S(1)};
      S m = 0;
      for (int k = 0; k < 4; ++k) {
        // A corner outside reads pixel 0 with weight 0 (torch: value 0, weight kept).
        const bool ok = inside(cx[k], cy[k]);
        offset[static_cast<size_t>(p * 4 + k)] = ok ? offset_of(cx[k], cy[k]) : 0;
        const S wk = ok ? corner_w[k] : S(0);
        weight[static_cast<size_t>(p * 4 + k)] = wk;
        m = k == 0 ? wk : m + wk;
      }
      mask[static_cast<size_t>(p)] = m;
    }
  }
};

template <class T, class S>
T store_value(S v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(std::clamp(std::nearbyint(v), S(0), S(255)));
  } else {
    return static_cast<T>(v);
  }
}

// One output row of one image (kPixel values per pixel; 0: `pixel`).
// fill: per value of the pixel (interleaved) or the plane's value repeated.
template <class T, class S, int kPixel, bool kNearest, bool kFill>
void sample_row(const T* image, T* row, const RowTaps<S>& taps, int64_t width, int64_t pixel_dyn, const S* fill) {
  const int64_t pixel = kPixel > 0 ? kPixel : pixel_dyn;
  for (int64_t x = 0; x < width; ++x) {
    if constexpr (kNearest) {
      const int64_t off = taps.offset[static_cast<size_t>(x)];
      for (int64_t c = 0; c < pixel; ++c) {
        const S v = off >= 0 ? static_cast<S>(image[off + c]) : (kFill ? fill[c] : S(0));
        row[x * pixel + c] = store_value<T, S>(v);
      }
    } else {
      const int64_t* o = taps.offset.data() + x * 4;
      const S* wt = taps.weight.data() + x * 4;
      const S m = taps.mask[static_cast<size_t>(x)];
      for (int64_t c = 0; c < pixel; ++c) {
        S v = static_cast<S>(image[o[0] + c]) * wt[0] + static_cast<S>(image[o[1] + c]) * wt[1] +
              static_cast<S>(image[o[2] + c]) * wt[2] + static_cast<S>(image[o[3] + c]) * wt[3];
        if constexpr (kFill) v = v * m + (S(1) - m) * fill[c];
        row[x * pixel + c] = store_value<T, S>(v);
      }
    }
  }
}

template <class T, class S, bool kNearest, bool kFill>
void sample_row_any(const T* image, T* row, const RowTaps<S>& taps, int64_t width, int64_t pixel, const S* fill) {
  switch (pixel) {
    case 1: return sample_row<T, S, 1, kNearest, kFill>(image, row, taps, width, 1, fill);
    case 3: return sample_row<T, S, 3, kNearest, kFill>(image, row, taps, width, 3, fill);
    case 4: return sample_row<T, S, 4, kNearest, kFill>(image, row, taps, width, 4, fill);
    default: return sample_row<T, S, 0, kNearest, kFill>(image, row, taps, width, pixel, fill);
  }
}

template <class T, class S>
void warp_typed(Tensor& out, const Tensor& image, const Warp& warp, InterpolationMode mode,
                const std::vector<double>& fill) {
  const ImageLayout in = layout_of(image, is_interleaved(image));
  const GridMap<S> map = grid_map<S>(warp, in.width, in.height);
  const ImageLayout ol = layout_of(out, in.interleaved);
  const int64_t channels = image.size(1);
  std::vector<S> fill_s(static_cast<size_t>(channels), S(0));
  for (int64_t c = 0; c < channels; ++c)
    if (!fill.empty()) fill_s[static_cast<size_t>(c)] = static_cast<S>(fill.size() == 1 ? fill[0] : fill[static_cast<size_t>(c)]);
  const bool nearest = mode == InterpolationMode::Nearest, use_fill = !fill.empty();
  const T* src = image.data_ptr<T>();
  T* dst = out.data_ptr<T>();
  // Threads over output rows; each row's taps serve every image of the batch.
  const int64_t work_per_row = ol.row_values() * ol.count;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, work_per_row));
  parallel_for(0, warp.out_height, grain, [&](int64_t begin, int64_t end) {
    RowTaps<S> taps;
    std::vector<S> plane_fill(static_cast<size_t>(std::max<int64_t>(in.pixel, 1)));
    for (int64_t y = begin; y < end; ++y) {
      taps.compute(map, y, in, nearest);
      for (int64_t i = 0; i < ol.count; ++i) {
        const S* f = fill_s.data();
        if (!in.interleaved) {  // one plane: its channel's fill
          plane_fill[0] = fill_s[static_cast<size_t>(i % in.channels)];
          f = plane_fill.data();
        }
        const T* image = src + in.offset(i);
        T* row = dst + ol.offset(i) + y * ol.row_stride;
        if (nearest) {
          if (use_fill) sample_row_any<T, S, true, true>(image, row, taps, ol.width, in.pixel, f);
          else sample_row_any<T, S, true, false>(image, row, taps, ol.width, in.pixel, f);
        } else {
          if (use_fill) sample_row_any<T, S, false, true>(image, row, taps, ol.width, in.pixel, f);
          else sample_row_any<T, S, false, false>(image, row, taps, ol.width, in.pixel, f);
        }
      }
    }
  });
}

}  // namespace
}  // namespace ember::vision::transforms::detail

namespace ember::vision {
namespace {

void warp_kernel(Tensor& out, const Tensor& in, const transforms::detail::Warp& warp,
                 transforms::InterpolationMode mode, const std::vector<double>& fill) {
  using transforms::detail::warp_typed;
  switch (in.dtype()) {
    case kUInt8: return warp_typed<uint8_t, float>(out, in, warp, mode, fill);
    case kFloat32: return warp_typed<float, float>(out, in, warp, mode, fill);
    case kFloat64: return warp_typed<double, double>(out, in, warp, mode, fill);
    default: EMBER_FAIL("warp: the CPU kernel computes uint8, float32 and float64, got ", in.dtype());
  }
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(warp_slot, CPU, warp_kernel,
                                 dtype_bit(kUInt8) | dtype_bit(kFloat32) | dtype_bit(kFloat64));

}  // namespace ember::vision
