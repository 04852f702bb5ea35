#include "ember/vision/detection/coco_mask.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <ember/core/error.h>
#include <ember/ops/factories.h>

namespace ember::vision::detection::mask {

// Note [COCO RLE]
// ~~~~~~~~~~~~~~~
// pycocotools' maskApi.c, rule for rule:
// - Runs are over column-major pixels (index x * h + y), the first of 0s.
// - area: the sum of the odd runs. to_bbox walks the run ends (an even
//   number of runs, a trailing 0-run dropped): x = t / h, y = t % h of each
//   run's first (0-runs: last) pixel; a 1-run that crosses a column boundary
//   makes the box span the full height (rows 0..h-1), as maskApi's xp check.
// - merge and iou walk both run lists together; iou is 0 when the tight
//   boxes do not overlap (maskApi checks the boxes first), 0 without
//   intersection, and for a crowd ground truth divides by the detection's area.
// - from_polygon (frPoly): vertices scaled by 5 and rounded ((int)(5v + .5)),
//   edges walked densely in that grid, and where the walk steps in x, the
//   crossing at a pixel column's centre ((x + .5) / 5 - .5 an integer within
//   the image) gives a run boundary at row ceil((y + .5) / 5 - .5) clamped to
//   [0, h]; the sorted boundaries become runs (empty ones merged).
// - Strings: per count (after the second, its difference to the count two
//   before, signed), 5-bit groups low first, 0x20 marking "more", the last
//   group's 0x10 its sign, each + 48.

namespace {

void check_size(int64_t h, int64_t w, const char* op) {
  EMBER_CHECK(h >= 0 && w >= 0 && h * w <= int64_t{0xffffffff}, op, ": a mask of ", h, " x ", w,
              " is not valid (sizes must be non-negative, with at most 2^32 - 1 pixels)");
}

void check_counts(const Rle& r, const char* op) {
  uint64_t total = 0;
  for (uint32_t c : r.counts) total += c;
  EMBER_CHECK(total == static_cast<uint64_t>(r.height * r.width), op, ": the runs of an RLE cover ", total,
              " pixels, but its size ", r.height, " x ", r.width, " has ", r.height * r.width);
}

// A cursor over one RLE's runs, as maskApi's (ca, a, va) triples.
struct RunCursor {
  const Rle& r;
  size_t next = 1;
  uint32_t left;
  bool value = false;
  explicit RunCursor(const Rle& rle) : r(rle), left(rle.counts.empty() ? 0 : rle.counts[0]) {}
  // Consumes c pixels; moves to the next run when this one is used up.
  void consume(uint32_t c) {
    left -= c;
    if (left == 0 && next < r.counts.size()) {
      left = r.counts[next++];
      value = !value;
    }
  }
};

}  // namespace

Rle encode(const Tensor& mask) {
  EMBER_CHECK(mask.defined() && mask.dim() == 2, "mask.encode: expected a mask [H, W], got ",
              mask.defined() ? mask.sizes() : IntArrayRef{});
  const int64_t h = mask.size(0), w = mask.size(1);
  check_size(h, w, "mask.encode");
  const Tensor m = mask.cpu().to(kBool).to(kUInt8).contiguous();
  const uint8_t* p = m.data_ptr<uint8_t>();
  Rle r{h, w, {}};
  uint8_t prev = 0;
  uint32_t run = 0;
  // Column-major: x outer, y inner.
  for (int64_t x = 0; x < w; ++x)
    for (int64_t y = 0; y < h; ++y) {
      const uint8_t v = p[y * w + x];
      if (v != prev) {
        r.counts.push_back(run);
        run = 0;
        prev = v;
      }
      ++run;
    }
  r.counts.push_back(run);
  return r;
}

std::vector<Rle> encode_all(const Tensor& masks) {
  EMBER_CHECK(masks.defined() && masks.dim() == 3, "mask.encode: expected masks [N, H, W], got ",
              masks.defined() ? masks.sizes() : IntArrayRef{});
  std::vector<Rle> out;
  for (int64_t i = 0; i < masks.size(0); ++i) out.push_back(encode(masks.select(0, i)));
  return out;
}

Tensor decode(const Rle& rle) {
  check_size(rle.height, rle.width, "mask.decode");
  check_counts(rle, "mask.decode");
  const int64_t h = rle.height, w = rle.width;
  Tensor out = zeros({h, w}, kUInt8);
  uint8_t* p = out.data_ptr<uint8_t>();
  int64_t j = 0;
  uint8_t v = 0;
  for (uint32_t c : rle.counts) {
    for (uint32_t k = 0; k < c; ++k, ++j) p[(j % h) * w + j / h] = v;
    v = !v;
  }
  return out;
}

double area(const Rle& rle) {
  double a = 0;
  for (size_t j = 1; j < rle.counts.size(); j += 2) a += rle.counts[j];
  return a;
}

std::array<double, 4> to_bbox(const Rle& rle) {
  const uint32_t h = static_cast<uint32_t>(rle.height), w = static_cast<uint32_t>(rle.width);
  const size_t m = rle.counts.size() / 2 * 2;
  if (m == 0) return {0, 0, 0, 0};
  uint32_t xs = w, ys = h, xe = 0, ye = 0, cc = 0, xp = 0;
  for (size_t j = 0; j < m; ++j) {
    cc += rle.counts[j];
    const uint32_t t = cc - static_cast<uint32_t>(j % 2);
    const uint32_t y = t % h, x = (t - y) / h;
    if (j % 2 == 0)
      xp = x;
    else if (xp < x)
      ys = 0, ye = h - 1;
    xs = std::min(xs, x), xe = std::max(xe, x), ys = std::min(ys, y), ye = std::max(ye, y);
  }
  return {static_cast<double>(xs), static_cast<double>(ys), static_cast<double>(xe) - xs + 1,
          static_cast<double>(ye) - ys + 1};
}

Rle merge(const std::vector<Rle>& rles, bool intersect) {
  if (rles.empty()) return {};
  Rle acc = rles[0];
  for (size_t i = 1; i < rles.size(); ++i) {
    const Rle& b = rles[i];
    EMBER_CHECK(b.height == acc.height && b.width == acc.width, "mask.merge: masks of different sizes, ",
                acc.height, " x ", acc.width, " and ", b.height, " x ", b.width);
    RunCursor ca(acc), cb(b);
    std::vector<uint32_t> out;
    bool v = false;
    uint32_t cc = 0;
    for (bool more = true; more;) {
      const uint32_t c = std::min(ca.left, cb.left);
      cc += c;
      ca.consume(c);
      cb.consume(c);
      more = ca.left + static_cast<uint64_t>(cb.left) > 0;
      const bool vp = v;
      v = intersect ? (ca.value && cb.value) : (ca.value || cb.value);
      if (v != vp || !more) {
        out.push_back(cc);
        cc = 0;
      }
    }
    acc.counts = std::move(out);
  }
  return acc;
}

Rle from_polygon(const std::vector<double>& xy, int64_t height, int64_t width) {
  check_size(height, width, "mask.from_polygon");
  // Fewer than three points rasterize (to a line's few pixels or nothing),
  // as pycocotools: COCO's files hold a few such polygons.
  EMBER_CHECK(!xy.empty() && xy.size() % 2 == 0, "mask.from_polygon: a polygon is a list of (x, y) points "
              "[x0, y0, x1, y1, ...], got ", xy.size(), " numbers");
  const size_t k = xy.size() / 2;
  constexpr double scale = 5;
  std::vector<int> x(k + 1), y(k + 1);
  for (size_t j = 0; j < k; ++j) {
    x[j] = static_cast<int>(scale * xy[2 * j] + .5);
    y[j] = static_cast<int>(scale * xy[2 * j + 1] + .5);
  }
  x[k] = x[0], y[k] = y[0];
  // The boundary, point by point on the upsampled grid.
  std::vector<int> u, v;
  for (size_t j = 0; j < k; ++j) {
    int xs = x[j], xe = x[j + 1], ys = y[j], ye = y[j + 1];
    const int dx = std::abs(xe - xs), dy = std::abs(ys - ye);
    const bool flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
    if (flip) std::swap(xs, xe), std::swap(ys, ye);
    // A repeated vertex (dx = dy = 0) gives one point; maskApi's slope is then
    // 0 / 0, whose row is never read (the x before and after are the same).
    const double s = dx >= dy ? (dx ? static_cast<double>(ye - ys) / dx : 0.0) : static_cast<double>(xe - xs) / dy;
    if (dx >= dy) {
      for (int d = 0; d <= dx; ++d) {
        const int t = flip ? dx - d : d;
        u.push_back(t + xs);
        v.push_back(static_cast<int>(ys + s * t + .5));
      }
    } else {
      for (int d = 0; d <= dy; ++d) {
        const int t = flip ? dy - d : d;
        v.push_back(t + ys);
        u.push_back(static_cast<int>(xs + s * t + .5));
      }
    }
  }
  // Crossings of pixel-column centres: run boundaries.
  const uint32_t h = static_cast<uint32_t>(height), w = static_cast<uint32_t>(width);
  std::vector<uint32_t> a;
  for (size_t j = 1; j < u.size(); ++j) {
    if (u[j] == u[j - 1]) continue;
    double xd = u[j] < u[j - 1] ? u[j] : u[j] - 1;
    xd = (xd + .5) / scale - .5;
    if (std::floor(xd) != xd || xd < 0 || xd > static_cast<double>(width) - 1) continue;
    double yd = v[j] < v[j - 1] ? v[j] : v[j - 1];
    yd = (yd + .5) / scale - .5;
    if (yd < 0)
      yd = 0;
    else if (yd > static_cast<double>(height))
      yd = static_cast<double>(height);
    yd = std::ceil(yd);
    a.push_back(static_cast<uint32_t>(static_cast<int>(xd) * static_cast<int>(h) + static_cast<int>(yd)));
  }
  a.push_back(h * w);
  std::sort(a.begin(), a.end());
  uint32_t p = 0;
  for (uint32_t& t : a) {
    const uint32_t cur = t;
    t -= p;
    p = cur;
  }
  // Empty runs join their neighbours.
  std::vector<uint32_t> b{a[0]};
  for (size_t j = 1; j < a.size();) {
    if (a[j] > 0) {
      b.push_back(a[j++]);
    } else {
      ++j;
      if (j < a.size()) b.back() += a[j++];
    }
  }
  return {height, width, std::move(b)};
}

Rle from_polygons(const std::vector<std::vector<double>>& polygons, int64_t height, int64_t width) {
  EMBER_CHECK(!polygons.empty(), "mask.from_polygons: no polygons");
  std::vector<Rle> parts;
  for (const auto& p : polygons) parts.push_back(from_polygon(p, height, width));
  return merge(parts);
}

std::string to_string(const Rle& rle) {
  std::string s;
  for (size_t i = 0; i < rle.counts.size(); ++i) {
    int64_t x = rle.counts[i];
    if (i > 2) x -= rle.counts[i - 2];
    for (bool more = true; more;) {
      char c = static_cast<char>(x & 0x1f);
      x >>= 5;  // arithmetic: the sign stays
      more = (c & 0x10) ? x != -1 : x != 0;
      if (more) c |= 0x20;
      s.push_back(static_cast<char>(c + 48));
    }
  }
  return s;
}

Rle from_string(const std::string& counts, int64_t height, int64_t width) {
  check_size(height, width, "mask.from_string");
  Rle r{height, width, {}};
  size_t p = 0;
  while (p < counts.size()) {
    int64_t x = 0;
    int k = 0;
    for (bool more = true; more;) {
      EMBER_CHECK(p < counts.size() && counts[p] >= 48 && counts[p] < 48 + 64 && k < 7, "mask.from_string: '",
                  counts, "' is not a COCO RLE string (at character ", p, ")");
      const int c = counts[p] - 48;
      x |= static_cast<int64_t>(c & 0x1f) << (5 * k);
      more = c & 0x20;
      ++p, ++k;
      if (!more && (c & 0x10)) x |= int64_t{-1} << (5 * k);
    }
    if (r.counts.size() > 2) x += r.counts[r.counts.size() - 2];
    EMBER_CHECK(x >= 0 && x <= int64_t{0xffffffff}, "mask.from_string: '", counts,
                "' decodes to a negative or oversized run (", x, ")");
    r.counts.push_back(static_cast<uint32_t>(x));
  }
  check_counts(r, "mask.from_string");
  return r;
}

double iou(const Rle& d, const Rle& g, bool crowd) {
  EMBER_CHECK(d.height == g.height && d.width == g.width, "mask.iou: a detection mask of ", d.height, " x ",
              d.width, " and a ground-truth mask of ", g.height, " x ", g.width, " (masks of one image have one size)");
  // maskApi first compares the tight boxes: no overlap, IoU 0.
  const auto db = to_bbox(d), gb = to_bbox(g);
  const double bw = std::fmin(db[2] + db[0], gb[2] + gb[0]) - std::fmax(db[0], gb[0]);
  const double bh = std::fmin(db[3] + db[1], gb[3] + gb[1]) - std::fmax(db[1], gb[1]);
  if (bw <= 0 || bh <= 0) return 0;
  RunCursor ca(d), cb(g);
  uint64_t inter = 0, uni = 0;
  for (bool more = true; more;) {
    const uint32_t c = std::min(ca.left, cb.left);
    if (ca.value || cb.value) {
      uni += c;
      if (ca.value && cb.value) inter += c;
    }
    ca.consume(c);
    cb.consume(c);
    more = ca.left + static_cast<uint64_t>(cb.left) > 0;
  }
  if (inter == 0) return 0;
  const double u = crowd ? area(d) : static_cast<double>(uni);
  return static_cast<double>(inter) / u;
}

Tensor iou(const std::vector<Rle>& detections, const std::vector<Rle>& ground_truth,
           const std::vector<uint8_t>& iscrowd) {
  EMBER_CHECK(iscrowd.size() == ground_truth.size(), "mask.iou: ", ground_truth.size(),
              " ground-truth masks but ", iscrowd.size(), " iscrowd flags");
  const int64_t D = static_cast<int64_t>(detections.size()), G = static_cast<int64_t>(ground_truth.size());
  Tensor out = zeros({D, G}, kFloat64);
  double* o = out.data_ptr<double>();
  for (int64_t d = 0; d < D; ++d)
    for (int64_t g = 0; g < G; ++g) o[d * G + g] = iou(detections[d], ground_truth[g], iscrowd[g] != 0);
  return out;
}

}  // namespace ember::vision::detection::mask
