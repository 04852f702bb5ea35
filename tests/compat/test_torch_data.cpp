// A custom dataset in libtorch's idiom (Dataset<Self> with get and size,
// .map() of Lambda / TensorLambda / Stack) and the loader's contract: every
// index once per epoch, batches in sampler order for any number of workers,
// drop_last, a worker's error rethrown by the loop, early exit.
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <set>
#include <sstream>
#include <vector>

#include "compat/compat_test_util.h"

namespace {

// Example i: data = [i, 2i] (float), target = i % 3; optionally failing at one index.
class CustomDataset : public torch::data::Dataset<CustomDataset> {
 public:
  explicit CustomDataset(size_t size, std::optional<size_t> failing = std::nullopt)
      : size_(size), failing_(failing) {}
  torch::data::Example<> get(size_t index) override {
    TORCH_CHECK(!failing_ || index != *failing_, "CustomDataset: sample ", index, " is unreadable");
    auto i = static_cast<double>(index);
    return {torch::tensor({i, 2 * i}, torch::kFloat), torch::tensor(static_cast<int64_t>(index % 3))};
  }
  torch::optional<size_t> size() const override { return size_; }

 private:
  size_t size_;
  std::optional<size_t> failing_;
};

std::vector<std::vector<float>> firsts_of_epoch(size_t workers, size_t size = 103, size_t batch_size = 8) {
  auto dataset = CustomDataset(size).map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(batch_size).workers(workers));
  std::vector<std::vector<float>> batches;
  for (auto& batch : *loader) {
    std::vector<float> firsts;
    for (int64_t i = 0; i < batch.data.size(0); ++i) firsts.push_back(batch.data[i][0].item<float>());
    batches.push_back(firsts);
  }
  return batches;
}

}  // namespace

TEST(TorchData, CustomDatasetThroughTransformsAndRandomSampler) {
  torch::manual_seed(5);
  auto dataset = CustomDataset(50)
                     .map(torch::data::transforms::Lambda<torch::data::Example<>>([](torch::data::Example<> e) {
                       e.target = e.target * 10;
                       return e;
                     }))
                     .map(torch::data::transforms::TensorLambda<>([](torch::Tensor x) { return x + 0.5; }))
                     .map(torch::data::transforms::Stack<>());
  ASSERT_EQ(dataset.size().value(), 50u);
  auto loader = torch::data::make_data_loader(std::move(dataset), torch::data::DataLoaderOptions().batch_size(16));
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::multiset<int64_t> seen;
    std::vector<int64_t> order;
    size_t batches = 0;
    for (torch::data::Example<>& batch : *loader) {
      ++batches;
      ASSERT_EQ(batch.data.dim(), 2);
      EXPECT_EQ(batch.data.size(1), 2);
      for (int64_t i = 0; i < batch.data.size(0); ++i) {
        const auto index = static_cast<int64_t>(batch.data[i][0].item<float>() - 0.5f);
        seen.insert(index);
        order.push_back(index);
        EXPECT_FLOAT_EQ(batch.data[i][1].item<float>(), 2.0f * index + 0.5f);
        EXPECT_EQ(batch.target[i].item<int64_t>(), (index % 3) * 10);
      }
    }
    EXPECT_EQ(batches, 4u);  // 16 + 16 + 16 + 2
    ASSERT_EQ(seen.size(), 50u);
    for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(seen.count(i), 1u) << i;
    EXPECT_FALSE(std::is_sorted(order.begin(), order.end()));  // shuffled
  }
}

TEST(TorchData, BatchesAreTheSameForAnyNumberOfWorkers) {
  const auto serial = firsts_of_epoch(0);
  ASSERT_EQ(serial.size(), 13u);  // 12 x 8 + 7
  EXPECT_EQ(serial.back().size(), 7u);
  for (size_t b = 0; b < serial.size(); ++b)
    for (size_t i = 0; i < serial[b].size(); ++i) EXPECT_EQ(serial[b][i], static_cast<float>(8 * b + i));
  EXPECT_EQ(firsts_of_epoch(1), serial);
  EXPECT_EQ(firsts_of_epoch(2), serial);
  EXPECT_EQ(firsts_of_epoch(5), serial);
}

TEST(TorchData, DropLastAndUnstackedBatches) {
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      CustomDataset(10), torch::data::DataLoaderOptions(4).drop_last(true));
  size_t batches = 0;
  for (std::vector<torch::data::Example<>>& batch : *loader) {  // no Stack: a vector of examples
    EXPECT_EQ(batch.size(), 4u);
    ++batches;
  }
  EXPECT_EQ(batches, 2u);
}

TEST(TorchData, WorkerErrorReachesTheLoop) {
  for (size_t workers : {0u, 2u}) {
    auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
        CustomDataset(40, /*failing=*/21).map(torch::data::transforms::Stack<>()),
        torch::data::DataLoaderOptions().batch_size(4).workers(workers));
    size_t batches = 0;
    EXPECT_ERROR_WITH(
        [&] {
          for (auto& batch : *loader) {
            (void)batch;
            ++batches;
          }
        }(),
        "sample 21 is unreadable");
    EXPECT_EQ(batches, 5u) << workers << " workers";  // batches 0-4 come before the failing one
    // A new epoch starts cleanly after the failure, and leaving it early stops the workers.
    for (auto& batch : *loader) {
      EXPECT_EQ(batch.data[0][0].item<float>(), 0.0f);
      break;
    }
  }
}

// A dataset whose samples from `slow_from` on take 400 ms each.
class SlowDataset : public torch::data::Dataset<SlowDataset> {
 public:
  explicit SlowDataset(size_t slow_from) : slow_from_(slow_from) {}
  torch::data::Example<> get(size_t index) override {
    if (index >= slow_from_) std::this_thread::sleep_for(std::chrono::milliseconds(400));
    return {torch::tensor({static_cast<double>(index)}, torch::kFloat), torch::tensor(int64_t{0})};
  }
  torch::optional<size_t> size() const override { return 8; }

 private:
  size_t slow_from_;
};

// DataLoaderOptions::timeout: the loop raises libtorch's message when the
// next batch takes longer; the batches before it arrive as usual.
TEST(TorchData, TimeoutWhileWaitingForABatch) {
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      SlowDataset(/*slow_from=*/4).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(2).workers(1).timeout(std::chrono::milliseconds(50)));
  size_t batches = 0;
  EXPECT_ERROR_WITH(
      [&] {
        for (auto& batch : *loader) {
          (void)batch;
          ++batches;
        }
      }(),
      "Timeout in DataLoader queue while waiting for next batch (timeout was 50 ms)");
  EXPECT_EQ(batches, 2u);
  // A generous timeout lets the whole epoch through.
  auto patient = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      SlowDataset(/*slow_from=*/7).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(4).workers(2).timeout(std::chrono::seconds(60)));
  batches = 0;
  for (auto& batch : *patient) {
    (void)batch;
    ++batches;
  }
  EXPECT_EQ(batches, 2u);
}

// A source read in order (libtorch's StreamDataset): each call hands out the
// next batch_size numbers.
class CounterStream : public torch::data::datasets::StreamDataset<CounterStream> {
 public:
  std::vector<torch::data::Example<>> get_batch(size_t batch_size) override {
    std::vector<torch::data::Example<>> batch;
    for (size_t i = 0; i < batch_size; ++i, ++next_)
      batch.push_back({torch::tensor({static_cast<double>(next_)}, torch::kFloat), torch::tensor(int64_t{0})});
    return batch;
  }
  torch::optional<size_t> size() const override { return torch::nullopt; }

 private:
  int64_t next_ = 0;
};

TEST(TorchData, StreamDatasetThroughStreamSampler) {
  auto loader = torch::data::make_data_loader(CounterStream().map(torch::data::transforms::Stack<>()),
                                              torch::data::samplers::StreamSampler(/*epoch_size=*/10),
                                              torch::data::DataLoaderOptions().batch_size(4));
  std::vector<int64_t> sizes;
  std::vector<float> values;
  for (auto& batch : *loader) {
    sizes.push_back(batch.data.size(0));
    for (int64_t i = 0; i < batch.data.size(0); ++i) values.push_back(batch.data[i][0].item<float>());
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2}));
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], static_cast<float>(i));

  // Its position saves and loads as libtorch's ("examples_retrieved_so_far").
  torch::data::samplers::StreamSampler sampler(10);
  EXPECT_EQ(sampler.next(4)->size(), 4u);
  std::stringstream stream;
  torch::save(sampler, stream);
  torch::data::samplers::StreamSampler resumed(10);
  torch::load(resumed, stream);
  EXPECT_EQ(static_cast<size_t>(*resumed.next(4)), 4u);
  EXPECT_EQ(resumed.next(4)->size(), 2u);
  EXPECT_FALSE(resumed.next(4).has_value());
}

TEST(TorchData, TensorDatasetAndSamplers) {
  auto dataset = torch::data::datasets::TensorDataset(torch::arange(12).view({6, 2}));
  EXPECT_EQ(dataset.size().value(), 6u);
  EXPECT_EQ(dataset.get(4).data[1].item<int64_t>(), 9);
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(dataset).map(torch::data::transforms::Stack<torch::data::TensorExample>()), 4);
  std::vector<int64_t> rows;
  for (auto& batch : *loader) rows.push_back(batch.data.size(0));
  EXPECT_EQ(rows, (std::vector<int64_t>{4, 2}));

  torch::data::samplers::SequentialSampler sequential(5);
  EXPECT_EQ(sequential.next(3).value(), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(sequential.next(3).value(), (std::vector<size_t>{3, 4}));
  EXPECT_FALSE(sequential.next(3).has_value());
  sequential.reset(2);
  EXPECT_EQ(sequential.next(3).value(), (std::vector<size_t>{0, 1}));

  torch::manual_seed(9);
  torch::data::samplers::RandomSampler random(7);
  std::vector<size_t> all = random.next(100).value();
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_ERROR_WITH(torch::data::make_data_loader(CustomDataset(3), 0), "batch_size");
  EXPECT_ERROR_WITH(torch::data::make_data_loader(CustomDataset(3), torch::data::DataLoaderOptions(2).max_jobs(0)),
                    "max_jobs");
}
