// The CPU kernel of hue_slot: torchvision's _rgb2hsv, hue shift, _hsv2rgb,
// one pixel at a time with torchvision's operations in its order (Note
// [Color arithmetic] in image_loops.h).
#include <cmath>

#include "kernels/cpu/image_loops.h"
#include "kernels/slots/color_kernels.h"

namespace ember::vision {
namespace {

using namespace transforms;

// torch.fmod(x, 1) for x >= 0 or < 0: x - trunc(x) is exact in floating point.
template <class C>
inline C fmod1(C x) {
  return x - std::trunc(x);
}

// torch.remainder(x, 1) (Python's %): the fmod, moved into [0, 1).
template <class C>
inline C remainder1(C x) {
  const C m = fmod1(x);
  return m < 0 ? m + C(1) : m;
}

// One pixel through _rgb2hsv, the hue shift, and _hsv2rgb.
template <class C>
inline void shift_hue(C r, C g, C b, C hue, C& out_r, C& out_g, C& out_b) {
  // _rgb2hsv (Pillow's algorithm). Where max == min, S and H are 0 and the
  // denominators are replaced by 1, as torchvision does.
  const C max_rg = r > g ? r : g, min_rg = r < g ? r : g;
  const C maxc = max_rg > b ? max_rg : b;
  const C minc = min_rg < b ? min_rg : b;
  const bool eqc = maxc == minc;
  const C cr = maxc - minc;
  const C s = cr / (eqc ? C(1) : maxc);
  const C divisor = eqc ? C(1) : cr;
  const C rc = (maxc - r) / divisor;
  const C gc = (maxc - g) / divisor;
  const C bc = (maxc - b) / divisor;
  // torchvision adds three masked terms of which exactly one is selected.
  const C hr = bc - gc;
  const C hg = (C(2) + rc) - bc;
  const C hb = (C(4) + gc) - rc;
  C h = maxc == r ? hr : (maxc == g ? hg : hb);
  h = fmod1(h / C(6) + C(1));
  const C v = maxc;

  h = remainder1(h + hue);

  // _hsv2rgb: i = floor(6 h) (0..6), f = 6 h - i, then i % 6 picks the sector.
  const C i = std::floor(h * C(6));
  const C f = (h * C(6)) - i;
  const C sector = i == C(6) ? C(0) : i;
  const C p = detail::clamp_value(v * (C(1) - s), C(0), C(1));
  const C q = detail::clamp_value(v * (C(1) - s * f), C(0), C(1));
  const C t = detail::clamp_value(v * (C(1) - s * (C(1) - f)), C(0), C(1));
  // torchvision picks from its tables r = (v, q, p, p, t, v), g = (t, v, v,
  // q, p, p), b = (p, p, t, v, v, q) with an einsum over the one-hot mask of
  // the sector; the same sums of 0/1 products here (exact: one term is
  // non-zero; a NaN propagates as there), which also vectorize where nested
  // selections do not.
  const C m0 = C(sector == C(0)), m1 = C(sector == C(1)), m2 = C(sector == C(2));
  const C m3 = C(sector == C(3)), m4 = C(sector == C(4)), m5 = C(sector == C(5));
  out_r = m0 * v + m1 * q + m2 * p + m3 * p + m4 * t + m5 * v;
  out_g = m0 * t + m1 * v + m2 * v + m3 * q + m4 * p + m5 * p;
  out_b = m0 * p + m1 * p + m2 * t + m3 * v + m4 * v + m5 * q;
}

template <class T, class C>
void hue_row(const T* __restrict r, const T* __restrict g, const T* __restrict b, T* __restrict out_r,
             T* __restrict out_g, T* __restrict out_b, int64_t n, C hue) {
  for (int64_t x = 0; x < n; ++x) {
    C rr, gg, bb;
    if constexpr (std::is_same_v<T, uint8_t>) {
      // `img.to(float32) / 255.0`, and back with `(img * 255.0).to(uint8)`.
      shift_hue<C>(C(r[x]) / C(255), C(g[x]) / C(255), C(b[x]) / C(255), hue, rr, gg, bb);
      out_r[x] = static_cast<uint8_t>(static_cast<int32_t>(rr * C(255)));
      out_g[x] = static_cast<uint8_t>(static_cast<int32_t>(gg * C(255)));
      out_b[x] = static_cast<uint8_t>(static_cast<int32_t>(bb * C(255)));
    } else {
      shift_hue<C>(r[x], g[x], b[x], hue, rr, gg, bb);
      out_r[x] = rr;
      out_g[x] = gg;
      out_b[x] = bb;
    }
  }
}

// in: contiguous, 3 channels.
void hue_kernel(Tensor& out, const Tensor& src, double hue_factor) {
  const auto g = detail::geometry_of(src);
  const int64_t plane = g.plane();
  detail::dispatch_image(src.dtype(), "adjust_hue", [&](auto tag) {
    using T = decltype(tag);
    using C = detail::compute_t<T>;
    const C hue = static_cast<C>(hue_factor);
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    detail::parallel_items(g.batch * g.height, 3 * g.width * 16, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t offset = (item / g.height) * 3 * plane + (item % g.height) * g.width;
        const T* r = in + offset;
        T* o = dst + offset;
        hue_row<T, C>(r, r + plane, r + 2 * plane, o, o + plane, o + 2 * plane, g.width, hue);
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(hue_slot, CPU, hue_kernel,
                                 dtype_bit(kUInt8) | dtype_bit(kFloat32) | dtype_bit(kFloat64));

}  // namespace ember::vision
