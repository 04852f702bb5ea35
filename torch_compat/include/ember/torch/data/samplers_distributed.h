#pragma once
// torch::data::samplers::DistributedRandomSampler / DistributedSequentialSampler:
// each of num_replicas processes (rank 0 .. num_replicas - 1) gets its own
// contiguous share of the indices, as libtorch's (torch/data/samplers/distributed.h).
// With allow_duplicates (the default) every share has ceil(size / num_replicas)
// indices, the last ones wrapping around to the start; without, floor(size /
// num_replicas), the remainder left out. The random sampler shuffles all the
// indices with std::mt19937 seeded by the epoch (set_epoch) and std::shuffle,
// as libtorch does, so every replica sees the same permutation and takes its
// share; with the same standard library it gives libtorch's indices.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "ember/core/error.h"
#include "ember/torch/data/samplers.h"

namespace torch::data::samplers {

class DistributedSampler : public Sampler<> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
    EMBER_CHECK(num_replicas > 0, "DistributedSampler: num_replicas must be positive");
    EMBER_CHECK(rank < num_replicas, "DistributedSampler: rank ", rank, " is not below num_replicas ", num_replicas);
  }
  // The epoch seeds the random sampler's shuffle (call before reset()).
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }

 protected:
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }
  size_t size_, num_replicas_, rank_, epoch_ = 0;
  bool allow_duplicates_;
};

class DistributedRandomSampler : public DistributedSampler {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
    reset(size_);
  }
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    size_ = new_size.value_or(size_);
    populate_indices();
    std::mt19937 rand(static_cast<std::mt19937::result_type>(epoch_));
    std::shuffle(all_indices_.begin(), all_indices_.end(), rand);
    sample_index_ = begin_index_;
  }
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    if (sample_index_ == end_index_) return std::nullopt;
    const size_t end = std::min(sample_index_ + batch_size, end_index_);
    std::vector<size_t> out(all_indices_.begin() + static_cast<std::ptrdiff_t>(sample_index_),
                            all_indices_.begin() + static_cast<std::ptrdiff_t>(end));
    sample_index_ = end;
    return out;
  }
  size_t index() const noexcept { return sample_index_ - begin_index_; }
  // libtorch's layout: "sample_index_" and "epoch_" (int64 tensor buffers);
  // loading takes the epoch, redraws its shuffle, then the position.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  void populate_indices() {
    const size_t local = local_sample_count();
    const size_t count = num_replicas_ == 1 ? size_ : local * num_replicas_;
    all_indices_.resize(count);
    std::iota(all_indices_.begin(), all_indices_.end(), size_t{0});
    for (size_t i = size_; i < count; ++i) all_indices_[i] = i - size_;  // duplicates to even out the shares
    begin_index_ = rank_ * local;
    end_index_ = begin_index_ + local;
    sample_index_ = begin_index_;
  }
  size_t begin_index_ = 0, end_index_ = 0, sample_index_ = 0;
  std::vector<size_t> all_indices_;
};

class DistributedSequentialSampler : public DistributedSampler {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
    populate_indices();
  }
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    const size_t size = new_size.value_or(size_);
    if (size != size_) {
      size_ = size;
      populate_indices();
    } else {
      sample_index_ = begin_index_;
    }
  }
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    if (sample_index_ == end_index_) return std::nullopt;
    const size_t end = std::min(sample_index_ + batch_size, end_index_);
    std::vector<size_t> out(end - sample_index_);
    std::iota(out.begin(), out.end(), sample_index_);
    if (end >= size_)
      for (size_t& i : out) i %= size_;  // the wrapped-around duplicates
    sample_index_ = end;
    return out;
  }
  size_t index() const noexcept { return sample_index_ - begin_index_; }
  // libtorch's layout: "sample_index_" (an int64 tensor buffer).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  void populate_indices() {
    begin_index_ = rank_ * local_sample_count();
    end_index_ = begin_index_ + local_sample_count();
    sample_index_ = begin_index_;
  }
  size_t begin_index_ = 0, end_index_ = 0, sample_index_ = 0;
};

}  // namespace torch::data::samplers
