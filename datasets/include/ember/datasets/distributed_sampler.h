#pragma once
// DistributedSampler (torch.utils.data.distributed.DistributedSampler): each
// of num_replicas processes (ranks) reads its own share of the dataset.
//
// The partitioning is torch's, index for index: the pass's index list (a
// permutation seeded with seed + epoch when shuffling, else 0..n-1) is padded
// by repeating its head until every rank gets the same number of indices (or
// trimmed with drop_last), and rank r takes positions r, r + num_replicas,
// r + 2 * num_replicas, ... The shuffled order itself differs from torch's
// (Ember's generator is Philox, not torch's Mersenne twister), but every rank
// draws the same permutation, so the shards of all ranks still cover the
// dataset. Call set_epoch() before each epoch, as in torch: without it every
// epoch has the same order.
#include <cstdint>
#include <vector>

#include "ember/datasets/sampler.h"

namespace ember::datasets {

struct DistributedSamplerOptions {
  // Processes taking part, and this one's rank in [0, num_replicas). Ember has
  // no process group to ask yet, so they default to a single process.
  int64_t num_replicas = 1;
  int64_t rank = 0;
  bool shuffle = true;
  // Must be the same on every rank.
  uint64_t seed = 0;
  // Drop the tail so that the data divides evenly, instead of padding.
  bool drop_last = false;
};

class DistributedSampler final : public Sampler {
 public:
  explicit DistributedSampler(int64_t dataset_size, DistributedSamplerOptions options = {});
  std::vector<int64_t> indices() override;
  // Indices per rank and pass (torch's num_samples).
  int64_t size() const override { return num_samples_; }
  // Indices over all ranks (num_samples * num_replicas).
  int64_t total_size() const { return total_size_; }
  // Shuffled orders differ per epoch: call before each one (on every rank).
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }

 private:
  int64_t dataset_size_;
  DistributedSamplerOptions options_;
  int64_t num_samples_;
  int64_t total_size_;
  int64_t epoch_ = 0;
};

}  // namespace ember::datasets
