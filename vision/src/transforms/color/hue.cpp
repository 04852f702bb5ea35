// adjust_hue: torchvision's _rgb2hsv, hue shift, _hsv2rgb, one pixel at a
// time with torchvision's operations in its order (Note [Color arithmetic]).
#include <cmath>

#include <ember/ops/factories.h>

#include "ember/vision/transforms/functional/color.h"
#include "transforms/color/image.h"

namespace ember::vision::transforms::functional {
namespace {

// torch.fmod(x, 1) for x >= 0 or < 0: x - trunc(x) is exact in floating point.
template <class C>
inline C fmod1(C x) {
  return x - std::trunc(x);
}

// torch.remainder(x, 1) (Python's %): the fmod, moved into [0, 1).
template <class C>
inline C remainder1(C x) {
  C m = fmod1(x);
  if (m != 0 && m < 0) m += C(1);
  return m;
}

// One pixel through _rgb2hsv, the hue shift, and _hsv2rgb.
template <class C>
inline void shift_hue(C r, C g, C b, C hue, C& out_r, C& out_g, C& out_b) {
  // _rgb2hsv (Pillow's algorithm). Where max == min, S and H are 0 and the
  // denominators are replaced by 1, as torchvision does.
  const C maxc = std::max(std::max(r, g), b);
  const C minc = std::min(std::min(r, g), b);
  const bool eqc = maxc == minc;
  const C cr = maxc - minc;
  const C s = cr / (eqc ? C(1) : maxc);
  const C divisor = eqc ? C(1) : cr;
  const C rc = (maxc - r) / divisor;
  const C gc = (maxc - g) / divisor;
  const C bc = (maxc - b) / divisor;
  // torchvision adds three masked terms of which exactly one is selected.
  C h;
  if (maxc == r) {
    h = bc - gc;
  } else if (maxc == g) {
    h = (C(2) + rc) - bc;
  } else {
    h = (C(4) + gc) - rc;
  }
  h = fmod1(h / C(6) + C(1));
  const C v = maxc;

  h = remainder1(h + hue);

  // _hsv2rgb.
  const C i_floor = std::floor(h * C(6));
  const C f = (h * C(6)) - i_floor;
  int32_t i = static_cast<int32_t>(i_floor) % 6;
  if (i < 0) i += 6;
  const C p = detail::clamp_value(v * (C(1) - s), C(0), C(1));
  const C q = detail::clamp_value(v * (C(1) - s * f), C(0), C(1));
  const C t = detail::clamp_value(v * (C(1) - s * (C(1) - f)), C(0), C(1));
  switch (i) {
    case 0: out_r = v, out_g = t, out_b = p; break;
    case 1: out_r = q, out_g = v, out_b = p; break;
    case 2: out_r = p, out_g = v, out_b = t; break;
    case 3: out_r = p, out_g = q, out_b = v; break;
    case 4: out_r = t, out_g = p, out_b = v; break;
    default: out_r = v, out_g = p, out_b = q; break;
  }
}

}  // namespace

Tensor adjust_hue(const Tensor& img, double hue_factor) {
  const char* op = "adjust_hue";
  EMBER_CHECK(hue_factor >= -0.5 && hue_factor <= 0.5, op, ": hue_factor (", hue_factor,
              ") is not in [-0.5, 0.5]");
  const auto g = detail::image_geometry(img, op, 2);
  detail::check_channels_1_or_3(g, op);
  detail::check_image_dtype(img, op);
  if (g.channels == 1) return img;  // torchvision (and PIL): a gray image has no hue
  if (detail::is_reduced_float(img.dtype()))
    return detail::compute_in_float32(img, [&](const Tensor& x) { return adjust_hue(x, hue_factor); });
  Tensor out = empty(img.sizes(), img.dtype());
  if (g.numel() == 0) return out;
  const Tensor src = detail::contiguous_image(img);
  const int64_t plane = g.plane();
  detail::dispatch_image(img.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = detail::compute_t<T>;
    const C hue = static_cast<C>(hue_factor);
    const T* in = src.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    detail::parallel_items(g.batch * g.height, 3 * g.width * 16, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t offset = (item / g.height) * 3 * plane + (item % g.height) * g.width;
        const T *r = in + offset, *gr = r + plane, *b = r + 2 * plane;
        T *orow = dst + offset, *og = orow + plane, *ob = orow + 2 * plane;
        for (int64_t x = 0; x < g.width; ++x) {
          C rr, gg, bb;
          if constexpr (std::is_same_v<T, uint8_t>) {
            // `img.to(float32) / 255.0`, and back with `(img * 255.0).to(uint8)`.
            shift_hue<C>(C(r[x]) / C(255), C(gr[x]) / C(255), C(b[x]) / C(255), hue, rr, gg, bb);
            orow[x] = static_cast<uint8_t>(static_cast<int32_t>(rr * C(255)));
            og[x] = static_cast<uint8_t>(static_cast<int32_t>(gg * C(255)));
            ob[x] = static_cast<uint8_t>(static_cast<int32_t>(bb * C(255)));
          } else {
            shift_hue<C>(r[x], gr[x], b[x], hue, rr, gg, bb);
            orow[x] = rr, og[x] = gg, ob[x] = bb;
          }
        }
      }
    });
  });
  return out;
}

}  // namespace ember::vision::transforms::functional
