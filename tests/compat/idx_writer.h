#pragma once
// Writes IDX files (MNIST's format) for the libtorch-style MNIST tests, and
// draws a small digit-like data set: each class is a fixed set of strokes of a
// seven-segment digit, shifted by up to 3 pixels, with noise, so that a small
// CNN has something real to learn.
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace ember_test {

inline void write_be32(std::ofstream& out, uint32_t v) {
  const unsigned char b[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                              static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  out.write(reinterpret_cast<const char*>(b), 4);
}

// magic 0x00000801 (labels) or 0x00000803 (images), then the sizes, then bytes.
inline void write_idx(const std::string& path, const std::vector<uint32_t>& sizes,
                      const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  write_be32(out, 0x00000800u | static_cast<uint32_t>(sizes.size()));
  for (uint32_t s : sizes) write_be32(out, s);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct DigitSet {
  std::vector<uint8_t> images;  // n * 28 * 28
  std::vector<uint8_t> labels;  // n
};

// Seven-segment digits (segments a..g) in a 12 x 20 box, shifted and noised.
inline DigitSet draw_digits(int n, uint32_t seed) {
  static const char* kSegments[10] = {"abcdef", "bc", "abdeg", "abcdg", "bcfg",
                                      "acdfg",  "acdefg", "abc", "abcdefg", "abcdfg"};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> shift(-3, 3), label(0, 9);
  std::normal_distribution<double> noise(0.0, 25.0);
  DigitSet set;
  set.images.assign(static_cast<size_t>(n) * 784, 0);
  set.labels.resize(n);
  for (int s = 0; s < n; ++s) {
    const int digit = label(rng);
    set.labels[s] = static_cast<uint8_t>(digit);
    std::vector<double> img(784, 0.0);
    const int x0 = 8 + shift(rng), y0 = 4 + shift(rng);
    auto hline = [&](int y) {
      for (int x = x0; x < x0 + 12; ++x)
        for (int t = 0; t < 2; ++t) img[(y + t) * 28 + x] = 230;
    };
    auto vline = [&](int x, int ya) {
      for (int y = ya; y < ya + 10; ++y)
        for (int t = 0; t < 2; ++t) img[y * 28 + x + t] = 230;
    };
    for (const char* c = kSegments[digit]; *c; ++c) {
      switch (*c) {
        case 'a': hline(y0); break;
        case 'b': vline(x0 + 10, y0); break;
        case 'c': vline(x0 + 10, y0 + 10); break;
        case 'd': hline(y0 + 18); break;
        case 'e': vline(x0, y0 + 10); break;
        case 'f': vline(x0, y0); break;
        case 'g': hline(y0 + 9); break;
      }
    }
    for (int p = 0; p < 784; ++p) {
      const double v = img[p] + noise(rng);
      set.images[static_cast<size_t>(s) * 784 + p] = static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
  return set;
}

// root/<split>-images-idx3-ubyte and root/<split>-labels-idx1-ubyte.
inline void write_mnist_split(const std::string& root, const std::string& split, const DigitSet& set) {
  const auto n = static_cast<uint32_t>(set.labels.size());
  write_idx(root + "/" + split + "-images-idx3-ubyte", {n, 28, 28}, set.images);
  write_idx(root + "/" + split + "-labels-idx1-ubyte", {n}, set.labels);
}

}  // namespace ember_test
