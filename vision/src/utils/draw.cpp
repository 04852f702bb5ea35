// torchvision.utils' drawing functions: draw_bounding_boxes,
// draw_segmentation_masks, draw_keypoints, and the colours they take.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <ember/core/error.h>
#include <ember/core/warning.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>
#include <ember/vision/utils.h>

#include "color_names.h"
#include "label_font.h"
#include "raster.h"

namespace ember::vision::utils {

namespace {

uint8_t channel(int v, const char* what) {
  EMBER_CHECK(v >= 0 && v <= 255, "Color: ", what, " must be in [0, 255], got ", v);
  return static_cast<uint8_t>(v);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// PIL's ImageColor.getrgb for the forms detection code uses: names,
// #rgb / #rrggbb (an alpha digit pair or digit is read and dropped), rgb(r, g, b).
std::array<uint8_t, 3> parse_color(const std::string& spec) {
  std::string s;
  for (char c : spec) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (const auto* named = utils_detail::find_named_color(s)) return {named->r, named->g, named->b};
  if (!s.empty() && s[0] == '#') {
    const std::string h = s.substr(1);
    bool ok = std::all_of(h.begin(), h.end(), [](char c) { return hex_digit(c) >= 0; });
    if (ok && (h.size() == 3 || h.size() == 4))
      return {static_cast<uint8_t>(hex_digit(h[0]) * 17), static_cast<uint8_t>(hex_digit(h[1]) * 17),
              static_cast<uint8_t>(hex_digit(h[2]) * 17)};
    if (ok && (h.size() == 6 || h.size() == 8))
      return {static_cast<uint8_t>(hex_digit(h[0]) * 16 + hex_digit(h[1])),
              static_cast<uint8_t>(hex_digit(h[2]) * 16 + hex_digit(h[3])),
              static_cast<uint8_t>(hex_digit(h[4]) * 16 + hex_digit(h[5]))};
  }
  if (s.rfind("rgb(", 0) == 0 && s.back() == ')') {
    int v[3];
    const char* p = s.c_str() + 4;
    bool ok = true;
    for (int k = 0; k < 3 && ok; ++k) {
      char* end = nullptr;
      const long x = std::strtol(p, &end, 10);
      ok = end != p && x >= 0 && x <= 255;
      v[k] = static_cast<int>(x);
      p = end;
      while (*p == ' ') ++p;
      if (k < 2) ok = ok && *p == ',', ++p;
    }
    if (ok && *p == ')') return {static_cast<uint8_t>(v[0]), static_cast<uint8_t>(v[1]), static_cast<uint8_t>(v[2])};
  }
  EMBER_FAIL("Color: unknown color specifier: \"", spec, "\" (a color name, #rgb, #rrggbb or rgb(r, g, b))");
}

void check_image(const Tensor& image, const char* op, bool gray_ok) {
  EMBER_CHECK(image.defined() && image.dtype() == kUInt8, op, ": Tensor uint8 expected, got ",
              image.defined() ? std::string(dtype_name(image.dtype())) : std::string("an undefined tensor"));
  EMBER_CHECK(image.dim() == 3, op, ": Pass individual images, not batches (got shape ", image.sizes(), ")");
  if (gray_ok)
    EMBER_CHECK(image.size(0) == 1 || image.size(0) == 3, op,
                ": Only grayscale and RGB images are supported, got ", image.size(0), " channels");
  else
    EMBER_CHECK(image.size(0) == 3, op, ": Pass an RGB image. Other Image formats are not supported (got ",
                image.size(0), " channels)");
}

// [3, H, W] uint8 (any device, any strides) -> a fresh CPU [H, W, 3] to draw
// on (never a view of the caller's image).
Tensor to_hwc(const Tensor& image) {
  Tensor hwc = empty({image.size(1), image.size(2), image.size(0)}, kUInt8);
  hwc.copy_(image.permute({1, 2, 0}));
  return hwc;
}

// The drawn [H, W, 3] canvas as [3, H, W] on the image's device.
Tensor from_hwc(const Tensor& canvas, const Tensor& like) {
  return canvas.permute({2, 0, 1}).contiguous().to(like.device());
}

// Real coordinates truncated toward zero (torchvision's .to(torch.int64)).
std::vector<int64_t> to_int_list(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK(!is_complex(t.dtype()) && t.dtype() != kBool, op, ": ", what, " must be real numbers, got ",
              t.dtype());
  if (is_floating_point(t.dtype()))
    EMBER_CHECK(t.isfinite().all().item<bool>(), op, ": ", what, " must be finite");
  Tensor v = t.cpu().to(kInt64).contiguous();
  const int64_t* p = v.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + v.numel());
}

std::vector<Color> colors_for(const std::vector<Color>& given, int64_t n, const char* op, const char* what) {
  if (given.empty()) return generate_color_palette(n);
  if (given.size() == 1) return std::vector<Color>(static_cast<size_t>(n), given[0]);
  EMBER_CHECK(static_cast<int64_t>(given.size()) >= n, op, ": Number of colors (", given.size(),
              ") is less than number of ", what, " (", n, ")");
  return given;
}

}  // namespace

Color::Color(const char* spec) : Color(std::string(spec)) {}
Color::Color(const std::string& spec) : rgb_(parse_color(spec)) {}
Color::Color(int r, int g, int b) : rgb_{channel(r, "red"), channel(g, "green"), channel(b, "blue")} {}

std::vector<Color> generate_color_palette(int64_t n) {
  std::vector<Color> out;
  const int64_t palette[3] = {(int64_t{1} << 25) - 1, (int64_t{1} << 15) - 1, (int64_t{1} << 21) - 1};
  for (int64_t i = 0; i < n; ++i)
    out.emplace_back(static_cast<int>(i * palette[0] % 255), static_cast<int>(i * palette[1] % 255),
                     static_cast<int>(i * palette[2] % 255));
  return out;
}

Tensor draw_bounding_boxes(const Tensor& image, const Tensor& boxes, const DrawBoundingBoxesOptions& o) {
  constexpr const char* kOp = "draw_bounding_boxes";
  check_image(image, kOp, /*gray_ok=*/true);
  EMBER_CHECK(boxes.defined() && boxes.dim() == 2 && boxes.size(1) == 4, kOp,
              ": boxes should be a [N, 4] tensor (xmin, ymin, xmax, ymax), got ",
              boxes.defined() ? boxes.sizes() : IntArrayRef{});
  EMBER_CHECK(o.width >= 0, kOp, ": width must be >= 0, got ", o.width);
  const int64_t n = boxes.size(0);
  if (n > 0) {
    const bool bad = (boxes.select(1, 0) > boxes.select(1, 2)).any().item<bool>() ||
                     (boxes.select(1, 1) > boxes.select(1, 3)).any().item<bool>();
    EMBER_CHECK(!bad, kOp, ": Boxes need to be in (xmin, ymin, xmax, ymax) format. Use torchvision.ops.box_convert ",
                "to convert them");
  }
  if (n == 0) {
    EMBER_WARN(kOp, ": boxes doesn't contain any box. No box was drawn");
    return image;
  }
  EMBER_CHECK(o.labels.empty() || static_cast<int64_t>(o.labels.size()) == n, kOp, ": Number of boxes (", n,
              ") and labels (", o.labels.size(), ") mismatch. Please specify labels for each box.");
  const std::vector<Color> colors = colors_for(o.colors, n, kOp, "boxes");
  const std::vector<int64_t> xy = to_int_list(boxes, kOp, "boxes");

  Tensor canvas = to_hwc(image.size(0) == 1 ? image.expand({3, image.size(1), image.size(2)}) : image);
  utils_detail::Canvas c(canvas.data_ptr<uint8_t>(), canvas.size(0), canvas.size(1));
  const int64_t scale = o.font_size ? std::max<int64_t>(1, std::llround(static_cast<double>(*o.font_size) / 10.0)) : 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t x0 = xy[4 * i], y0 = xy[4 * i + 1], x1 = xy[4 * i + 2], y1 = xy[4 * i + 3];
    const utils_detail::Ink ink{colors[i].r(), colors[i].g(), colors[i].b(), 255};
    if (o.fill) {
      // PIL's RGBA drawing: the fill blended at alpha 100, then the outline opaque.
      c.rectangle(x0, y0, x1, y1, {ink.r, ink.g, ink.b, 100}, /*fill=*/true, 1, /*blend=*/true);
      if (o.width != 0) c.rectangle(x0, y0, x1, y1, ink, /*fill=*/false, o.width, /*blend=*/true);
    } else if (o.width != 0) {
      c.rectangle(x0, y0, x1, y1, ink, /*fill=*/false, o.width, /*blend=*/false);
    }
    if (!o.labels.empty()) {
      // Text at (x0 + width + 1, y0 + width + 1), in the box's colour.
      const int64_t margin = o.width + 1;
      const int64_t tx = x0 + margin, ty = y0 + margin;
      const std::string& label = o.labels[i];
      for (size_t k = 0; k < label.size(); ++k)
        for (int row = 0; row < utils_detail::kGlyphHeight; ++row)
          for (int col = 0; col < utils_detail::kGlyphWidth; ++col)
            if (utils_detail::glyph_pixel(label[k], row, col))
              for (int64_t sy = 0; sy < scale; ++sy)
                for (int64_t sx = 0; sx < scale; ++sx)
                  c.point(tx + (static_cast<int64_t>(k) * utils_detail::kCellWidth + col) * scale + sx,
                          ty + (utils_detail::kGlyphTop + row) * scale + sy, ink, false);
    }
  }
  return from_hwc(canvas, image);
}

Tensor draw_segmentation_masks(const Tensor& image, const Tensor& masks_in, const DrawSegmentationMasksOptions& o) {
  constexpr const char* kOp = "draw_segmentation_masks";
  check_image(image, kOp, /*gray_ok=*/false);
  EMBER_CHECK(masks_in.defined() && (masks_in.dim() == 2 || masks_in.dim() == 3), kOp,
              ": masks must be of shape (H, W) or (batch_size, H, W), got ",
              masks_in.defined() ? masks_in.sizes() : IntArrayRef{});
  const Tensor masks = masks_in.dim() == 2 ? masks_in.unsqueeze(0) : masks_in;
  EMBER_CHECK(masks.dtype() == kBool, kOp, ": The masks must be of dtype bool. Got ", masks.dtype());
  EMBER_CHECK(masks.size(1) == image.size(1) && masks.size(2) == image.size(2), kOp,
              ": The image and the masks must have the same height and width (image ", image.sizes(), ", masks ",
              masks.sizes(), ")");
  EMBER_CHECK(o.alpha >= 0 && o.alpha <= 1, kOp, ": alpha must be in [0, 1], got ", o.alpha);
  const int64_t n = masks.size(0);
  EMBER_CHECK(o.colors.size() <= 1 || static_cast<int64_t>(o.colors.size()) >= n, kOp, ": There are more masks (",
              n, ") than colors (", o.colors.size(), ")");
  if (n == 0) {
    EMBER_WARN(kOp, ": masks doesn't contain any mask. No mask was drawn");
    return image;
  }
  const std::vector<Color> colors = colors_for(o.colors, n, kOp, "masks");
  Tensor painted = image.clone();
  for (int64_t i = 0; i < n; ++i) {
    Tensor color =
        tensor<int64_t>({colors[i].r(), colors[i].g(), colors[i].b()}).to(image.device(), kUInt8).view({3, 1, 1});
    painted = where(masks.select(0, i).unsqueeze(0), color, painted);
  }
  // image * (1 - alpha) + painted * alpha, in float32 as torchvision's (uint8
  // tensor times a Python float), then truncated.
  return (image * (1.0 - o.alpha) + painted * o.alpha).to(kUInt8);
}

Tensor draw_keypoints(const Tensor& image, const Tensor& keypoints, const DrawKeypointsOptions& o) {
  constexpr const char* kOp = "draw_keypoints";
  check_image(image, kOp, /*gray_ok=*/false);
  EMBER_CHECK(keypoints.defined() && keypoints.dim() == 3, kOp, ": keypoints must be of shape (num_instances, K, 2)",
              keypoints.defined() ? ", got " : "", keypoints.defined() ? keypoints.sizes() : IntArrayRef{});
  EMBER_CHECK(keypoints.size(2) >= 2, kOp, ": keypoints must hold (x, y) per point, got shape ", keypoints.sizes());
  EMBER_CHECK(o.radius >= 0 && o.width >= 0, kOp, ": radius and width must be >= 0, got ", o.radius, " and ",
              o.width);
  const int64_t n = keypoints.size(0), k = keypoints.size(1), d = keypoints.size(2);
  for (const auto& [a, b] : o.connectivity)
    EMBER_CHECK(a >= 0 && a < k && b >= 0 && b < k, kOp, ": connectivity (", a, ", ", b,
                ") names a keypoint outside [0, ", k, ")");
  const std::vector<int64_t> pts = to_int_list(keypoints, kOp, "keypoints");
  Tensor canvas = to_hwc(image);
  utils_detail::Canvas c(canvas.data_ptr<uint8_t>(), canvas.size(0), canvas.size(1));
  const utils_detail::Ink white{255, 255, 255, 255};
  auto x_of = [&](int64_t inst, int64_t j) { return pts[(inst * k + j) * d]; };
  auto y_of = [&](int64_t inst, int64_t j) { return pts[(inst * k + j) * d + 1]; };
  for (int64_t inst = 0; inst < n; ++inst) {
    if (o.colors) {
      const utils_detail::Ink ink{o.colors->r(), o.colors->g(), o.colors->b(), 255};
      for (int64_t j = 0; j < k; ++j)
        c.filled_ellipse(x_of(inst, j) - o.radius, y_of(inst, j) - o.radius, x_of(inst, j) + o.radius,
                         y_of(inst, j) + o.radius, ink);
    }
    for (const auto& [a, b] : o.connectivity) {
      // PIL's line: one pixel wide below width 2, else a filled quadrilateral.
      if (o.width <= 1) {
        // A one-pixel line, its end point drawn too (PIL's draw_lines).
        c.line(x_of(inst, a), y_of(inst, a), x_of(inst, b), y_of(inst, b), white, false);
        c.point(x_of(inst, b), y_of(inst, b), white, false);
      } else
        c.wide_line(x_of(inst, a), y_of(inst, a), x_of(inst, b), y_of(inst, b), white, o.width);
    }
  }
  return from_hwc(canvas, image);
}

}  // namespace ember::vision::utils
