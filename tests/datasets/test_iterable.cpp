// DataLoader over iterable datasets: sharding by worker, torch's round-robin
// order, no duplicated or lost samples, drop_last per worker, errors,
// reproducibility and shutdown.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <numeric>

#include <ember/datasets/data_loader.h>
#include <ember/datasets/iterable_dataset.h>
#include <ember/datasets/map_dataset.h>
#include <ember/ember.h>

#include "loader_test_util.h"

using namespace ember;
using namespace ember::datasets;
using namespace ember::testing;

namespace iterable_test {

// The numbers [0, n), split between workers with worker_range (or not at
// all), optionally slow and optionally failing at one value.
class RangeStream : public IterableDataset<int64_t> {
 public:
  explicit RangeStream(int64_t n, bool shard = true, int64_t fail_at = -1, int sleep = 0)
      : n_(n), shard_(shard), fail_at_(fail_at), sleep_(sleep) {}
  std::unique_ptr<SampleIterator<int64_t>> iter(const WorkerInfo& worker) override {
    ++iterators;
    WorkerRange r = shard_ ? worker_range(0, n_, worker) : WorkerRange{0, n_};
    return make_iterator<int64_t>([this, i = r.begin, end = r.end]() mutable -> std::optional<int64_t> {
      if (i == end) return std::nullopt;
      if (i == fail_at_) throw std::runtime_error("record " + std::to_string(i) + " is truncated");
      if (sleep_) sleep_ms(sleep_);
      ++produced;
      return i++;
    });
  }
  std::optional<int64_t> size() const override { return n_; }

  std::atomic<int64_t> iterators{0};
  std::atomic<int64_t> produced{0};

 private:
  int64_t n_;
  bool shard_;
  int64_t fail_at_;
  int sleep_;
};

std::vector<std::vector<int64_t>> batches_of(DataLoader<int64_t>& loader) {
  std::vector<std::vector<int64_t>> out;
  for (auto& batch : loader) out.push_back(to_vector(batch));
  return out;
}

// Worker w's stream [begin_w, end_w) cut into batches, then taken one batch per
// worker in turn, skipping workers whose stream ended: torch's order.
std::vector<std::vector<int64_t>> expected_order(int64_t n, int64_t workers, int64_t batch_size, bool drop_last) {
  std::vector<std::vector<std::vector<int64_t>>> per_worker(static_cast<size_t>(workers));
  for (int64_t w = 0; w < workers; ++w) {
    WorkerRange r = worker_range(0, n, WorkerInfo{w, workers, 0});
    for (int64_t b = r.begin; b < r.end; b += batch_size) {
      std::vector<int64_t> batch;
      for (int64_t i = b; i < std::min(r.end, b + batch_size); ++i) batch.push_back(i);
      if (drop_last && static_cast<int64_t>(batch.size()) < batch_size) break;
      per_worker[static_cast<size_t>(w)].push_back(batch);
    }
  }
  std::vector<std::vector<int64_t>> out;
  for (size_t round = 0;; ++round) {
    bool any = false;
    for (auto& batches : per_worker)
      if (round < batches.size()) {
        out.push_back(batches[round]);
        any = true;
      }
    if (!any) break;
  }
  return out;
}

TEST(IterableDataLoader, WorkerRangeSplitsEvenly) {
  std::vector<int64_t> sizes;
  int64_t next = 3;
  for (int64_t w = 0; w < 4; ++w) {
    WorkerRange r = worker_range(3, 13, WorkerInfo{w, 4, 0});
    EXPECT_EQ(r.begin, next);
    next = r.end;
    sizes.push_back(r.end - r.begin);
  }
  EXPECT_EQ(next, 13);
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 2, 2}));
  EXPECT_NE(thrown_message([] { worker_range(0, 5, WorkerInfo{2, 2, 0}); }).find("invalid worker 2 of 2"), std::string::npos);
}

TEST(IterableDataLoader, NoWorkersReadsTheWholeStream) {
  auto stream = std::make_shared<RangeStream>(10);
  DataLoader loader(stream, {.batch_size = 4});
  EXPECT_EQ(loader.size(), 3);
  EXPECT_EQ(batches_of(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  DataLoader dropping(stream, {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(dropping.size(), 2);
  EXPECT_EQ(batches_of(dropping).size(), 2u);
}

TEST(IterableDataLoader, WorkersShardWithoutLossOrDuplicatesInRoundRobinOrder) {
  for (int64_t workers : {1, 2, 3, 4}) {
    for (bool drop_last : {false, true}) {
      auto stream = std::make_shared<RangeStream>(103);
      DataLoader loader(stream, {.batch_size = 5, .num_workers = workers, .drop_last = drop_last});
      const auto batches = batches_of(loader);
      EXPECT_EQ(batches, expected_order(103, workers, 5, drop_last)) << workers << " workers";
      if (!drop_last) {
        std::vector<int64_t> all;
        for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
        std::sort(all.begin(), all.end());
        std::vector<int64_t> expected(103);
        std::iota(expected.begin(), expected.end(), 0);
        EXPECT_EQ(all, expected) << workers << " workers";
      }
      EXPECT_EQ(stream->iterators.load(), workers);
    }
  }
}

TEST(IterableDataLoader, UnshardedStreamsRepeatPerWorkerAsInTorch) {
  auto stream = std::make_shared<RangeStream>(6, /*shard=*/false);
  DataLoader loader(stream, {.batch_size = 3, .num_workers = 2});
  std::map<int64_t, int> counts;
  for (auto& batch : loader)
    for (int64_t v : to_vector(batch)) ++counts[v];
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(counts[i], 2);
}

TEST(IterableDataLoader, RandomDrawsAreReproducibleAndOneWorkerMatchesNone) {
  auto stream = std::make_shared<RangeStream>(40);
  auto noisy = map(stream, [](int64_t i) { return randn({2}) + static_cast<double>(i); });
  auto run = [&](int64_t workers, uint64_t seed) {
    DataLoader loader(noisy, {.batch_size = 4, .num_workers = workers, .seed = seed});
    std::vector<Tensor> out;
    for (int epoch = 0; epoch < 2; ++epoch)
      for (auto& batch : loader) out.push_back(batch);
    return out;
  };
  const auto none = run(0, 9);
  const auto one = run(1, 9);
  ASSERT_EQ(none.size(), one.size());
  for (size_t k = 0; k < none.size(); ++k) EXPECT_TRUE(none[k].equal(one[k])) << k;
  const auto three_a = run(3, 9);
  const auto three_b = run(3, 9);
  ASSERT_EQ(three_a.size(), three_b.size());
  for (size_t k = 0; k < three_a.size(); ++k) EXPECT_TRUE(three_a[k].equal(three_b[k])) << k;
  EXPECT_FALSE(none[0].equal(none[10]));  // epoch 1 draws other numbers
  EXPECT_FALSE(run(0, 10)[0].equal(none[0]));
}

TEST(IterableDataLoader, ErrorsNameTheWorkerAndStreamPosition) {
  for (int64_t workers : {0, 2}) {
    auto stream = std::make_shared<RangeStream>(20, true, /*fail_at=*/13);
    DataLoader loader(stream, {.batch_size = 2, .num_workers = workers});
    const std::string message = thrown_message([&] {
      for (auto& batch : loader) (void)batch;
    });
    // Worker 1 of 2 reads [10, 20): 13 is its sample 3; without workers it is sample 13.
    const std::string expected = workers ? "DataLoader worker 1: the iterable dataset failed on sample 3 of worker 1's stream: record 13 is truncated"
                                         : "DataLoader: the iterable dataset failed on sample 13 of worker 0's stream: record 13 is truncated";
    EXPECT_EQ(message, expected);
  }
}

TEST(IterableDataLoader, TimeoutNamesTheWorker) {
  auto stream = std::make_shared<RangeStream>(8, true, -1, /*sleep=*/200);
  DataLoader loader(stream, {.batch_size = 2, .num_workers = 2, .timeout = 0.02});
  const std::string message = thrown_message([&] {
    for (auto& batch : loader) (void)batch;
  });
  EXPECT_NE(message.find("timed out after 0.02 s waiting for batch 0 (from worker 0)"), std::string::npos) << message;
}

TEST(IterableDataLoader, BreakAndDestructionStopTheWorkers) {
  warm_up_threads();
  const int baseline = stable_thread_count();
  auto stream = std::make_shared<RangeStream>(100000, true, -1, /*sleep=*/1);
  for (bool persistent : {false, true}) {
    auto loader = std::make_unique<DataLoader<int64_t>>(
        stream, DataLoaderOptions{.batch_size = 2, .num_workers = 3, .persistent_workers = persistent});
    for (int epoch = 0; epoch < 2; ++epoch) {
      int k = 0;
      for (auto& batch : *loader) {
        (void)batch;
        if (++k == 4) break;
      }
    }
    auto it = loader->begin();
    loader.reset();
    EXPECT_EQ(count_threads_settled(baseline), baseline);
    EXPECT_LT(stream->produced.load(), 100000);
  }
}

TEST(IterableDataLoader, OptionsThatNeedIndicesAreRejected) {
  auto stream = std::make_shared<RangeStream>(10);
  EXPECT_NE(thrown_message([&] { DataLoader(stream, {.shuffle = true}); }).find("expected unspecified shuffle option"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(stream, {.sampler = std::make_shared<SequentialSampler>(10)}); })
                .find("expected unspecified sampler option"),
            std::string::npos);
}

TEST(IterableDataLoader, SizeIsUnknownWithoutTheDatasetsSize) {
  class Endless : public IterableDataset<int64_t> {
   public:
    std::unique_ptr<SampleIterator<int64_t>> iter(const WorkerInfo&) override {
      return make_iterator<int64_t>([i = int64_t{0}]() mutable -> std::optional<int64_t> { return i++; });
    }
  };
  DataLoader loader(std::make_shared<Endless>(), {.batch_size = 3, .num_workers = 2});
  EXPECT_NE(thrown_message([&] { (void)loader.size(); }).find("does not know its size"), std::string::npos);
  int k = 0;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.numel(), 3);
    if (++k == 10) break;  // an endless stream ends when the loop does
  }
}

}  // namespace iterable_test
