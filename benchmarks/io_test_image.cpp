// The io suite's test picture (see io_test_image.h).
#include "io_test_image.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ember_bench {

namespace {

// SplitMix64: a fixed, platform-independent pseudo-random sequence.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double uniform(uint64_t key) { return static_cast<double>(mix(key) >> 11) * 0x1.0p-53; }

struct Shape {
  bool circle;
  double cx, cy, rx, ry;  // centre and radius / half sides, in pixels
  double rgb[3];
};

// Coverage of a pixel by a shape, with a 1.5-pixel soft edge (antialiasing,
// as in a photo: hard edges would favour PNG's filters).
double coverage(const Shape& s, double x, double y) {
  double inside;  // signed distance in pixels, positive inside
  if (s.circle) {
    inside = s.rx - std::hypot(x - s.cx, y - s.cy);
  } else {
    inside = std::min(s.rx - std::abs(x - s.cx), s.ry - std::abs(y - s.cy));
  }
  return std::clamp(0.5 + inside / 1.5, 0.0, 1.0);
}

}  // namespace

at::Tensor make_test_image(int64_t height, int64_t width) {
  std::vector<Shape> shapes;
  for (uint64_t i = 0; i < 14; ++i) {
    const uint64_t k = 1000 * (i + 1);
    Shape s;
    s.circle = i % 2 == 0;
    s.cx = uniform(k + 1) * static_cast<double>(width);
    s.cy = uniform(k + 2) * static_cast<double>(height);
    s.rx = (0.03 + 0.12 * uniform(k + 3)) * static_cast<double>(width);
    s.ry = (0.03 + 0.12 * uniform(k + 4)) * static_cast<double>(height);
    for (int c = 0; c < 3; ++c) s.rgb[c] = 30 + 200 * uniform(k + 5 + c);
    shapes.push_back(s);
  }
  at::Tensor image = at::empty({3, height, width}, at::kByte);
  uint8_t* out = image.data_ptr<uint8_t>();
  const int64_t plane = height * width;
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      const double fx = static_cast<double>(x), fy = static_cast<double>(y);
      // Background: slow gradients, different per channel.
      double rgb[3] = {120 + 60 * std::sin(fx / 310 + fy / 530), 110 + 70 * std::cos(fy / 270 - fx / 690),
                       100 + 55 * std::sin((fx + fy) / 410)};
      for (const Shape& s : shapes) {
        const double a = coverage(s, fx, fy);
        if (a == 0) continue;
        // Each shape is lit from the top left: a gentle gradient across it.
        const double shade = 1 + 0.25 * ((s.cx - fx) / (s.rx + 1) + (s.cy - fy) / (s.ry + 1)) / 2;
        for (int c = 0; c < 3; ++c) rgb[c] = (1 - a) * rgb[c] + a * s.rgb[c] * shade;
      }
      // Fine texture in the lower right quarter.
      if (x > width / 2 && y > height / 2) {
        const double t = 18 * std::sin(fx * 0.9 + 2 * std::sin(fy * 0.13)) * std::sin(fy * 0.7 + fx * 0.05);
        for (double& v : rgb) v += t;
      }
      for (int c = 0; c < 3; ++c) {
        // Sensor noise: triangular, about +-6 levels.
        const uint64_t key = (static_cast<uint64_t>(y * width + x) << 2) | static_cast<uint64_t>(c);
        const double noise = 6 * (uniform(key) + uniform(key ^ 0x5555555555555555ULL) - 1);
        out[c * plane + y * width + x] = static_cast<uint8_t>(std::clamp(std::lround(rgb[c] + noise), 0L, 255L));
      }
    }
  }
  return image;
}

}  // namespace ember_bench
