// torch::data's stateful side in libtorch's spelling: a StatefulDataset of
// one's own, ChunkDataset with a ChunkDataReader and ChunkDatasetOptions
// (through make_shared_dataset, .map(Stack<>) and make_data_loader), and the
// distributed samplers, whose indices are those libtorch 1.13 gives
// (recorded from a libtorch program; see the comments at each).
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

#include "compat/compat_test_util.h"

namespace {

using Batches = std::vector<std::vector<size_t>>;

Batches drain(torch::data::samplers::Sampler<>& sampler, size_t batch_size) {
  Batches out;
  while (auto batch = sampler.next(batch_size)) out.push_back(*batch);
  return out;
}

// Counts down: batches of 0..n-1 in order; reset() starts again.
struct CountingDataset : torch::data::StatefulDataset<CountingDataset, std::vector<int64_t>> {
  explicit CountingDataset(int64_t n) : n(n) {}
  std::optional<std::vector<int64_t>> get_batch(size_t batch_size) override {
    if (next >= n) return std::nullopt;
    std::vector<int64_t> batch;
    for (size_t i = 0; i < batch_size && next < n; ++i) batch.push_back(next++);
    return batch;
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(n); }
  void reset() override {
    next = 0;
    ++resets;
  }
  int64_t n, next = 0;
  int resets = 0;
};

// Chunk c holds the integers [start(c), start(c) + sizes[c]).
struct IntChunkReader : torch::data::datasets::ChunkDataReader<int> {
  explicit IntChunkReader(std::vector<size_t> sizes) : sizes(std::move(sizes)) {}
  std::vector<int> read_chunk(size_t chunk_index) override {
    if (chunk_index == fail_at) throw std::runtime_error("cannot read chunk " + std::to_string(chunk_index));
    size_t start = 0;
    for (size_t c = 0; c < chunk_index; ++c) start += sizes[c];
    std::vector<int> out(sizes[chunk_index]);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int>(start + i);
    return out;
  }
  size_t chunk_count() override { return sizes.size(); }
  void reset() override { ++resets; }
  std::vector<size_t> sizes;
  size_t fail_at = static_cast<size_t>(-1);
  int resets = 0;
};

// Chunks of Examples: data [c, i] as a float tensor, target c.
struct ExampleChunkReader : torch::data::datasets::ChunkDataReader<torch::data::Example<>> {
  std::vector<torch::data::Example<>> read_chunk(size_t c) override {
    std::vector<torch::data::Example<>> out;
    for (int64_t i = 0; i < 3; ++i)
      out.emplace_back(torch::tensor({static_cast<float>(c), static_cast<float>(i)}),
                       torch::tensor(static_cast<int64_t>(c)));
    return out;
  }
  size_t chunk_count() override { return 2; }
  void reset() override {}
};

}  // namespace

TEST(TorchDataStateful, StatefulDatasetLoaderRunsEpochs) {
  auto loader = torch::data::make_data_loader(CountingDataset(5), torch::data::DataLoaderOptions().batch_size(2));
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<std::vector<int64_t>> batches;
    for (auto& batch : *loader) batches.push_back(batch);
    EXPECT_EQ(batches, (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}, {4}}));
  }
  // drop_last drops the short batch.
  auto dropping = torch::data::make_data_loader(CountingDataset(5), torch::data::DataLoaderOptions(2).drop_last(true));
  size_t n = 0;
  for (auto& batch : *dropping) n += batch.size();
  EXPECT_EQ(n, 4u);
}

TEST(TorchDataStateful, ChunkDatasetInSamplerOrder) {
  // Sequential samplers, one preloader: the examples in order, batches topped up across chunks.
  using Dataset = torch::data::datasets::ChunkDataset<IntChunkReader, torch::data::samplers::SequentialSampler,
                                                      torch::data::samplers::SequentialSampler>;
  auto dataset = torch::data::datasets::make_shared_dataset<Dataset>(
      IntChunkReader({3, 2, 4}), torch::data::samplers::SequentialSampler(0),
      torch::data::samplers::SequentialSampler(0), torch::data::datasets::ChunkDatasetOptions(1, 2));
  auto loader = torch::data::make_data_loader(dataset, torch::data::DataLoaderOptions(2));
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<std::vector<int>> batches;
    for (auto& batch : *loader) batches.push_back(batch);
    EXPECT_EQ(batches, (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8}}));
  }
  EXPECT_EQ((*dataset).chunk_sampler().index(), 3u);
  EXPECT_FALSE(dataset.size().has_value());
}

TEST(TorchDataStateful, ChunkDatasetShufflesWithManyPreloaders) {
  // Random chunk and example order, three preloaders, two chunks shuffled together, a small cache:
  // every example exactly once per epoch, batches of 4 but the last.
  torch::manual_seed(3);
  using Dataset = torch::data::datasets::ChunkDataset<IntChunkReader>;
  auto dataset = torch::data::datasets::make_shared_dataset<Dataset>(
      IntChunkReader({5, 1, 7, 3, 4}), torch::data::samplers::RandomSampler(0), torch::data::samplers::RandomSampler(0),
      torch::data::datasets::ChunkDatasetOptions(3, 4, /*cache_size=*/4, /*cross_chunk_shuffle_count=*/2));
  auto loader = torch::data::make_data_loader(dataset, torch::data::DataLoaderOptions(4));
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<int> seen;
    size_t short_batches = 0;
    for (auto& batch : *loader) {
      short_batches += batch.size() < 4 ? 1 : 0;
      seen.insert(seen.end(), batch.begin(), batch.end());
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int> all(20);
    for (int i = 0; i < 20; ++i) all[static_cast<size_t>(i)] = i;
    EXPECT_EQ(seen, all);
    EXPECT_EQ(short_batches, 0u);  // 20 examples: five full batches
  }
  EXPECT_EQ(dataset->chunk_sampler().index(), 5u);
}

TEST(TorchDataStateful, ChunkDatasetMapsAndStacks) {
  using Dataset = torch::data::datasets::ChunkDataset<ExampleChunkReader, torch::data::samplers::SequentialSampler,
                                                      torch::data::samplers::SequentialSampler>;
  auto dataset = torch::data::datasets::make_shared_dataset<Dataset>(
                     ExampleChunkReader(), torch::data::samplers::SequentialSampler(0),
                     torch::data::samplers::SequentialSampler(0), torch::data::datasets::ChunkDatasetOptions(1, 4))
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), torch::data::DataLoaderOptions(4));
  std::vector<torch::Tensor> data, targets;
  for (auto& batch : *loader) {
    data.push_back(batch.data);
    targets.push_back(batch.target);
  }
  ASSERT_EQ(data.size(), 2u);
  EXPECT_TRUE(torch::equal(data[0], torch::tensor({{0.f, 0.f}, {0.f, 1.f}, {0.f, 2.f}, {1.f, 0.f}})));
  EXPECT_TRUE(torch::equal(targets[1], torch::tensor({int64_t{1}, int64_t{1}})));
}

TEST(TorchDataStateful, ChunkDatasetErrors) {
  using Dataset = torch::data::datasets::ChunkDataset<IntChunkReader, torch::data::samplers::SequentialSampler,
                                                      torch::data::samplers::SequentialSampler>;
  IntChunkReader failing({2, 2, 2});
  failing.fail_at = 1;
  Dataset dataset(failing, torch::data::samplers::SequentialSampler(0), torch::data::samplers::SequentialSampler(0),
                  torch::data::datasets::ChunkDatasetOptions(1, 2));
  EXPECT_ERROR_WITH(dataset.get_batch(2), "reset()");
  dataset.reset();
  EXPECT_ERROR_WITH(dataset.get_batch(3), "batch size 3", "batch size 2");
  EXPECT_EQ(*dataset.get_batch(2), (std::vector<int>{0, 1}));
  // The reader's exception reaches the caller.
  EXPECT_THROW(
      {
        while (dataset.get_batch(2)) {
        }
      },
      std::runtime_error);
  EXPECT_ERROR_WITH(torch::data::datasets::ChunkDatasetOptions(1, 8, 4), "cache_size 4", "batch_size 8");
  EXPECT_ERROR_WITH(torch::data::datasets::ChunkDatasetOptions(0, 8), "preloader_count");
}

TEST(TorchDataStateful, DistributedSequentialSampler) {
  using torch::data::samplers::DistributedSequentialSampler;
  // 10 indices over 3 replicas: shares of 4 (the last wraps around to 0, 1), or of 3 without duplicates.
  const std::vector<Batches> with = {{{0, 1}, {2, 3}}, {{4, 5}, {6, 7}}, {{8, 9}, {0, 1}}};
  const std::vector<Batches> without = {{{0, 1}, {2}}, {{3, 4}, {5}}, {{6, 7}, {8}}};
  for (size_t rank = 0; rank < 3; ++rank) {
    DistributedSequentialSampler s(10, 3, rank);
    EXPECT_EQ(drain(s, 2), with[rank]) << rank;
    s.reset();
    EXPECT_EQ(drain(s, 2), with[rank]) << rank;
    DistributedSequentialSampler n(10, 3, rank, /*allow_duplicates=*/false);
    EXPECT_EQ(drain(n, 2), without[rank]) << rank;
  }
  EXPECT_ERROR_WITH(DistributedSequentialSampler(10, 3, 3), "rank 3");
}

TEST(TorchDataStateful, DistributedRandomSamplerGivesLibtorchsIndices) {
  using torch::data::samplers::DistributedRandomSampler;
  // What libtorch 1.13's DistributedRandomSampler(10, 3, rank) gives with batches of 3, for
  // epoch 0 and, after set_epoch(5) and reset(), epoch 5 (recorded from a libtorch program).
  const std::vector<Batches> epoch0 = {{{0, 2, 1}, {5}}, {{9, 1, 4}, {7}}, {{6, 0, 3}, {8}}};
  const std::vector<Batches> epoch5 = {{{1, 8, 5}, {2}}, {{0, 6, 7}, {1}}, {{9, 0, 4}, {3}}};
  for (size_t rank = 0; rank < 3; ++rank) {
    DistributedRandomSampler s(10, 3, rank);
    EXPECT_EQ(drain(s, 3), epoch0[rank]) << rank;
    s.set_epoch(5);
    s.reset();
    EXPECT_EQ(s.epoch(), 5u);
    EXPECT_EQ(drain(s, 3), epoch5[rank]) << rank;
  }
  DistributedRandomSampler one(7);
  EXPECT_EQ(drain(one, 4), (Batches{{2, 4, 6, 0}, {5, 1, 3}}));
}
