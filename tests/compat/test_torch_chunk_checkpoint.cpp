// ChunkDataset checkpoints in libtorch's spelling: torch::save(dataset, path) /
// torch::load, `archive << dataset` / `archive >> dataset` save and restore the
// chunk sampler, and the first epoch after a load resumes at the saved chunk
// (Note [ChunkDataset checkpoints] in data/chunk.h).
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include "compat/compat_test_util.h"

namespace {

namespace data = torch::data;
namespace samplers = torch::data::samplers;

// n chunks of `per_chunk` integers: chunk c holds c * per_chunk, ... .
struct CountingChunkReader : data::datasets::ChunkDataReader<int> {
  CountingChunkReader(size_t n, size_t per_chunk) : n(n), per_chunk(per_chunk) {}
  std::vector<int> read_chunk(size_t c) override {
    std::vector<int> out(per_chunk);
    for (size_t i = 0; i < per_chunk; ++i) out[i] = static_cast<int>(c * per_chunk + i);
    return out;
  }
  size_t chunk_count() override { return n; }
  void reset() override {}
  size_t n, per_chunk;
};

template <class Loader>
std::vector<std::vector<int>> epoch(Loader& loader) {
  std::vector<std::vector<int>> batches;
  for (auto& batch : loader) batches.push_back(batch);
  return batches;
}

using SequentialChunks = data::datasets::ChunkDataset<CountingChunkReader, samplers::SequentialSampler,
                                                      samplers::SequentialSampler>;

TEST(TorchChunkCheckpoint, SavedSequentialEpochResumesFromAFile) {
  SequentialChunks saved(CountingChunkReader(5, 2), samplers::SequentialSampler(0), samplers::SequentialSampler(0),
                         data::datasets::ChunkDatasetOptions(1, 2));
  // Mid-epoch: the preloaders have taken chunks 0 and 1.
  saved.chunk_sampler().reset(5);
  ASSERT_TRUE(saved.chunk_sampler().next(2).has_value());
  const std::string path = (std::filesystem::temp_directory_path() / "ember_chunk_checkpoint.pt").string();
  torch::save(saved, path);

  // SequentialSampler's checkpoint holds only its index (libtorch's keys), so
  // its size comes from the constructor, as with libtorch.
  auto restored = data::datasets::make_shared_dataset<SequentialChunks>(
      CountingChunkReader(5, 2), samplers::SequentialSampler(5), samplers::SequentialSampler(0),
      data::datasets::ChunkDatasetOptions(1, 2));
  torch::load(*restored, path);
  std::filesystem::remove(path);
  EXPECT_EQ((*restored).chunk_sampler().index(), 2u);
  auto loader = data::make_data_loader(restored, data::DataLoaderOptions(2));
  // The loaded epoch: chunks 2, 3, 4 only; the next epoch starts again at chunk 0.
  EXPECT_EQ(epoch(*loader), (std::vector<std::vector<int>>{{4, 5}, {6, 7}, {8, 9}}));
  EXPECT_EQ(epoch(*loader), (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}}));
}

TEST(TorchChunkCheckpoint, RandomChunkOrderRestoredThroughArchives) {
  using RandomChunks =
      data::datasets::ChunkDataset<CountingChunkReader, samplers::RandomSampler, samplers::SequentialSampler>;
  torch::manual_seed(7);
  RandomChunks saved(CountingChunkReader(6, 1), samplers::RandomSampler(0), samplers::SequentialSampler(0),
                     data::datasets::ChunkDatasetOptions(1, 1));
  saved.chunk_sampler().reset(6);
  ASSERT_TRUE(saved.chunk_sampler().next(2).has_value());
  torch::serialize::OutputArchive out;
  out << saved;
  std::stringstream stream;
  out.save_to(stream);
  // What the saved dataset's sampler would have drawn for the rest of its epoch.
  const std::vector<size_t> rest = *saved.chunk_sampler().next(4);

  auto restored = data::datasets::make_shared_dataset<RandomChunks>(
      CountingChunkReader(6, 1), samplers::RandomSampler(0), samplers::SequentialSampler(0),
      data::datasets::ChunkDatasetOptions(1, 1));
  torch::serialize::InputArchive in;
  in.load_from(stream);
  in >> *restored;
  auto loader = data::make_data_loader(restored, data::DataLoaderOptions(1));
  std::vector<std::vector<int>> expected;
  for (size_t c : rest) expected.push_back({static_cast<int>(c)});
  EXPECT_EQ(epoch(*loader), expected);
  // A new epoch after the resumed one: all six chunks, once each.
  std::vector<int> all;
  for (const auto& batch : epoch(*loader)) all.insert(all.end(), batch.begin(), batch.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

// A stateful dataset of one's own without save/load.
struct PlainStateful : data::StatefulDataset<PlainStateful, std::vector<int>> {
  std::optional<std::vector<int>> get_batch(size_t) override { return std::nullopt; }
  std::optional<size_t> size() const override { return std::nullopt; }
  void reset() override {}
};

TEST(TorchChunkCheckpoint, Errors) {
  torch::serialize::OutputArchive out;
  PlainStateful plain;
  const std::string msg = ember_test::error_of([&] { out << plain; });
  EXPECT_NE(msg.find("does not override save"), std::string::npos) << msg;
  // An archive without the sampler's keys names the missing one.
  torch::serialize::OutputArchive empty;
  std::stringstream stream;
  empty.save_to(stream);
  torch::serialize::InputArchive in;
  in.load_from(stream);
  SequentialChunks dataset(CountingChunkReader(2, 1), samplers::SequentialSampler(0), samplers::SequentialSampler(0),
                           data::datasets::ChunkDatasetOptions(1, 1));
  const std::string missing = ember_test::error_of([&] { in >> dataset; });
  EXPECT_NE(missing.find("index"), std::string::npos) << missing;
}

}  // namespace
