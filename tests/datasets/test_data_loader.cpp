// DataLoader over map-style datasets: batching, order, reproducibility across
// num_workers, prefetch bounds, persistent workers, errors, timeouts and
// shutdown (break, destruction, exceptions) without hangs or leaked threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include <ember/datasets/concat_dataset.h>
#include <ember/datasets/data_loader.h>
#include <ember/datasets/map_dataset.h>
#include <ember/datasets/progress.h>
#include <ember/datasets/subset.h>
#include <ember/datasets/tensor_dataset.h>
#include <ember/ember.h>

#include "loader_test_util.h"

using namespace ember;
using namespace ember::datasets;
using namespace ember::testing;

namespace data_loader_test {

// Samples draw random numbers from default_generator(), as random transforms do.
class NoisyDataset : public Dataset<std::pair<Tensor, int64_t>> {
 public:
  explicit NoisyDataset(int64_t n) : n_(n) {}
  std::pair<Tensor, int64_t> get(int64_t index) override {
    Tensor x = randn({2, 3}) + static_cast<double>(index);
    return {x, index * 1000 + randint_scalar(0, 1000)};
  }
  int64_t size() const override { return n_; }

 private:
  int64_t n_;
};

std::vector<std::vector<int64_t>> batches_of(DataLoader<int64_t>& loader) {
  std::vector<std::vector<int64_t>> out;
  for (auto& batch : loader) out.push_back(to_vector(batch));
  return out;
}

TEST(DataLoader, SequentialBatchesWithLastPartial) {
  auto dataset = std::make_shared<CountingDataset>(10);
  DataLoader loader(dataset, {.batch_size = 4});
  static_assert(std::is_same_v<decltype(loader), DataLoader<int64_t, Tensor>>);
  EXPECT_EQ(loader.size(), 3);
  EXPECT_EQ(batches_of(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));

  DataLoader dropping(dataset, {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(dropping.size(), 2);
  EXPECT_EQ(batches_of(dropping), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(DataLoader, EmptyDatasetGivesNoBatches) {
  auto empty = std::make_shared<CountingDataset>(0);
  for (int64_t workers : {0, 2}) {
    DataLoader loader(empty, {.batch_size = 4, .num_workers = workers});
    EXPECT_EQ(loader.size(), 0);
    EXPECT_TRUE(batches_of(loader).empty());
    EXPECT_TRUE(loader.begin() == loader.end());
  }
}

TEST(DataLoader, OverSubsetsAndConcatenations) {
  auto base = std::make_shared<CountingDataset>(10);
  Generator g(0);
  auto [train, test] = [&] {
    auto parts = random_split(base, {7, 3}, &g);
    return std::pair{parts[0], parts[1]};
  }();
  DataLoader train_loader(train, {.batch_size = 7, .num_workers = 2});
  DataLoader test_loader(test, {.batch_size = 7});
  std::vector<int64_t> all = to_vector(*train_loader.begin());
  for (int64_t v : to_vector(*test_loader.begin())) all.push_back(v);
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected);

  auto both = std::make_shared<ConcatDataset<int64_t>>(std::vector<DatasetPtr<int64_t>>{train, test});
  DataLoader concat_loader(both, {.batch_size = 10, .num_workers = 1});
  std::vector<int64_t> concatenated = to_vector(*concat_loader.begin());
  std::sort(concatenated.begin(), concatenated.end());
  EXPECT_EQ(concatenated, expected);
}

TEST(DataLoader, WorkersDeliverInOrderWhateverFinishesFirst) {
  // Earlier samples are slower, so later batches finish first.
  auto dataset = std::make_shared<CountingDataset>(24, [](int64_t i) { sleep_ms(static_cast<int>((24 - i) % 5)); });
  for (int64_t workers : {1, 2, 4}) {
    DataLoader loader(dataset, {.batch_size = 3, .num_workers = workers});
    std::vector<int64_t> seen;
    for (auto& batch : loader)
      for (int64_t v : to_vector(batch)) seen.push_back(v);
    std::vector<int64_t> expected(24);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(seen, expected) << workers << " workers";
  }
}

TEST(DataLoader, ShuffledEpochsArePermutationsAndDiffer) {
  auto dataset = std::make_shared<CountingDataset>(50);
  DataLoader loader(dataset, {.batch_size = 7, .shuffle = true, .num_workers = 2, .seed = 3});
  std::vector<std::vector<int64_t>> epochs;
  for (int e = 0; e < 3; ++e) {
    std::vector<int64_t> order;
    for (auto& batch : loader)
      for (int64_t v : to_vector(batch)) order.push_back(v);
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> expected(50);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(sorted, expected);
    epochs.push_back(order);
  }
  EXPECT_NE(epochs[0], epochs[1]);
  EXPECT_NE(epochs[1], epochs[2]);
  EXPECT_EQ(loader.epoch(), 3);

  // set_epoch resumes: a new loader with the same seed gives epoch 1's order.
  DataLoader again(dataset, {.batch_size = 7, .shuffle = true, .seed = 3});
  again.set_epoch(1);
  std::vector<int64_t> order;
  for (auto& batch : again)
    for (int64_t v : to_vector(batch)) order.push_back(v);
  EXPECT_EQ(order, epochs[1]);
}

// The core reproducibility promise: same batches, bit for bit, for 0, 1, 2 and
// 4 workers, including random draws inside get() and inside a mapped transform.
TEST(DataLoader, BatchesAreBitIdenticalForAnyNumberOfWorkers) {
  auto noisy = std::make_shared<NoisyDataset>(37);
  auto augmented = map(noisy, [](std::pair<Tensor, int64_t> s) {
    if (uniform_scalar(0, 1) < 0.5) s.first = s.first.flip({1});
    return std::pair{s.first * uniform_scalar(0.5, 1.5), s.second};
  });
  auto run = [&](int64_t workers) {
    DataLoader loader(augmented, {.batch_size = 5, .shuffle = true, .num_workers = workers, .seed = 2024});
    std::vector<std::pair<Tensor, Tensor>> all;
    for (int epoch = 0; epoch < 2; ++epoch)
      for (auto& batch : loader) all.push_back(batch);
    return all;
  };
  const auto reference = run(0);
  ASSERT_EQ(reference.size(), 16u);  // 8 batches x 2 epochs
  for (int64_t workers : {1, 2, 4}) {
    const auto other = run(workers);
    ASSERT_EQ(other.size(), reference.size());
    for (size_t k = 0; k < reference.size(); ++k) {
      EXPECT_TRUE(other[k].first.equal(reference[k].first)) << workers << " workers, batch " << k;
      EXPECT_TRUE(other[k].second.equal(reference[k].second)) << workers << " workers, batch " << k;
    }
  }
  // Epochs differ from each other, and another seed gives other numbers.
  EXPECT_FALSE(reference[0].first.equal(reference[8].first));
  DataLoader other_seed(augmented, {.batch_size = 5, .shuffle = true, .seed = 2025});
  EXPECT_FALSE((*other_seed.begin()).first.equal(reference[0].first));
}

TEST(DataLoader, SeedDefaultsToADrawFromTheDefaultGenerator) {
  auto dataset = std::make_shared<CountingDataset>(20);
  manual_seed(11);
  DataLoader a(dataset, {.batch_size = 20, .shuffle = true});
  manual_seed(11);
  DataLoader b(dataset, {.batch_size = 20, .shuffle = true});
  EXPECT_EQ(a.seed(), b.seed());
  EXPECT_EQ(batches_of(a), batches_of(b));
  manual_seed(12);
  DataLoader c(dataset, {.batch_size = 20, .shuffle = true});
  EXPECT_NE(c.seed(), a.seed());
}

TEST(DataLoader, TensorDatasetBatches) {
  Tensor x = arange(12, kFloat32).view({6, 2});
  Tensor y = arange(6);
  DataLoader loader(std::make_shared<TensorDataset>(std::vector<Tensor>{x, y}), {.batch_size = 4, .num_workers = 2});
  std::vector<std::vector<Tensor>> batches;
  for (auto& batch : loader) batches.push_back(batch);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_TRUE(batches[0][0].equal(x.narrow(0, 0, 4)));
  EXPECT_TRUE(batches[1][1].equal(y.narrow(0, 4, 2)));
}

TEST(DataLoader, CustomCollateSetsTheBatchType) {
  auto dataset = std::make_shared<CountingDataset>(10);
  DataLoader loader(dataset, {.batch_size = 4, .num_workers = 2}, [](std::vector<int64_t> samples) {
    return std::accumulate(samples.begin(), samples.end(), int64_t{0});
  });
  static_assert(std::is_same_v<decltype(loader), DataLoader<int64_t, int64_t>>);
  std::vector<int64_t> sums;
  for (int64_t sum : loader) sums.push_back(sum);
  EXPECT_EQ(sums, (std::vector<int64_t>{6, 22, 17}));
}

TEST(DataLoader, SamplerAndBatchSamplerOptions) {
  auto dataset = std::make_shared<CountingDataset>(10);
  DataLoader with_sampler(dataset, {.batch_size = 2,
                                    .sampler = std::make_shared<SubsetRandomSampler>(std::vector<int64_t>{9, 8, 1})});
  std::multiset<int64_t> seen;
  for (auto& batch : with_sampler)
    for (int64_t v : to_vector(batch)) seen.insert(v);
  EXPECT_EQ(seen, (std::multiset<int64_t>{1, 8, 9}));

  auto batches = std::make_shared<BatchSampler>(std::make_shared<SequentialSampler>(10), 6, false);
  DataLoader with_batch_sampler(dataset, {.batch_sampler = batches, .num_workers = 1});
  EXPECT_EQ(with_batch_sampler.size(), 2);
  EXPECT_EQ(batches_of(with_batch_sampler), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9}}));
}

TEST(DataLoader, OptionErrorsFollowTorch) {
  auto dataset = std::make_shared<CountingDataset>(10);
  auto sampler = std::make_shared<SequentialSampler>(10);
  auto batch_sampler = std::make_shared<BatchSampler>(sampler, 2, false);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.num_workers = -1}); }).find("num_workers option should be non-negative"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.num_workers = 1, .timeout = -1}); })
                .find("timeout option should be non-negative"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.prefetch_factor = 4}); })
                .find("prefetch_factor option could only be specified with num_workers > 0"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.num_workers = 1, .prefetch_factor = 0}); })
                .find("prefetch_factor option should be positive"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.persistent_workers = true}); })
                .find("persistent_workers option needs num_workers > 0"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.shuffle = true, .sampler = sampler}); })
                .find("sampler option is mutually exclusive with shuffle"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.batch_size = 2, .batch_sampler = batch_sampler}); })
                .find("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.batch_sampler = batch_sampler, .drop_last = true}); })
                .find("mutually exclusive"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(dataset, {.batch_size = 0}); }).find("batch_size should be a positive integer"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { DataLoader(DatasetPtr<int64_t>(nullptr)); }).find("the dataset is null"), std::string::npos);
}

TEST(DataLoader, PinMemoryIsRefusedWithoutCuda) {
  auto dataset = std::make_shared<CountingDataset>(4);
  const std::string message = thrown_message([&] { DataLoader(dataset, {.pin_memory = true}); });
  EXPECT_NE(message.find("pin_memory=true cannot be honoured: Ember has no CUDA backend yet"), std::string::npos)
      << message;
}

TEST(DataLoader, WorkerExceptionNamesTheSampleAndNestsTheOriginal) {
  for (int64_t workers : {0, 2}) {
    auto dataset = std::make_shared<CountingDataset>(20, [](int64_t i) {
      if (i == 13) throw std::out_of_range("sample 13 is corrupt");
    });
    DataLoader loader(dataset, {.batch_size = 4, .num_workers = workers});
    int delivered = 0;
    std::string message;
    bool nested_is_out_of_range = false;
    try {
      for (auto& batch : loader) {
        (void)batch;
        ++delivered;
      }
    } catch (const Error& e) {
      message = e.what();
      try {
        std::rethrow_if_nested(e);
      } catch (const std::out_of_range&) {
        nested_is_out_of_range = true;
      }
    }
    EXPECT_EQ(delivered, 3) << workers;  // batches 0, 1, 2 come before the failing batch 3
    const std::string where = workers ? "DataLoader worker " : "DataLoader: ";
    EXPECT_NE(message.find(where), std::string::npos) << message;
    EXPECT_NE(message.find("dataset.get(13) failed (sample 1 of batch 3): sample 13 is corrupt"), std::string::npos)
        << message;
    EXPECT_TRUE(nested_is_out_of_range);
  }
}

TEST(DataLoader, CollateAndWorkerInitErrors) {
  auto dataset = std::make_shared<CountingDataset>(8);
  DataLoader bad_collate(dataset, {.batch_size = 4, .num_workers = 2}, [](std::vector<int64_t> s) -> int64_t {
    if (s.front() == 4) throw Error("no fours");
    return s.front();
  });
  const std::string collate_message = thrown_message([&] {
    for (auto v : bad_collate) (void)v;
  });
  EXPECT_NE(collate_message.find("collating batch 1 (dataset indices [4, 5, 6, 7]) failed: no fours"),
            std::string::npos)
      << collate_message;

  DataLoader bad_init(dataset, {.batch_size = 4,
                                .num_workers = 2,
                                .worker_init_fn = [](int64_t) { throw std::runtime_error("cannot open the shard"); }});
  const std::string init_message = thrown_message([&] {
    for (auto& v : bad_init) (void)v;
  });
  EXPECT_NE(init_message.find("worker_init_fn failed: cannot open the shard"), std::string::npos) << init_message;
}

TEST(DataLoader, TimeoutNamesTheBatch) {
  // Sample 5 takes 1.5 s, the others no time: batch 2 times out, and only it
  // (unless the machine stalls the fast batches for half a second).
  auto dataset = std::make_shared<CountingDataset>(8, [](int64_t i) {
    if (i == 5) sleep_ms(1500);
  });
  DataLoader loader(dataset, {.batch_size = 2, .num_workers = 2, .timeout = 0.5});
  int delivered = 0;
  const std::string message = thrown_message([&] {
    for (auto& batch : loader) {
      (void)batch;
      ++delivered;
    }
  });
  EXPECT_EQ(delivered, 2);
  EXPECT_NE(message.find("DataLoader: timed out after 0.5 s waiting for batch 2 (dataset indices [4, 5])"),
            std::string::npos)
      << message;
  EXPECT_EQ(dataset->active.load(), 0);  // shutdown waited for the slow sample
}

TEST(DataLoader, PrefetchKeepsAtMostFactorTimesWorkersBatchesInFlight) {
  std::atomic<int64_t> consumed{0};
  std::atomic<int64_t> worst{0};
  auto dataset = std::make_shared<CountingDataset>(200);
  for (int64_t prefetch : {1, 3}) {
    consumed = 0;
    worst = 0;
    DataLoader loader(dataset, {.batch_size = 2, .num_workers = 2, .prefetch_factor = prefetch});
    const int64_t before = dataset->calls.load();
    for (auto& batch : loader) {
      (void)batch;
      sleep_ms(1);  // a slow consumer: the workers run ahead as far as allowed
      ++consumed;
      const int64_t fetched_batches = (dataset->calls.load() - before + 1) / 2;
      worst = std::max<int64_t>(worst.load(), fetched_batches - consumed.load());
    }
    EXPECT_LE(worst.load(), prefetch * 2) << "prefetch_factor " << prefetch;
  }
}

TEST(DataLoader, WorkersShareTheCallersIntraOpThreads) {
  // Note [Threads in workers]: N workers get max(1, T / N) threads each, T
  // being the caller's count, which stays as it was.
  const int caller = get_num_threads();
  for (int64_t workers : {1, 2, 3}) {
    std::mutex mutex;
    std::set<int> thread_counts;
    std::set<int64_t> ids;
    std::set<int64_t> num_workers;
    auto dataset = std::make_shared<CountingDataset>(40, [&](int64_t) {
      std::optional<WorkerInfo> info = get_worker_info();
      std::lock_guard<std::mutex> lock(mutex);
      thread_counts.insert(get_num_threads());
      ids.insert(info ? info->id : -1);
      num_workers.insert(info ? info->num_workers : -1);
    });
    DataLoader loader(dataset, {.batch_size = 1, .num_workers = workers});
    for (auto& batch : loader) {
      (void)batch;
      sleep_ms(1);
    }
    EXPECT_EQ(thread_counts, std::set<int>{std::max<int>(1, caller / static_cast<int>(workers))}) << workers;
    EXPECT_EQ(num_workers, std::set<int64_t>{workers});
    for (int64_t id : ids) EXPECT_TRUE(id >= 0 && id < workers) << id;
    EXPECT_EQ(get_num_threads(), caller);  // the caller's setting is untouched
    EXPECT_FALSE(get_worker_info().has_value());
  }

  // A caller on one thread gives its workers one each.
  std::set<int> counts;
  std::mutex mutex;
  auto dataset = std::make_shared<CountingDataset>(8, [&](int64_t) {
    std::lock_guard<std::mutex> lock(mutex);
    counts.insert(get_num_threads());
  });
  set_num_threads(1);
  {
    DataLoader loader(dataset, {.batch_size = 1, .num_workers = 1});
    for (auto& batch : loader) (void)batch;
  }
  set_num_threads(caller);
  EXPECT_EQ(counts, std::set<int>{1});

  // Without workers, get() runs in the caller's thread: no WorkerInfo.
  std::set<bool> has_info;
  auto plain = std::make_shared<CountingDataset>(8, [&](int64_t) { has_info.insert(get_worker_info().has_value()); });
  DataLoader inline_loader(plain, {.batch_size = 4});
  for (auto& batch : inline_loader) (void)batch;
  EXPECT_EQ(has_info, std::set<bool>{false});
}

TEST(DataLoader, WorkersDoNotOversubscribe) {
  // A worker left at the process's thread count would start an OpenMP team of
  // its own for each parallel op: N workers on C cores would run N * C
  // threads. Shared out, they run at most max(C, N).
  warm_up_threads();
  const int caller = get_num_threads();
  for (int64_t workers : {1, 2, 3}) {
    const int baseline = stable_thread_count();
    std::atomic<int> most{0};
    auto dataset = std::make_shared<CountingDataset>(8, [&](int64_t) {
      (void)(randn({1 << 20}).exp() + 1).sum();  // large enough to run in parallel
      const int n = count_threads();
      int seen = most.load();
      while (n > seen && !most.compare_exchange_weak(seen, n)) {
      }
    });
    {
      DataLoader loader(dataset, {.batch_size = 1, .num_workers = workers, .persistent_workers = true});
      for (auto& batch : loader) (void)batch;
    }
    EXPECT_LE(most.load(), baseline + std::max<int>(caller, static_cast<int>(workers))) << workers << " workers";
  }
}

TEST(DataLoader, ProgressBarOverALoader) {
  auto dataset = std::make_shared<CountingDataset>(10);
  DataLoader loader(dataset, {.batch_size = 4, .num_workers = 2});
  std::ostringstream out;
  auto pb = progress(loader, {.desc = "epoch 0", .out = &out});
  int64_t seen = 0;
  for (auto& batch : pb) {
    seen += batch.numel();
    pb.bar().set_postfix({{"seen", seen}});
  }
  EXPECT_EQ(seen, 10);
  const std::string s = out.str();
  EXPECT_EQ(s.rfind("epoch 0: 100% 3/3 [", 0), 0u) << s;  // plain mode: one final line
  EXPECT_NE(s.find("seen=10]"), std::string::npos) << s;
}

TEST(DataLoader, PersistentWorkersSurviveEpochs) {
  for (bool persistent : {true, false}) {
    std::atomic<int> inits{0};
    std::mutex mutex;
    std::vector<std::set<int64_t>> threads_per_epoch(3);
    int epoch = 0;
    auto dataset = std::make_shared<CountingDataset>(12, [&](int64_t) {
      std::lock_guard<std::mutex> lock(mutex);
      threads_per_epoch[static_cast<size_t>(epoch)].insert(thread_serial());
    });
    {
      DataLoader loader(dataset, {.batch_size = 2,
                                  .num_workers = 2,
                                  .persistent_workers = persistent,
                                  .worker_init_fn = [&](int64_t) { ++inits; }});
      for (epoch = 0; epoch < 3; ++epoch)
        for (auto& batch : loader) (void)batch;
    }  // joined: every worker thread has run its worker_init_fn
    if (persistent) {
      EXPECT_EQ(inits.load(), 2);
      std::set<int64_t> all;
      for (auto& s : threads_per_epoch) all.insert(s.begin(), s.end());
      EXPECT_LE(all.size(), 2u);  // the same two threads every epoch
    } else {
      EXPECT_EQ(inits.load(), 6);
      for (int a = 0; a < 3; ++a)
        for (int b = a + 1; b < 3; ++b)
          for (int64_t t : threads_per_epoch[static_cast<size_t>(a)])
            EXPECT_EQ(threads_per_epoch[static_cast<size_t>(b)].count(t), 0u);  // new threads each epoch
    }
  }
}

// ---- shutdown: no hang, no thread left behind ----

class DataLoaderShutdown : public ::testing::TestWithParam<bool> {};  // persistent workers or not

TEST_P(DataLoaderShutdown, BreakingOutOfTheLoop) {
  warm_up_threads();
  const int baseline = stable_thread_count();
  auto dataset = std::make_shared<CountingDataset>(1000, [](int64_t) { sleep_ms(1); });
  {
    DataLoader loader(dataset, {.batch_size = 4, .num_workers = 3, .persistent_workers = GetParam()});
    for (int epoch = 0; epoch < 2; ++epoch) {
      int k = 0;
      for (auto& batch : loader) {
        (void)batch;
        if (++k == 3) break;
      }
      // Leaving the loop destroyed the iterator: no get() runs any more.
      EXPECT_EQ(dataset->active.load(), 0);
      EXPECT_LT(dataset->calls.load(), 1000);
    }
    if (!GetParam()) {
      EXPECT_EQ(count_threads_settled(baseline), baseline);
    }
  }
  EXPECT_EQ(count_threads_settled(baseline), baseline);
}

TEST_P(DataLoaderShutdown, DestroyingTheLoaderMidEpoch) {
  warm_up_threads();
  const int baseline = stable_thread_count();
  auto dataset = std::make_shared<CountingDataset>(1000, [](int64_t) { sleep_ms(1); });
  auto loader = std::make_unique<DataLoader<int64_t>>(
      dataset, DataLoaderOptions{.batch_size = 4, .num_workers = 2, .persistent_workers = GetParam()});
  auto it = loader->begin();
  ++it;
  EXPECT_EQ(to_vector(*it), (std::vector<int64_t>{4, 5, 6, 7}));
  loader.reset();  // stops the epoch and joins the workers while the iterator lives
  EXPECT_EQ(dataset->active.load(), 0);
  EXPECT_EQ(count_threads_settled(baseline), baseline);
  EXPECT_NE(thrown_message([&] { ++it; }).find("this epoch was stopped"), std::string::npos);
}

TEST_P(DataLoaderShutdown, ExceptionEscapingTheLoopBody) {
  warm_up_threads();
  const int baseline = stable_thread_count();
  auto dataset = std::make_shared<CountingDataset>(1000, [](int64_t) { sleep_ms(1); });
  DataLoader loader(dataset, {.batch_size = 4, .num_workers = 2, .persistent_workers = GetParam()});
  EXPECT_THROW(
      {
        for (auto& batch : loader) {
          (void)batch;
          throw std::runtime_error("training step failed");
        }
      },
      std::runtime_error);
  EXPECT_EQ(dataset->active.load(), 0);
  if (!GetParam()) {
    EXPECT_EQ(count_threads_settled(baseline), baseline);
  }
  // The loader still works for the next epoch.
  int64_t n = 0;
  for (auto& batch : loader) n += batch.numel();
  EXPECT_EQ(n, 1000);
}

TEST_P(DataLoaderShutdown, NewEpochStopsTheUnfinishedOne) {
  auto dataset = std::make_shared<CountingDataset>(100);
  DataLoader loader(dataset, {.batch_size = 4, .num_workers = 2, .persistent_workers = GetParam()});
  auto first = loader.begin();
  auto second = loader.begin();
  EXPECT_EQ(to_vector(*second), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_NE(thrown_message([&] { ++first; }).find("this epoch was stopped"), std::string::npos);
  int64_t batches = 1;
  for (++second; second != loader.end(); ++second) ++batches;
  EXPECT_EQ(batches, 25);
}

INSTANTIATE_TEST_SUITE_P(PersistentOrNot, DataLoaderShutdown, ::testing::Bool());

TEST(DataLoader, ManyShortEpochsDoNotLeakThreads) {
  warm_up_threads();
  const int baseline = stable_thread_count();
  auto dataset = std::make_shared<CountingDataset>(16);
  DataLoader loader(dataset, {.batch_size = 4, .num_workers = 4});
  for (int epoch = 0; epoch < 50; ++epoch) {
    int k = 0;
    for (auto& batch : loader) {
      (void)batch;
      if (epoch % 2 && ++k == 2) break;
    }
  }
  EXPECT_EQ(count_threads_settled(baseline), baseline);
}

}  // namespace data_loader_test
