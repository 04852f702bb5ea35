// ImageTransform: vision transforms (holders and TransformPtr) and plain
// callables as a dataset's `transform`.
#include <ember/datasets/fake_data.h>
#include <ember/datasets/transform.h>
#include <ember/ops/factories.h>
#include <ember/vision/transforms/containers.h>

#include "formats_test_util.h"

namespace ember::datasets {
namespace formats_transform_test {

namespace T = vision::transforms;
using ember::testing::tensors_equal;

TEST(FormatsImageTransform, HoldersPointersAndCallables) {
  Tensor x = arange(6, kFloat32).view({1, 2, 3});
  ImageTransform none;
  EXPECT_FALSE(none);
  EXPECT_TRUE(tensors_equal(none(x), x));
  ImageTransform null = nullptr;
  EXPECT_FALSE(null);

  T::Lambda double_it([](const Tensor& t) { return t * 2; });
  ImageTransform from_holder = double_it;
  EXPECT_TRUE(from_holder);
  EXPECT_TRUE(tensors_equal(from_holder(x), x * 2));

  T::TransformPtr ptr = T::Compose({double_it, T::Lambda([](const Tensor& t) { return t + 1; })});
  ImageTransform from_ptr = ptr;
  EXPECT_TRUE(tensors_equal(from_ptr(x), x * 2 + 1));
  ImageTransform empty_ptr = T::TransformPtr();
  EXPECT_FALSE(empty_ptr);

  ImageTransform from_lambda = [](const Tensor& t) { return t - 1; };
  EXPECT_TRUE(tensors_equal(from_lambda(x), x - 1));

  // As an option of a dataset.
  FakeData ds({.size = 2,
               .image_size = {1, 2, 3},
               .transform = T::Compose(
                   {T::Lambda([](const Tensor& t) { return t.to(kFloat32); }), double_it})});
  FakeData plain({.size = 2, .image_size = {1, 2, 3}});
  EXPECT_TRUE(tensors_equal(ds.get(1).first, plain.get(1).first.to(kFloat32) * 2));
}

}  // namespace ember::datasets

}  // namespace formats_transform_test
