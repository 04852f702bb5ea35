#include "shapes_dataset.h"

#include <cmath>
#include <random>

namespace shapes {
namespace {

// Whether pixel (x, y) lies inside shape `label` centred at (cx, cy) with
// half-size r (in pixels).
bool inside(int64_t label, double x, double y, double cx, double cy, double r) {
  const double dx = x - cx, dy = y - cy;
  switch (label) {
    case 0: return dx * dx + dy * dy <= r * r;                                 // disk
    case 1: return std::abs(dx) <= r * 0.85 && std::abs(dy) <= r * 0.85;       // square
    case 2: return dy <= r * 0.8 && dy >= -r && std::abs(dx) <= (dy + r) / 2;  // triangle, apex up
    case 3: return (std::abs(dx) <= r * 0.3 && std::abs(dy) <= r) || (std::abs(dy) <= r * 0.3 && std::abs(dx) <= r);
    default: {  // ring
      const double d2 = dx * dx + dy * dy;
      return d2 <= r * r && d2 >= (r * 0.55) * (r * 0.55);
    }
  }
}

}  // namespace

Dataset generate(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> pick_label(0, static_cast<int64_t>(kClassNames.size()) - 1);
  std::uniform_real_distribution<double> size(5.0, 11.0), brightness(0.5, 1.0), background(0.0, 0.3);
  std::normal_distribution<double> noise(0.0, 0.12);

  Dataset d;
  d.images = ember::empty({count, 1, kImageSize, kImageSize});
  d.labels = ember::empty({count}, ember::kInt64);
  float* img = d.images.data_ptr<float>();
  int64_t* lab = d.labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t label = pick_label(rng);
    const double r = size(rng);
    std::uniform_real_distribution<double> centre(r, static_cast<double>(kImageSize) - r);
    const double cx = centre(rng), cy = centre(rng), fg = brightness(rng), bg = background(rng);
    for (int64_t y = 0; y < kImageSize; ++y)
      for (int64_t x = 0; x < kImageSize; ++x) {
        const double v = (inside(label, x + 0.5, y + 0.5, cx, cy, r) ? fg : bg) + noise(rng);
        // Normalized as one would a real dataset (mean ~0.3, std ~0.35).
        img[(i * kImageSize + y) * kImageSize + x] = static_cast<float>((v - 0.3) / 0.35);
      }
    lab[i] = label;
  }
  return d;
}

}  // namespace shapes
