// The shuffle buffer (seeded, a permutation, the same batches for any
// DataLoader num_workers), batchify/get_batch against index loops of the
// tutorials' definitions, and the bucketing batch sampler's properties.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include <ember/core/error.h>
#include <ember/datasets/data_loader.h>
#include <ember/ops/factories.h>
#include <ember/text/text.h>

#include "textdata_test_util.h"

namespace test_textdata_batching_test {

using namespace ember;
using namespace ember::text;
using textdata_test_util::drain;

// 0, 1, ..., n - 1, ignoring the worker (the shuffle buffer reads it whole).
class Counting : public datasets::IterableDataset<int64_t> {
 public:
  explicit Counting(int64_t n) : n_(n) {}
  std::unique_ptr<datasets::SampleIterator<int64_t>> iter(const datasets::WorkerInfo&) override {
    return datasets::make_iterator<int64_t>([i = int64_t{0}, n = n_]() mutable -> std::optional<int64_t> {
      if (i == n) return std::nullopt;
      return i++;
    });
  }

 private:
  int64_t n_;
};

std::vector<int64_t> sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<int64_t> iota_vec(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t{0});
  return v;
}

TEST(TextShuffleBuffer, IsASeededPermutation) {
  auto source = std::make_shared<Counting>(200);
  auto a = shuffle_buffer(source, {.buffer_size = 16, .seed = 7});
  auto b = shuffle_buffer(source, {.buffer_size = 16, .seed = 7});
  auto c = shuffle_buffer(source, {.buffer_size = 16, .seed = 8});
  const auto first = drain<int64_t>(*a);
  EXPECT_EQ(sorted(first), iota_vec(200));
  EXPECT_NE(first, iota_vec(200));
  EXPECT_EQ(drain<int64_t>(*a), first);  // the same epoch again
  EXPECT_EQ(drain<int64_t>(*b), first);
  EXPECT_NE(drain<int64_t>(*c), first);
  a->set_epoch(1);
  const auto second = drain<int64_t>(*a);
  EXPECT_EQ(sorted(second), iota_vec(200));
  EXPECT_NE(second, first);
}

TEST(TextShuffleBuffer, BufferBoundsHowFarSamplesMove) {
  // With a buffer of k, sample n cannot come out before position n - k + 1
  // (it enters the buffer when the (n - k + 1)-th output is drawn).
  auto d = shuffle_buffer(std::make_shared<Counting>(500), {.buffer_size = 8, .seed = 3});
  const auto out = drain<int64_t>(*d);
  for (size_t pos = 0; pos < out.size(); ++pos) EXPECT_LE(out[pos], static_cast<int64_t>(pos) + 8) << pos;
  // A buffer of 1 keeps the order; one as large as the data draws from all of it.
  EXPECT_EQ(drain<int64_t>(*shuffle_buffer(std::make_shared<Counting>(50), {.buffer_size = 1})), iota_vec(50));
  const auto full = drain<int64_t>(*shuffle_buffer(std::make_shared<Counting>(50), {.buffer_size = 50, .seed = 1}));
  EXPECT_EQ(sorted(full), iota_vec(50));
  EXPECT_NE(full.front(), 0);
}

TEST(TextShuffleBuffer, SameBatchesForAnyNumWorkers) {
  auto d = shuffle_buffer(std::make_shared<Counting>(103), {.buffer_size = 32, .seed = 11, .block = 4});
  auto collate = [](std::vector<int64_t> s) { return s; };
  std::vector<std::vector<int64_t>> reference;
  for (int64_t workers : {0, 1, 2, 3, 4}) {
    datasets::DataLoader loader(d,
                                {.batch_size = 4, .num_workers = workers, .seed = 5}, collate);
    std::vector<std::vector<int64_t>> batches;
    for (auto& batch : loader) batches.push_back(batch);
    if (workers == 0) {
      reference = batches;
      std::vector<int64_t> flat;
      for (const auto& b : batches) flat.insert(flat.end(), b.begin(), b.end());
      EXPECT_EQ(sorted(flat), iota_vec(103));
      EXPECT_EQ(batches.size(), 26u);
    } else {
      EXPECT_EQ(batches, reference) << workers << " workers";
    }
  }
}

TEST(TextShuffleBuffer, ShufflesATextDatasetTheSameForAnyNumWorkers) {
  // The committed EnWik9 excerpt, cleaned: sharded text datasets under a
  // DataLoader give every record once, and shuffled ones the same batches.
  auto source = std::make_shared<EnWik9>(textdata_test_util::fixture_dir() / "enwik9", EnWik9Options{.clean = true});
  const auto records = drain<std::string>(*source);
  auto collate = [](std::vector<std::string> s) { return s; };
  for (int64_t workers : {0, 2, 3}) {
    datasets::DataLoader plain(source, {.batch_size = 1, .num_workers = workers}, collate);
    std::vector<std::string> got;
    for (auto& batch : plain) got.insert(got.end(), batch.begin(), batch.end());
    std::sort(got.begin(), got.end());
    auto expected = records;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(got, expected) << workers << " workers";
  }
  auto shuffled = shuffle_buffer(source, {.buffer_size = 4, .seed = 2, .block = 2});
  std::vector<std::vector<std::string>> reference;
  for (int64_t workers : {0, 1, 2, 3}) {
    datasets::DataLoader loader(shuffled, {.batch_size = 2, .num_workers = workers}, collate);
    std::vector<std::vector<std::string>> batches;
    for (auto& batch : loader) batches.push_back(batch);
    if (workers == 0) {
      reference = batches;
      std::vector<std::string> flat;
      for (const auto& b : batches) flat.insert(flat.end(), b.begin(), b.end());
      EXPECT_NE(flat, records);
      std::sort(flat.begin(), flat.end());
      auto expected = records;
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(flat, expected);
    } else {
      EXPECT_EQ(batches, reference) << workers << " workers";
    }
  }
}

TEST(TextShuffleBuffer, RejectsBadOptions) {
  auto source = std::make_shared<Counting>(3);
  EXPECT_THROW(shuffle_buffer(source, {.buffer_size = 0}), ember::Error);
  EXPECT_THROW(shuffle_buffer(source, {.block = 0}), ember::Error);
}

TEST(TextLmBatching, BatchifyMakesColumnStreams) {
  const Tensor ids = arange(26, TensorOptions().dtype(kLong));
  const Tensor b = batchify(ids, 4);  // T = 6, the last 2 ids dropped
  ASSERT_EQ(b.dim(), 2);
  EXPECT_EQ(b.size(0), 6);
  EXPECT_EQ(b.size(1), 4);
  EXPECT_TRUE(b.is_contiguous());
  const int64_t* p = b.data_ptr<int64_t>();
  for (int64_t t = 0; t < 6; ++t) {
    for (int64_t col = 0; col < 4; ++col) EXPECT_EQ(p[t * 4 + col], col * 6 + t) << t << "," << col;
  }
  EXPECT_EQ(batchify(arange(3, TensorOptions().dtype(kLong)), 4).size(0), 0);
  EXPECT_THROW(batchify(ids, 0), ember::Error);
  EXPECT_THROW(batchify(ids.reshape({2, 13}), 2), ember::Error);
}

TEST(TextLmBatching, GetBatchWindows) {
  const Tensor source = batchify(arange(30, TensorOptions().dtype(kLong)), 3);  // [10, 3]
  for (int64_t i : {0, 4, 7, 8}) {
    auto [data, target] = get_batch(source, i, 3);
    const int64_t seq_len = std::min<int64_t>(3, 10 - 1 - i);
    ASSERT_EQ(data.size(0), seq_len);
    ASSERT_EQ(data.size(1), 3);
    ASSERT_EQ(target.dim(), 1);
    ASSERT_EQ(target.size(0), seq_len * 3);
    const Tensor d = data.contiguous();
    const int64_t* dp = d.data_ptr<int64_t>();
    const int64_t* tp = target.contiguous().data_ptr<int64_t>();
    for (int64_t t = 0; t < seq_len; ++t) {
      for (int64_t col = 0; col < 3; ++col) {
        EXPECT_EQ(dp[t * 3 + col], col * 10 + i + t);
        EXPECT_EQ(tp[t * 3 + col], col * 10 + i + t + 1);
      }
    }
  }
  EXPECT_THROW(get_batch(source, 9, 3), ember::Error);
  EXPECT_THROW(get_batch(source, -1, 3), ember::Error);
  EXPECT_THROW(get_batch(source, 0, 0), ember::Error);
  EXPECT_THROW(get_batch(arange(5, TensorOptions().dtype(kLong)), 0, 2), ember::Error);
}

TEST(TextLmBatching, BucketBatchSamplerGroupsSimilarLengths) {
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < 103; ++i) lengths.push_back((i * 37) % 50);
  BucketBatchSampler sampler(lengths, {.batch_size = 4, .bucket_multiplier = 5, .seed = 9});
  const auto batches = sampler.batches();
  EXPECT_EQ(static_cast<int64_t>(batches.size()), sampler.size());
  std::vector<int64_t> all;
  for (const auto& b : batches) {
    EXPECT_LE(b.size(), 4u);
    EXPECT_TRUE(std::is_sorted(b.begin(), b.end(), [&](int64_t x, int64_t y) { return lengths[x] < lengths[y]; }));
    all.insert(all.end(), b.begin(), b.end());
  }
  EXPECT_EQ(sorted(all), iota_vec(103));
  // Within a bucket of 20 sorted lengths, a batch spans far less than the whole range.
  double spread = 0;
  for (const auto& b : batches) spread += static_cast<double>(lengths[b.back()] - lengths[b.front()]);
  EXPECT_LT(spread / static_cast<double>(batches.size()), 15.0);
  // Seeded: a twin repeats it; the next pass differs.
  BucketBatchSampler twin(lengths, {.batch_size = 4, .bucket_multiplier = 5, .seed = 9});
  EXPECT_EQ(twin.batches(), batches);
  EXPECT_NE(sampler.batches(), batches);
  sampler.set_epoch(0);
  EXPECT_EQ(sampler.batches(), batches);
  BucketBatchSampler dropping(lengths, {.batch_size = 4, .bucket_multiplier = 5, .drop_last = true, .seed = 9});
  const auto kept = dropping.batches();
  EXPECT_EQ(static_cast<int64_t>(kept.size()), dropping.size());
  for (const auto& b : kept) EXPECT_EQ(b.size(), 4u);
  EXPECT_THROW(BucketBatchSampler(lengths, {.batch_size = 0}), ember::Error);
}

}  // namespace test_textdata_batching_test
