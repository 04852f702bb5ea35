#include "detect/shapes_coco.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>

#include <ember/core/error.h>
#include <ember/core/parallel.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>
#include <ember/vision/detection/coco_mask.h>

namespace ember::apps::detect {
namespace {

using Polygon = std::vector<std::array<double, 2>>;
using Color = std::array<double, 3>;

// Shape `label` of radius 1 around the origin, as a polygon.
Polygon unit_shape(int64_t label) {
  Polygon p;
  auto ring = [&](int n, double phase, auto radius_of) {
    for (int i = 0; i < n; ++i) {
      const double a = phase + 2 * std::numbers::pi * i / n;
      const double r = radius_of(i);
      p.push_back({r * std::cos(a), r * std::sin(a)});
    }
  };
  switch (label) {
    case 0: ring(24, 0.0, [](int) { return 1.0; }); break;                              // circle
    case 1: ring(4, std::numbers::pi / 4, [](int) { return 1.0; }); break;              // square
    case 2: ring(3, -std::numbers::pi / 2, [](int) { return 1.0; }); break;             // triangle
    case 3: ring(10, -std::numbers::pi / 2, [](int i) { return i % 2 ? 0.45 : 1.0; }); break;  // star
    default:                                                                           // cross
      for (auto [x, y] : {std::array<double, 2>{-0.3, -1}, {0.3, -1}, {0.3, -0.3}, {1, -0.3}, {1, 0.3}, {0.3, 0.3},
                          {0.3, 1}, {-0.3, 1}, {-0.3, 0.3}, {-1, 0.3}, {-1, -0.3}, {-0.3, -0.3}})
        p.push_back({x, y});
  }
  return p;
}

// Even-odd rule.
bool inside(const Polygon& p, double x, double y) {
  bool in = false;
  for (size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) {
    const auto& a = p[i];
    const auto& b = p[j];
    if ((a[1] > y) != (b[1] > y) && x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0]) in = !in;
  }
  return in;
}

struct Object {
  int64_t category;  // 1-based
  Polygon polygon;   // image coordinates, rounded to 1/100 pixel (as written)
  std::array<double, 4> bbox;
  double area;
};

struct Drawn {
  Tensor image;
  std::vector<Object> objects;
};

Drawn draw_image(const ShapesCocoOptions& o, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int64_t W = o.image_width, H = o.image_height;
  const double Wd = static_cast<double>(W), Hd = static_cast<double>(H);
  auto color = [&] { return Color{unit(rng), unit(rng), unit(rng)}; };
  // Background: a two-colour gradient with stripes or checks and noise.
  const Color bg0 = color(), bg1 = color();
  const double ga = unit(rng) * 2 * std::numbers::pi, gx = std::cos(ga) / Wd, gy = std::sin(ga) / Hd;
  const int texture = static_cast<int>(unit(rng) * 3);  // 0 stripes, 1 checks, 2 blotches
  const double period = 6 + 14 * unit(rng), ta = unit(rng) * std::numbers::pi, amp = 0.06 + 0.1 * unit(rng);
  std::vector<double> plane(static_cast<size_t>(3 * H * W));
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x) {
      const double t = std::clamp(0.5 + (x - Wd / 2) * gx + (y - Hd / 2) * gy, 0.0, 1.0);
      const double u = x * std::cos(ta) + y * std::sin(ta), v = -x * std::sin(ta) + y * std::cos(ta);
      double tex = texture == 0   ? std::sin(2 * std::numbers::pi * u / period)
                   : texture == 1 ? ((static_cast<int64_t>(std::floor(u / period)) +
                                      static_cast<int64_t>(std::floor(v / period))) % 2 ? 1.0 : -1.0)
                                  : std::sin(u / period * 2.1) * std::cos(v / period * 1.7);
      for (int c = 0; c < 3; ++c)
        plane[(c * H + y) * W + x] = bg0[c] * (1 - t) + bg1[c] * t + amp * tex;
    }

  // Objects at free places: a disc of each object's radius (plus a margin)
  // does not meet another's, and lies inside the image.
  std::uniform_int_distribution<int64_t> count(o.min_objects, o.max_objects);
  const int64_t n = count(rng);
  std::vector<std::array<double, 3>> placed;  // cx, cy, r
  std::vector<Object> objects;
  const double big_max = std::min(Wd, Hd) * 0.3;
  for (int64_t k = 0; k < n; ++k) {
    for (int attempt = 0; attempt < 30; ++attempt) {
      const bool small = unit(rng) < o.small_fraction;
      // A radius-r shape covers well under (2r)^2 pixels: small ones have r <= 12.
      const double r = small ? 5 + 7 * unit(rng) : 13 + (big_max - 13) * unit(rng);
      const double cx = r + 1 + unit(rng) * (Wd - 2 * r - 2), cy = r + 1 + unit(rng) * (Hd - 2 * r - 2);
      if (cx < r || cy < r) continue;  // larger than the image
      bool free = true;
      for (const auto& q : placed) free &= std::hypot(cx - q[0], cy - q[1]) > r + q[2] + 2;
      if (!free) continue;
      placed.push_back({cx, cy, r});
      const int64_t label = static_cast<int64_t>(unit(rng) * 5) % 5;
      const double angle = unit(rng) * 2 * std::numbers::pi, aspect = 0.8 + 0.4 * unit(rng);
      const double ca = std::cos(angle), sa = std::sin(angle);
      Object obj{label + 1, {}, {}, 0};
      for (auto [ux, uy] : unit_shape(label)) {
        const double px = ux * r * aspect, py = uy * r;
        // Rounded to what the JSON holds, so that pixels and annotation agree.
        obj.polygon.push_back({std::round((cx + ca * px - sa * py) * 100) / 100,
                               std::round((cy + sa * px + ca * py) * 100) / 100});
      }
      double x0 = Wd, y0 = Hd, x1 = 0, y1 = 0;
      for (auto [x, y] : obj.polygon) x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
      obj.bbox = {x0, y0, x1 - x0, y1 - y0};
      std::vector<double> flat;
      for (auto [x, y] : obj.polygon) flat.push_back(x), flat.push_back(y);
      obj.area = vision::detection::mask::area(vision::detection::mask::from_polygon(flat, H, W));
      // The colour: away from the background's mean brightness, so it shows.
      Color fg = color();
      const double bg_luma = 0.5 * ((bg0[0] + bg1[0]) * 0.3 + (bg0[1] + bg1[1]) * 0.59 + (bg0[2] + bg1[2]) * 0.11);
      const double fg_luma = fg[0] * 0.3 + fg[1] * 0.59 + fg[2] * 0.11;
      if (std::abs(fg_luma - bg_luma) < 0.3)
        for (double& c : fg) c = std::clamp(c + (fg_luma < bg_luma ? -0.35 : 0.35), 0.0, 1.0);
      // 4 x 4 samples per pixel of the box: antialiased edges.
      constexpr int kSub = 4;
      for (int64_t y = static_cast<int64_t>(y0); y <= std::min<int64_t>(static_cast<int64_t>(y1), H - 1); ++y)
        for (int64_t x = static_cast<int64_t>(x0); x <= std::min<int64_t>(static_cast<int64_t>(x1), W - 1); ++x) {
          int covered = 0;
          for (int sy = 0; sy < kSub; ++sy)
            for (int sx = 0; sx < kSub; ++sx)
              covered += inside(obj.polygon, x + (sx + 0.5) / kSub, y + (sy + 0.5) / kSub);
          const double cover = covered / double(kSub * kSub);
          for (int c = 0; c < 3; ++c) {
            double& v = plane[(c * H + y) * W + x];
            v = v * (1 - cover) + fg[c] * cover;
          }
        }
      objects.push_back(std::move(obj));
      break;
    }
  }
  // Noise over everything, as a camera's.
  std::normal_distribution<double> noise(0.0, 0.03);
  Tensor image = empty({3, H, W}, kUInt8);
  uint8_t* out = image.data_ptr<uint8_t>();
  for (size_t i = 0; i < plane.size(); ++i)
    out[i] = static_cast<uint8_t>(std::lround(std::clamp(plane[i] + noise(rng), 0.0, 1.0) * 255));
  return {image, std::move(objects)};
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

const std::vector<std::string>& shapes_coco_categories() {
  static const std::vector<std::string> names = {"circle", "square", "triangle", "star", "cross"};
  return names;
}

ShapesCocoSummary write_shapes_coco(const std::string& root, const ShapesCocoOptions& o) {
  namespace fs = std::filesystem;
  EMBER_CHECK(o.train_images >= 0 && o.val_images >= 0, "write_shapes_coco: image counts must be non-negative, got ",
              o.train_images, " and ", o.val_images);
  EMBER_CHECK(o.image_width >= 48 && o.image_height >= 48, "write_shapes_coco: images must be at least 48 x 48, got ",
              o.image_width, " x ", o.image_height);
  EMBER_CHECK(o.min_objects >= 1 && o.max_objects >= o.min_objects, "write_shapes_coco: expected 1 <= min_objects "
              "<= max_objects, got ", o.min_objects, " and ", o.max_objects);
  EMBER_CHECK(o.small_fraction >= 0 && o.small_fraction <= 1, "write_shapes_coco: small_fraction must be in [0, 1], got ",
              o.small_fraction);
  ShapesCocoSummary summary;
  fs::create_directories(fs::path(root) / "annotations");
  const std::array<std::pair<const char*, int64_t>, 2> splits = {{{"train", o.train_images}, {"val", o.val_images}}};
  int64_t next_ann_id = 1;
  for (size_t split = 0; split < splits.size(); ++split) {
    const auto [name, n] = splits[split];
    fs::create_directories(fs::path(root) / name);
    std::vector<std::vector<Object>> objects(static_cast<size_t>(n));
    std::vector<std::string> files(static_cast<size_t>(n));
    // Each image has its own generator (seed, split, index): the bytes do not
    // depend on how the work is split over threads.
    parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        std::seed_seq seq{o.seed, static_cast<uint64_t>(split), static_cast<uint64_t>(i)};
        std::mt19937_64 rng(seq);
        Drawn d = draw_image(o, rng);
        char file[32];
        const bool png = i % 5 == 4;  // every fifth a PNG: both decoders in use
        std::snprintf(file, sizeof file, "%06lld.%s", static_cast<long long>(i + 1), png ? "png" : "jpg");
        const std::string path = (fs::path(root) / name / file).string();
        if (png)
          io::write_png(d.image, path);
        else
          io::write_jpeg(d.image, path, 90);
        files[i] = file;
        objects[i] = std::move(d.objects);
      }
    });
    std::string json = "{\"info\": {\"description\": \"Ember shapes detection dataset\", \"version\": \"1\"},\n";
    json += "\"licenses\": [],\n\"images\": [";
    for (int64_t i = 0; i < n; ++i)
      json += std::string(i ? ",\n  " : "\n  ") + "{\"id\": " + std::to_string(i + 1) + ", \"file_name\": \"" +
              files[i] + "\", \"width\": " + std::to_string(o.image_width) +
              ", \"height\": " + std::to_string(o.image_height) + "}";
    json += "],\n\"categories\": [";
    const auto& cats = shapes_coco_categories();
    for (size_t c = 0; c < cats.size(); ++c)
      json += std::string(c ? ", " : "") + "{\"id\": " + std::to_string(c + 1) + ", \"name\": \"" + cats[c] +
              "\", \"supercategory\": \"shape\"}";
    json += "],\n\"annotations\": [";
    bool first = true;
    for (int64_t i = 0; i < n; ++i)
      for (const Object& obj : objects[i]) {
        json += first ? "\n  " : ",\n  ";
        first = false;
        json += "{\"id\": " + std::to_string(next_ann_id++) + ", \"image_id\": " + std::to_string(i + 1) +
                ", \"category_id\": " + std::to_string(obj.category) + ", \"iscrowd\": 0, \"area\": " +
                number(obj.area) + ", \"bbox\": [" + number(obj.bbox[0]) + ", " + number(obj.bbox[1]) + ", " +
                number(obj.bbox[2]) + ", " + number(obj.bbox[3]) + "], \"segmentation\": [[";
        for (size_t v = 0; v < obj.polygon.size(); ++v)
          json += (v ? ", " : "") + number(obj.polygon[v][0]) + ", " + number(obj.polygon[v][1]);
        json += "]]}";
        ++summary.annotations;
        summary.small_annotations += obj.area < 32 * 32;
      }
    json += "]}\n";
    const std::string ann_path = (fs::path(root) / "annotations" / (std::string("instances_") + name + ".json")).string();
    std::ofstream out(ann_path, std::ios::binary);
    out << json;
    EMBER_CHECK(out.good(), "write_shapes_coco: could not write ", ann_path);
    summary.images += n;
  }
  return summary;
}

}  // namespace ember::apps::detect
