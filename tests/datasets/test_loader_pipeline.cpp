// The whole pipeline: a dataset format with random vision transforms behind a
// shuffling DataLoader gives the same batches, bit for bit, for any number of
// workers (the transforms draw from the per-sample generator).
#include <gtest/gtest.h>

#include <ember/datasets/datasets.h>  // the umbrella header compiles on its own
#include <ember/ember.h>
#include <ember/vision/transforms/containers.h>
#include <ember/vision/transforms/geometry.h>

using namespace ember;
using namespace ember::datasets;
namespace T = ember::vision::transforms;

TEST(LoaderPipeline, FakeDataWithRandomTransformsIsReproducibleAcrossWorkers) {
  auto run = [](int64_t workers) {
    auto dataset = std::make_shared<FakeData>(FakeDataOptions{
        .size = 40,
        .image_size = {3, 24, 20},
        .transform = T::Compose({T::RandomResizedCrop(16), T::RandomHorizontalFlip()})});
    DataLoader loader(dataset, {.batch_size = 6, .shuffle = true, .num_workers = workers, .seed = 5});
    std::vector<std::pair<Tensor, Tensor>> batches;
    for (int epoch = 0; epoch < 2; ++epoch)
      for (auto& batch : loader) batches.push_back(batch);
    return batches;
  };
  const auto reference = run(0);
  ASSERT_EQ(reference.size(), 14u);  // 7 batches (the last of 4) x 2 epochs
  EXPECT_EQ(reference[0].first.sizes(), IntArrayRef({6, 3, 16, 16}));
  EXPECT_EQ(reference[0].first.dtype(), kUInt8);
  EXPECT_EQ(reference[6].first.size(0), 4);
  for (int64_t workers : {1, 3}) {
    const auto other = run(workers);
    ASSERT_EQ(other.size(), reference.size());
    for (size_t k = 0; k < reference.size(); ++k) {
      EXPECT_TRUE(other[k].first.equal(reference[k].first)) << workers << " workers, batch " << k;
      EXPECT_TRUE(other[k].second.equal(reference[k].second)) << workers << " workers, batch " << k;
    }
  }
  // Epochs differ (another order, other crops and flips).
  EXPECT_FALSE(reference[0].first.equal(reference[7].first));
}

// Detection samples keep their list (torch's collate_fn=lambda b: tuple(zip(*b))).
using DetectionLoader = decltype(DataLoader(std::shared_ptr<CocoDetection>(), DataLoaderOptions{},
                                            [](std::vector<CocoSample> samples) { return samples; }));
static_assert(std::is_same_v<DetectionLoader, DataLoader<CocoSample, std::vector<CocoSample>>>);
