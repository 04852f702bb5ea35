#include "shapes_data.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <random>

#include <ember/core/parallel.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>

namespace ember::apps {
namespace {

// Whether (u, v), in the shape's own frame (unit radius, centred at 0), is
// inside shape `label`.
bool inside(int64_t label, double u, double v) {
  switch (label) {
    case 0: return u * u + v * v <= 1.0;                                  // circle
    case 1: return std::abs(u) <= 0.8 && std::abs(v) <= 0.8;             // square
    case 2: return v <= 0.7 && v >= -0.9 && std::abs(u) <= (v + 0.9) * 0.6;  // triangle, apex up
    case 3: {                                                              // five-pointed star
      const double r = std::hypot(u, v);
      if (r > 1.0) return false;
      const double a = std::atan2(u, -v);  // 0 at the top point
      const double sector = 2 * std::numbers::pi / 5;
      const double t = std::abs(std::remainder(a, sector)) / (sector / 2);  // 0 at a point, 1 between
      return r <= 1.0 - 0.58 * t;
    }
    case 4: return (std::abs(u) <= 0.3 && std::abs(v) <= 0.95) || (std::abs(v) <= 0.3 && std::abs(u) <= 0.95);  // cross
    default: {                                                             // ring
      const double d2 = u * u + v * v;
      return d2 <= 1.0 && d2 >= 0.55 * 0.55;
    }
  }
}

using Color = std::array<double, 3>;

// One image, [3, size, size] uint8.
Tensor draw(int64_t label, int64_t size, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto color = [&] { return Color{unit(rng), unit(rng), unit(rng)}; };
  Color bg0 = color(), bg1 = color(), fg = color();
  // Keep the shape visible: push the foreground away from the mean background.
  const double bg_luma = 0.5 * (bg0[0] + bg1[0]) * 0.3 + 0.5 * (bg0[1] + bg1[1]) * 0.59 + 0.5 * (bg0[2] + bg1[2]) * 0.11;
  const double fg_luma = fg[0] * 0.3 + fg[1] * 0.59 + fg[2] * 0.11;
  if (std::abs(fg_luma - bg_luma) < 0.3) {
    const double shift = fg_luma < bg_luma ? -0.35 : 0.35;
    for (double& c : fg) c = std::clamp(c + shift, 0.0, 1.0);
  }
  // The affine jitter: a point (x, y) of the image maps to the shape's frame
  // through the inverse of rotate(angle) * shear * scale, about the centre.
  const double s = static_cast<double>(size);
  const double radius = s * (0.22 + 0.14 * unit(rng));
  const double cx = s / 2 + (unit(rng) - 0.5) * (s - 2.2 * radius), cy = s / 2 + (unit(rng) - 0.5) * (s - 2.2 * radius);
  const double angle = (unit(rng) - 0.5) * 2 * std::numbers::pi / 6;  // +-30 degrees
  const double shear = (unit(rng) - 0.5) * 0.4, aspect = 0.85 + 0.3 * unit(rng);
  const double ca = std::cos(angle), sa = std::sin(angle);
  const double gradient_angle = unit(rng) * 2 * std::numbers::pi;
  const double gx = std::cos(gradient_angle) / s, gy = std::sin(gradient_angle) / s;
  std::normal_distribution<double> noise(0.0, 0.06);

  Tensor image = empty({3, size, size}, kUInt8);
  uint8_t* out = image.data_ptr<uint8_t>();
  constexpr int kSub = 4;  // 4x4 samples per pixel: antialiased edges
  for (int64_t y = 0; y < size; ++y) {
    for (int64_t x = 0; x < size; ++x) {
      int covered = 0;
      for (int sy = 0; sy < kSub; ++sy) {
        for (int sx = 0; sx < kSub; ++sx) {
          const double px = x + (sx + 0.5) / kSub - cx, py = y + (sy + 0.5) / kSub - cy;
          const double rx = ca * px + sa * py, ry = -sa * px + ca * py;  // undo the rotation
          const double u = (rx - shear * ry) / (radius * aspect), v = ry / radius;
          covered += inside(label, u, v);
        }
      }
      const double cover = covered / double(kSub * kSub);
      const double t = std::clamp(0.5 + (x - s / 2) * gx + (y - s / 2) * gy, 0.0, 1.0);
      for (int c = 0; c < 3; ++c) {
        const double background = bg0[c] * (1 - t) + bg1[c] * t;
        const double value = background * (1 - cover) + fg[c] * cover + noise(rng);
        out[(c * size + y) * size + x] = static_cast<uint8_t>(std::lround(std::clamp(value, 0.0, 1.0) * 255));
      }
    }
  }
  return image;
}

}  // namespace

const std::vector<std::string>& shape_classes() {
  static const std::vector<std::string> names = {"circle", "square", "triangle", "star", "cross", "ring"};
  return names;
}

int64_t write_shapes_dataset(const std::string& root, const ShapesDataOptions& options) {
  namespace fs = std::filesystem;
  const std::array<std::pair<const char*, int64_t>, 3> splits = {
      {{"train", options.train_per_class}, {"val", options.val_per_class}, {"test", options.test_per_class}}};
  const auto& classes = shape_classes();
  const int64_t num_classes = static_cast<int64_t>(classes.size());
  int64_t written = 0;
  for (size_t split = 0; split < splits.size(); ++split) {
    const auto [name, per_class] = splits[split];
    for (const auto& cls : classes) fs::create_directories(fs::path(root) / name / cls);
    // Every image has its own generator (seed, split, index): the files do not
    // depend on how the work is split over threads.
    parallel_for(0, per_class * num_classes, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t label = i % num_classes, index = i / num_classes;
        std::seed_seq seq{options.seed, static_cast<uint64_t>(split), static_cast<uint64_t>(i)};
        std::mt19937_64 rng(seq);
        const Tensor image = draw(label, options.image_size, rng);
        char file[64];
        const bool png = index % 5 == 4;
        std::snprintf(file, sizeof(file), "%s_%04lld.%s", classes[static_cast<size_t>(label)].c_str(),
                      static_cast<long long>(index), png ? "png" : "jpg");
        const std::string path = (fs::path(root) / name / classes[static_cast<size_t>(label)] / file).string();
        if (png)
          io::write_png(image, path);
        else
          io::write_jpeg(image, path, 90);
      }
    });
    written += per_class * num_classes;
  }
  return written;
}

}  // namespace ember::apps
