// FakeData: torchvision's recipe (per-index seed, randn image converted as
// ToPILImage does, then a uniform label) on Ember's generator, checked against
// the same draws converted by a float64 loop.
#include <cmath>
#include <set>

#include <ember/core/generator.h>
#include <ember/datasets/fake_data.h>
#include <ember/ops/random.h>

#include "formats_test_util.h"

namespace ember::datasets {
namespace formats_fake_data_test {

using ember::testing::tensors_equal;

TEST(FormatsFakeData, FollowsTorchvisionsRecipe) {
  FakeData ds({.size = 20, .image_size = {3, 5, 7}, .num_classes = 4, .random_offset = 11});
  EXPECT_EQ(ds.size(), 20);
  for (int64_t i : {0, 7, 19}) {
    auto [image, label] = ds.get(i);
    EXPECT_EQ(image.sizes(), IntArrayRef({3, 5, 7}));
    EXPECT_EQ(image.dtype(), kUInt8);
    // Independent conversion: trunc(v * 255) modulo 256, from the same draws.
    Generator g(static_cast<uint64_t>(i + 11));
    Tensor values = randn({3, 5, 7}, {}, &g).contiguous();
    const int64_t expected_label = randint_scalar(0, 4, &g);
    const float* v = values.data_ptr<float>();
    const uint8_t* px = image.contiguous().data_ptr<uint8_t>();
    for (int64_t k = 0; k < values.numel(); ++k) {
      const double scaled = std::trunc(static_cast<double>(v[k] * 255.0f));
      const auto wrapped = static_cast<int64_t>(scaled) & 255;
      ASSERT_EQ(px[k], wrapped) << "element " << k << " value " << v[k];
    }
    EXPECT_EQ(label, expected_label);
  }
}

TEST(FormatsFakeData, DeterministicPerIndexAndOffset) {
  FakeData a({.size = 10, .image_size = {1, 4, 4}});
  FakeData b({.size = 10, .image_size = {1, 4, 4}, .random_offset = 3});
  EXPECT_TRUE(tensors_equal(a.get(5).first, a.get(5).first));
  EXPECT_TRUE(tensors_equal(a.get(5).first, b.get(2).first));
  EXPECT_EQ(a.get(5).second, b.get(2).second);
  EXPECT_FALSE(tensors_equal(a.get(5).first, a.get(6).first));
  // The global generator is neither used nor disturbed.
  manual_seed(123);
  Tensor before = rand({4});
  manual_seed(123);
  (void)a.get(1);
  EXPECT_TRUE(tensors_equal(rand({4}), before));
}

TEST(FormatsFakeData, LabelsCoverTheClasses) {
  FakeData ds({.size = 200,
               .image_size = {1, 2, 2},
               .num_classes = 5,
               .transform = [](const Tensor& t) { return t.to(kFloat32); },
               .target_transform = [](int64_t t) { return t + 10; }});
  std::set<int64_t> labels;
  for (int64_t i = 0; i < ds.size(); ++i) {
    auto [image, label] = ds.get(i);
    EXPECT_EQ(image.dtype(), kFloat32);
    labels.insert(label);
  }
  EXPECT_EQ(labels, (std::set<int64_t>{10, 11, 12, 13, 14}));
}

TEST(FormatsFakeData, Errors) {
  EXPECT_EMBER_ERROR(FakeData({.size = -1}), "FakeData: size must be >= 0, got -1");
  EXPECT_EMBER_ERROR(FakeData({.num_classes = 0}), "num_classes must be positive");
  EXPECT_EMBER_ERROR(FakeData({.image_size = {3, 4}}), "image_size must be [C, H, W]", "[3, 4]");
  EXPECT_EMBER_ERROR(FakeData({.image_size = {3, 0, 4}}), "image_size must be positive");
  FakeData ds({.size = 3});
  EXPECT_EMBER_ERROR(ds.get(3), "FakeData: index 3 is out of range for a dataset of 3 samples");
}

}  // namespace ember::datasets

}  // namespace formats_fake_data_test
