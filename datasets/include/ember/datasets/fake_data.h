#pragma once
// FakeData (torchvision.datasets.FakeData): random images and labels, the
// same for a given index every time. Sample i is drawn from a generator seeded
// with i + random_offset: the image from standard normal values v as
// torchvision's ToPILImage converts them (uint8(trunc(v * 255)) modulo 256),
// then the label uniform in [0, num_classes). Ember's generator (Philox) is
// not PyTorch's, so the values differ from torchvision's; the recipe and the
// distributions are the same.
//
//   FakeData fake({.size = 100, .image_size = {3, 32, 32}});
//   auto [image, label] = fake.get(7);   // uint8 [3, 32, 32], int64
#include <cstdint>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/dataset.h>
#include <ember/datasets/transform.h>

namespace ember::datasets {

struct FakeDataOptions {
  int64_t size = 1000;
  // The image's [C, H, W].
  std::vector<int64_t> image_size = {3, 224, 224};
  int64_t num_classes = 10;
  ImageTransform transform{};
  TargetTransform target_transform{};
  // Added to the index to seed each sample's generator.
  int64_t random_offset = 0;
};

class FakeData : public Dataset<std::pair<Tensor, int64_t>> {
 public:
  explicit FakeData(FakeDataOptions options = {});

  std::pair<Tensor, int64_t> get(int64_t index) override;
  int64_t size() const override { return options_.size; }

 private:
  FakeDataOptions options_;
};

}  // namespace ember::datasets
