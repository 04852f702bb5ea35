#pragma once
// A generated image-classification dataset: 28x28 grayscale pictures of five
// shapes (disk, square, triangle, cross, ring) at random positions, sizes and
// brightness, with pixel noise. Deterministic for a seed, so runs reproduce.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/ember.h>

namespace shapes {

inline constexpr int64_t kImageSize = 28;
inline const std::vector<std::string> kClassNames = {"disk", "square", "triangle", "cross", "ring"};

struct Dataset {
  ember::Tensor images;  // [N, 1, 28, 28] float32, roughly zero mean, unit variance
  ember::Tensor labels;  // [N] int64 in [0, 5)
  int64_t size() const { return labels.size(0); }
};

Dataset generate(int64_t count, uint64_t seed);

}  // namespace shapes
