#pragma once
// The apps' built-in dataset: colored shapes (circle, square, triangle, star,
// cross, ring) drawn with a random affine jitter (rotation, scale, shear,
// position) over noisy gradient backgrounds, antialiased, and written as real
// image files (JPEG, every fifth one PNG) in ImageFolder layout:
//
//   root/train/<class>/<class>_0001.jpg ...   root/val/...   root/test/...
//
// so a newcomer's first run exercises the same path as their own photos.
// Deterministic: the same options give the same files.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::apps {

struct ShapesDataOptions {
  int64_t train_per_class = 300;
  int64_t val_per_class = 50;
  int64_t test_per_class = 10;
  int64_t image_size = 64;
  uint64_t seed = 0;
};

const std::vector<std::string>& shape_classes();

// Writes the three splits under root (creating it); returns the number of
// files written.
int64_t write_shapes_dataset(const std::string& root, const ShapesDataOptions& options = {});

}  // namespace ember::apps
