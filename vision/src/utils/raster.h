#pragma once
// Pixel-exact raster primitives for the drawing utilities: the geometry of
// PIL's ImageDraw (Pillow 9.4, which torchvision 0.14's draw_* functions
// call), re-derived so that Ember's boxes, fills, keypoint discs and
// connection lines cover the same pixels (Note [PIL's raster rules] in raster.cpp).
#include <array>
#include <cstdint>

namespace ember::vision::utils_detail {

struct Ink {
  uint8_t r = 0, g = 0, b = 0;
  uint8_t alpha = 255;  // < 255 only when blending (PIL's "RGBA" drawing on an RGB image)
};

// An RGB image, height x width x 3 interleaved, drawn in place.
class Canvas {
 public:
  Canvas(uint8_t* rgb, int64_t height, int64_t width) : px_(rgb), h_(height), w_(width) {}

  void point(int64_t x, int64_t y, const Ink& ink, bool blend);
  // Pixels x0..x1 (inclusive) of row y, clipped.
  void hline(int64_t x0, int64_t y, int64_t x1, const Ink& ink, bool blend);
  // Bresenham from (x0, y0) towards (x1, y1), the end point excluded.
  void line(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const Ink& ink, bool blend);
  // A rectangle's outline `width` pixels thick, or its whole area when fill.
  void rectangle(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const Ink& ink, bool fill, int64_t width,
                 bool blend);
  // The filled ellipse inscribed in [x0, x1] x [y0, y1].
  void filled_ellipse(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const Ink& ink);
  // A line `width` pixels wide (a filled quadrilateral; a point when the ends coincide).
  void wide_line(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const Ink& ink, int64_t width);

 private:
  uint8_t* px_;
  int64_t h_, w_;
};

}  // namespace ember::vision::utils_detail
