// Every format's get() from several threads at once (as the DataLoader's
// workers call it) returns the same samples as sequential calls.
#include <atomic>
#include <thread>

#include <ember/datasets/formats.h>

#include "formats_test_util.h"

namespace ember::datasets {
namespace formats_concurrency_test {

using ember::testing::formats_dir;
using ember::testing::tensors_equal;

// The image (and a tensor of the target) of each sample, read in parallel.
template <class DS, class Key>
void check_concurrent(DS& ds, Key key) {
  std::vector<std::pair<Tensor, Tensor>> reference;
  for (int64_t i = 0; i < ds.size(); ++i) reference.push_back(key(ds.get(i)));
  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 10; ++rep)
        for (int64_t i = 0; i < ds.size(); ++i) {
          const int64_t k = (i * 7 + t + rep) % ds.size();
          try {
            auto got = key(ds.get(k));
            const auto& want = reference[static_cast<size_t>(k)];
            if (!tensors_equal(got.first, want.first) || !tensors_equal(got.second, want.second))
              ++mismatches;
          } catch (...) {
            ++errors;
          }
        }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}

auto class_key = [](const std::pair<Tensor, int64_t>& s) {
  return std::pair<Tensor, Tensor>{s.first, full({1}, s.second)};
};

TEST(FormatsConcurrency, AllFormats) {
  MNIST mnist(formats_dir() + "/mnist");
  check_concurrent(mnist, class_key);
  CIFAR100 cifar(formats_dir() + "/cifar");
  check_concurrent(cifar, class_key);
  FakeData fake({.size = 16, .image_size = {3, 8, 8}});
  check_concurrent(fake, class_key);
  CocoDetection coco(formats_dir() + "/coco/images", formats_dir() + "/coco/instances.json");
  check_concurrent(coco, [](const CocoSample& s) {
    return std::pair<Tensor, Tensor>{s.first, s.second.boxes};
  });
  VOCDetection voc(formats_dir() + "/voc", {.image_set = "train"});
  check_concurrent(voc, [](const VOCSample& s) {
    return std::pair<Tensor, Tensor>{s.first, s.second.boxes};
  });
}

}  // namespace ember::datasets

}  // namespace formats_concurrency_test
