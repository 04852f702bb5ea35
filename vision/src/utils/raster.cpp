#include "raster.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace ember::vision::utils_detail {

// Note [PIL's raster rules]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// torchvision draws with PIL, so "the same picture" means PIL's pixel rules:
// - Blending (a translucent box fill) is out = (in * (255 - a) + ink * a) / 255
//   rounded with PIL's integer DIV255 ((v + 128 + ((v + 128) >> 8)) >> 8).
// - A rectangle's outline of width w is w rows at the top and bottom and w
//   columns at each side between them, the side columns drawn as lines from
//   y0 + w towards y1 - w + 1 whose end point is left out (so a box thinner
//   than 2w paints a few pixels outside itself, as PIL does). A filled
//   rectangle is every row y0..y1.
// - Lines step with Bresenham's rule and leave out their end point.
// - A filled ellipse walks a quarter of the curve on a grid of half pixels
//   (integer steps of 2, choosing among the three neighbours the one closest
//   to the curve) and fills the rows between its mirror images.
// - A wide line is the quadrilateral around the segment, offset by
//   round((w - 1) / 2) / length along the normal (rounded half away from and
//   towards zero on the two sides), filled by scan lines.

namespace {

inline uint8_t blend_channel(uint8_t under, uint8_t ink, uint8_t alpha) {
  const unsigned v = unsigned{under} * (255u - alpha) + unsigned{ink} * alpha + 128u;
  return static_cast<uint8_t>((v + (v >> 8)) >> 8);
}

// C's (int) of floor(f + 0.5) / ceil(f - 0.5), mirrored for negatives.
inline int64_t round_up(double f) {
  return static_cast<int64_t>(f >= 0.0 ? std::floor(f + 0.5) : -std::floor(std::fabs(f) + 0.5));
}
inline int64_t round_down(double f) {
  return static_cast<int64_t>(f >= 0.0 ? std::ceil(f - 0.5) : -std::ceil(std::fabs(f) - 0.5));
}
inline int64_t round_up_f(float f) {
  return static_cast<int64_t>(f >= 0.0f ? std::floor(f + 0.5f) : -std::floor(std::fabs(f) + 0.5f));
}
inline int64_t round_down_f(float f) {
  return static_cast<int64_t>(f >= 0.0f ? std::ceil(f - 0.5f) : -std::ceil(std::fabs(f) - 0.5f));
}

}  // namespace

void Canvas::point(int64_t x, int64_t y, const Ink& ink, bool blend) {
  if (x < 0 || x >= w_ || y < 0 || y >= h_) return;
  uint8_t* p = px_ + (y * w_ + x) * 3;
  if (blend) {
    p[0] = blend_channel(p[0], ink.r, ink.alpha);
    p[1] = blend_channel(p[1], ink.g, ink.alpha);
    p[2] = blend_channel(p[2], ink.b, ink.alpha);
  } else {
    p[0] = ink.r, p[1] = ink.g, p[2] = ink.b;
  }
}

void Canvas::hline(int64_t x0, int64_t y, int64_t x1, const Ink& ink, bool blend) {
  if (y < 0 || y >= h_) return;
  if (x0 < 0) {
    x0 = 0;
  } else if (x0 >= w_) {
    return;
  }
  if (x1 < 0) return;
  x1 = std::min(x1, w_ - 1);
  for (int64_t x = x0; x <= x1; ++x) point(x, y, ink, blend);
}

void Canvas::line(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const Ink& ink, bool blend) {
  int64_t dx = x1 - x0, dy = y1 - y0;
  const int64_t xs = dx < 0 ? -1 : 1, ys = dy < 0 ? -1 : 1;
  dx = std::llabs(dx), dy = std::llabs(dy);
  if (dx == 0) {
    for (int64_t i = 0; i < dy; ++i, y0 += ys) point(x0, y0, ink, blend);
  } else if (dy == 0) {
    for (int64_t i = 0; i < dx; ++i, x0 += xs) point(x0, y0, ink, blend);
  } else if (dx > dy) {
    int64_t e = 2 * dy - dx;
    for (int64_t i = 0; i < dx; ++i) {
      point(x0, y0, ink, blend);
      if (e >= 0) y0 += ys, e -= 2 * dx;
      e += 2 * dy;
      x0 += xs;
    }
  } else {
    int64_t e = 2 * dx - dy;
    for (int64_t i = 0; i < dy; ++i) {
      point(x0, y0, ink, blend);
      if (e >= 0) x0 += xs, e -= 2 * dy;
      e += 2 * dx;
      y0 += ys;
    }
  }
}

void Canvas::rectangle(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const Ink& ink, bool fill, int64_t width,
                       bool blend) {
  if (y0 > y1) std::swap(y0, y1);
  if (fill) {
    if (y0 >= h_ || y1 < 0) return;
    y0 = std::max<int64_t>(y0, 0);
    y1 = std::min(y1, h_);
    for (int64_t y = y0; y <= y1; ++y) hline(x0, y, x1, ink, blend);
    return;
  }
  if (width == 0) width = 1;
  for (int64_t i = 0; i < width; ++i) {
    hline(x0, y0 + i, x1, ink, blend);
    hline(x0, y1 - i, x1, ink, blend);
    line(x1 - i, y0 + width, x1 - i, y1 - width + 1, ink, blend);
    line(x0 + i, y0 + width, x0 + i, y1 - width + 1, ink, blend);
  }
}

namespace {

// One quarter of an ellipse with half-axes a, b on the doubled grid: points
// (x, y) with x = a, a - 2, ... and y = b % 2, ..., b.
struct QuarterWalk {
  int64_t a2 = 0, b2 = 0, a2b2 = 0;
  int64_t cx = 0, cy = 0, ex = 0, ey = 0;
  bool done = true;

  void start(int64_t a, int64_t b) {
    if (a < 0 || b < 0) {
      done = true;
      return;
    }
    cx = a, cy = b % 2, ex = a % 2, ey = b;
    a2 = a * a, b2 = b * b, a2b2 = a2 * b2;
    done = false;
  }
  int64_t deviation(int64_t x, int64_t y) const { return std::llabs(a2 * y * y + b2 * x * x - a2b2); }
  bool next(int64_t& x, int64_t& y) {
    if (done) return false;
    x = cx, y = cy;
    if (cx == ex && cy == ey) {
      done = true;
      return true;
    }
    int64_t nx = cx, ny = cy + 2;
    int64_t best = deviation(nx, ny);
    if (nx > 1) {
      const int64_t diag = deviation(cx - 2, cy + 2);
      if (best > diag) nx = cx - 2, ny = cy + 2, best = diag;
      const int64_t left = deviation(cx - 2, cy);
      if (best > left) nx = cx - 2, ny = cy;
    }
    cx = nx, cy = ny;
    return true;
  }
};

}  // namespace

void Canvas::filled_ellipse(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const Ink& ink) {
  const int64_t a = x1 - x0, b = y1 - y0;
  if (a < 0 || b < 0) return;
  // A filled ellipse is a ring as thick as a + b: the inner quarter never starts.
  const int64_t thickness = a + b;
  const int64_t leftmost = a % 2;
  QuarterWalk outer, inner;
  outer.start(a, b);
  int64_t py = 0, pr = 0;
  if (thickness < 1 || !outer.next(pr, py)) return;
  inner.start(a - 2 * (thickness - 1), b - 2 * (thickness - 1));
  int64_t pl = leftmost;
  bool finished = false;
  auto emit = [&](int64_t l, int64_t y, int64_t r) {
    hline(x0 + (l + a) / 2, y0 + (y + b) / 2, x0 + (r + a) / 2, ink, false);
  };
  while (!finished) {
    const int64_t y = py, r = pr;
    int64_t l = pl;
    int64_t cx = 0, cy = 0;
    bool more;
    while ((more = outer.next(cx, cy)) && cy <= y) {
    }
    if (!more) {
      finished = true;
    } else {
      pr = cx, py = cy;
    }
    while ((more = inner.next(cx, cy)) && cy <= y) l = cx;
    pl = more ? cx : leftmost;
    // The four mirror images of this row, in the order PIL emits them
    // (it pops them from a small stack: last pushed first).
    struct Seg {
      int64_t l, y, r;
    };
    Seg segs[4];
    int n = 0;
    if ((l > 0 || l < r) && y > 0) segs[n++] = {l == 0 ? 2 : l, y, r};
    if (y > 0) segs[n++] = {-r, y, -l};
    if (l > 0 || l < r) segs[n++] = {l == 0 ? 2 : l, -y, r};
    segs[n++] = {-r, -y, -l};
    while (n > 0) {
      --n;
      emit(segs[n].l, segs[n].y, segs[n].r);
    }
  }
}

void Canvas::wide_line(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const Ink& ink, int64_t width) {
  const int64_t dx = x1 - x0, dy = y1 - y0;
  if (dx == 0 && dy == 0) {
    point(x0, y0, ink, false);
    return;
  }
  const double length = std::hypot(static_cast<double>(dx), static_cast<double>(dy));
  const double half = static_cast<double>(width - 1) / 2.0;
  const double ratio_max = static_cast<double>(round_up(half)) / length;
  const double ratio_min = static_cast<double>(round_down(half)) / length;
  const int64_t dxmin = round_down(ratio_min * static_cast<double>(dy));
  const int64_t dxmax = round_down(ratio_max * static_cast<double>(dy));
  const int64_t dymin = round_down(ratio_min * static_cast<double>(dx));
  const int64_t dymax = round_down(ratio_max * static_cast<double>(dx));
  const int64_t vx[4] = {x0 - dxmin, x1 - dxmin, x1 + dxmax, x0 + dxmax};
  const int64_t vy[4] = {y0 + dymax, y1 + dymax, y1 - dymin, y0 - dymin};

  struct Edge {
    int64_t x0, y0, xmin, xmax, ymin, ymax;
    float dx;
  };
  std::vector<Edge> edges;
  int64_t ymin = h_ - 1, ymax = 0;
  for (int k = 0; k < 4; ++k) {
    const int64_t ax = vx[k], ay = vy[k], bx = vx[(k + 1) % 4], by = vy[(k + 1) % 4];
    Edge e{ax, ay, std::min(ax, bx), std::max(ax, bx), std::min(ay, by), std::max(ay, by), 0.0f};
    if (ay != by) e.dx = static_cast<float>(bx - ax) / static_cast<float>(by - ay);
    ymin = std::min(ymin, e.ymin);
    ymax = std::max(ymax, e.ymax);
    if (e.ymin == e.ymax) {
      // Horizontal edges are drawn as they are.
      hline(e.xmin, e.ymin, e.xmax, ink, false);
      continue;
    }
    edges.push_back(e);
  }
  ymin = std::max<int64_t>(ymin, 0);
  ymax = std::min(ymax, h_);
  std::vector<float> xs;
  for (int64_t y = ymin; y <= ymax; ++y) {
    xs.clear();
    for (const Edge& e : edges) {
      if (y < e.ymin || y > e.ymax) continue;
      const float x = static_cast<float>(y - e.y0) * e.dx + static_cast<float>(e.x0);
      xs.push_back(x);
      // An edge ending on this row counts twice (consistent polygon rows).
      if (y == e.ymax && y < ymax) xs.push_back(x);
    }
    std::sort(xs.begin(), xs.end());
    for (size_t i = 1; i < xs.size(); i += 2) hline(round_up_f(xs[i - 1]), y, round_down_f(xs[i]), ink, false);
  }
}

}  // namespace ember::vision::utils_detail
