// Crops, pads, flips and erase: views and core ops, but for the index-map
// pads (gather_pixels_slot), on any device.
#include <algorithm>
#include <cmath>
#include <sstream>

#include <ember/core/error.h>
#include <ember/ops/shape.h>

#include "ember/vision/transforms/functional/geometry.h"
#include "kernels/slots/geometry_kernels.h"
#include "transforms/geometry/image_layout.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(gather_pixels_slot, GatherPixelsFn, "vision.gather_pixels");

}  // namespace ember::vision

namespace ember::vision::transforms::functional {
namespace {

void check_image(const Tensor& img, const char* op) {
  EMBER_CHECK(img.defined(), op, ": the image is an undefined tensor");
  EMBER_CHECK(img.dim() >= 2, op, ": expected an image [..., C, H, W] (or [H, W]), got a tensor of shape ",
              img.sizes());
}

std::string list(const std::vector<int64_t>& v) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << "]";
  return s.str();
}

// {s} -> {s, s}; {h, w} as is.
std::array<int64_t, 2> crop_size(const std::vector<int64_t>& size, const char* op) {
  EMBER_CHECK(size.size() == 1 || size.size() == 2, op, ": size must be one value or (h, w), got ", list(size));
  const std::array<int64_t, 2> hw = size.size() == 1 ? std::array<int64_t, 2>{size[0], size[0]}
                                                      : std::array<int64_t, 2>{size[0], size[1]};
  EMBER_CHECK(hw[0] > 0 && hw[1] > 0, op, ": crop size must be positive, got ", list(size));
  return hw;
}

// The input index of output index i of a dim of size n padded by `before`,
// for the index-map padding modes.
int64_t pad_source(int64_t i, int64_t n, int64_t before, const std::string& mode) {
  const int64_t s = i - before;
  if (s >= 0 && s < n) return s;
  if (mode == "edge") return std::clamp<int64_t>(s, 0, n - 1);
  if (mode == "reflect") return s < 0 ? -s : 2 * (n - 1) - s;
  return s < 0 ? -s - 1 : 2 * n - 1 - s;  // symmetric
}

}  // namespace

Tensor crop(const Tensor& img, int64_t top, int64_t left, int64_t height, int64_t width) {
  check_image(img, "crop");
  EMBER_CHECK(height > 0 && width > 0, "crop: height and width must be positive, got ", height, " and ", width);
  const int64_t h = img.size(-2), w = img.size(-1);
  const int64_t right = left + width, bottom = top + height;
  if (left < 0 || top < 0 || right > w || bottom > h) {
    // The part inside the image, padded with zeros (torchvision's order of
    // the padding list: left, top, right, bottom).
    const int64_t pad_l = std::max<int64_t>(-left + std::min<int64_t>(0, right), 0);
    const int64_t pad_t = std::max<int64_t>(-top + std::min<int64_t>(0, bottom), 0);
    const int64_t pad_r = std::max<int64_t>(right - std::max(w, left), 0);
    const int64_t pad_b = std::max<int64_t>(bottom - std::max(h, top), 0);
    const int64_t y0 = std::clamp<int64_t>(top, 0, h), y1 = std::clamp<int64_t>(bottom, y0, h);
    const int64_t x0 = std::clamp<int64_t>(left, 0, w), x1 = std::clamp<int64_t>(right, x0, w);
    const Tensor inside = img.narrow(-2, y0, y1 - y0).narrow(-1, x0, x1 - x0);
    return constant_pad_nd(inside, {pad_l, pad_r, pad_t, pad_b}, 0);
  }
  return img.narrow(-2, top, height).narrow(-1, left, width);
}

Tensor center_crop(const Tensor& img, const std::vector<int64_t>& output_size) {
  check_image(img, "center_crop");
  const auto [crop_h, crop_w] = crop_size(output_size, "center_crop");
  Tensor x = img;
  int64_t h = img.size(-2), w = img.size(-1);
  if (crop_w > w || crop_h > h) {
    const std::vector<int64_t> padding = {crop_w > w ? (crop_w - w) / 2 : 0, crop_h > h ? (crop_h - h) / 2 : 0,
                                          crop_w > w ? (crop_w - w + 1) / 2 : 0, crop_h > h ? (crop_h - h + 1) / 2 : 0};
    x = pad(x, padding, 0);
    h = x.size(-2);
    w = x.size(-1);
    if (crop_w == w && crop_h == h) return x;
  }
  // Python's round() of an exact half rounds to even.
  const int64_t top = static_cast<int64_t>(std::nearbyint(static_cast<double>(h - crop_h) / 2.0));
  const int64_t left = static_cast<int64_t>(std::nearbyint(static_cast<double>(w - crop_w) / 2.0));
  return crop(x, top, left, crop_h, crop_w);
}

Tensor pad(const Tensor& img, const std::vector<int64_t>& padding, double fill, const std::string& padding_mode) {
  check_image(img, "pad");
  EMBER_CHECK(padding.size() == 1 || padding.size() == 2 || padding.size() == 4,
              "pad: padding must be one value, (left/right, top/bottom) or (left, top, right, bottom), got ",
              list(padding));
  EMBER_CHECK(padding_mode == "constant" || padding_mode == "edge" || padding_mode == "reflect" ||
                  padding_mode == "symmetric",
              "pad: padding_mode must be constant, edge, reflect or symmetric, got '", padding_mode, "'");
  int64_t l, t, r, b;
  if (padding.size() == 1) {
    l = t = r = b = padding[0];
  } else if (padding.size() == 2) {
    l = r = padding[0];
    t = b = padding[1];
  } else {
    l = padding[0], t = padding[1], r = padding[2], b = padding[3];
  }
  if (padding_mode == "constant") return constant_pad_nd(img, {l, r, t, b}, fill);

  // Negative padding crops first (as torchvision's symmetric mode).
  Tensor x = img;
  {
    const int64_t h = x.size(-2), w = x.size(-1);
    const int64_t cl = std::max<int64_t>(-l, 0), cr = std::max<int64_t>(-r, 0);
    const int64_t ct = std::max<int64_t>(-t, 0), cb = std::max<int64_t>(-b, 0);
    EMBER_CHECK(cl + cr < w && ct + cb < h, "pad: negative padding ", list(padding), " crops away the whole ", h,
                "x", w, " image");
    if (cl || cr || ct || cb) x = x.narrow(-2, ct, h - ct - cb).narrow(-1, cl, w - cl - cr);
    l = std::max<int64_t>(l, 0), r = std::max<int64_t>(r, 0), t = std::max<int64_t>(t, 0), b = std::max<int64_t>(b, 0);
  }
  const int64_t h = x.size(-2), w = x.size(-1);
  if (padding_mode == "reflect")
    EMBER_CHECK(l < w && r < w && t < h && b < h, "pad: reflect padding ", list(padding),
                " must be smaller than the image's dims, ", h, "x", w);
  if (padding_mode == "symmetric")
    EMBER_CHECK(l <= w && r <= w && t <= h && b <= h, "pad: symmetric padding ", list(padding),
                " must be at most the image's dims, ", h, "x", w);
  if (l == 0 && r == 0 && t == 0 && b == 0) return x.clone();
  std::vector<int64_t> rows(static_cast<size_t>(h + t + b)), cols(static_cast<size_t>(w + l + r));
  for (int64_t i = 0; i < h + t + b; ++i) rows[static_cast<size_t>(i)] = pad_source(i, h, t, padding_mode);
  for (int64_t i = 0; i < w + l + r; ++i) cols[static_cast<size_t>(i)] = pad_source(i, w, l, padding_mode);
  const detail::BatchedImage in = detail::batched_image(x, "pad");
  EMBER_CHECK(!is_complex(x.dtype()), "pad: unsupported dtype ", x.dtype());
  detail::BatchedImage out = detail::new_image_like(in, h + t + b, w + l + r, x.dtype());
  EMBER_CHECK(gather_pixels_slot.supports(x.device(), x.dtype()), "pad: no ", padding_mode, " padding kernel for ",
              x.dtype(), " images on ", x.device());
  gather_pixels_slot(x.device())(out.image, in.image, rows, cols);
  return detail::unbatched(out);
}

Tensor hflip(const Tensor& img) {
  check_image(img, "hflip");
  return flip(img, {-1});
}

Tensor vflip(const Tensor& img) {
  check_image(img, "vflip");
  return flip(img, {-2});
}

Tensor resized_crop(const Tensor& img, int64_t top, int64_t left, int64_t height, int64_t width,
                    const std::vector<int64_t>& size, InterpolationMode interpolation, std::optional<bool> antialias) {
  return resize(crop(img, top, left, height, width), size, interpolation, std::nullopt, antialias);
}

std::vector<Tensor> five_crop(const Tensor& img, const std::vector<int64_t>& size) {
  check_image(img, "five_crop");
  const auto [crop_h, crop_w] = crop_size(size, "five_crop");
  const int64_t h = img.size(-2), w = img.size(-1);
  EMBER_CHECK(crop_h <= h && crop_w <= w, "five_crop: requested crop size (", crop_h, ", ", crop_w,
              ") is bigger than the input size (", h, ", ", w, ")");
  return {crop(img, 0, 0, crop_h, crop_w), crop(img, 0, w - crop_w, crop_h, crop_w),
          crop(img, h - crop_h, 0, crop_h, crop_w), crop(img, h - crop_h, w - crop_w, crop_h, crop_w),
          center_crop(img, {crop_h, crop_w})};
}

std::vector<Tensor> ten_crop(const Tensor& img, const std::vector<int64_t>& size, bool vertical_flip) {
  std::vector<Tensor> crops = five_crop(img, size);
  std::vector<Tensor> flipped = five_crop(vertical_flip ? vflip(img) : hflip(img), size);
  crops.insert(crops.end(), flipped.begin(), flipped.end());
  return crops;
}

Tensor erase(const Tensor& img, int64_t i, int64_t j, int64_t h, int64_t w, const Tensor& v, bool inplace) {
  check_image(img, "erase");
  EMBER_CHECK(v.defined(), "erase: the value tensor is undefined");
  const int64_t ih = img.size(-2), iw = img.size(-1);
  EMBER_CHECK(i >= 0 && j >= 0 && h >= 0 && w >= 0 && i + h <= ih && j + w <= iw, "erase: the region (i=", i,
              ", j=", j, ", h=", h, ", w=", w, ") is not inside the ", ih, "x", iw, " image");
  Tensor out = inplace ? img : img.clone();
  Tensor region = out.narrow(-2, i, h).narrow(-1, j, w);
  region.copy_(v);
  return out;
}

}  // namespace ember::vision::transforms::functional
