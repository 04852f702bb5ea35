#pragma once
// Samplers (torch.utils.data's Sampler family): the order in which a
// DataLoader visits a map-style dataset.
//
// A Sampler yields the dataset indices of one pass; a batch sampler groups
// them into the index lists of batches. A pass is drawn whole when it starts
// (indices() / batches()), so one epoch's order is fixed up front. Random
// samplers draw from their own generator when given one, else from
// default_generator(): the DataLoader sets that to its epoch generator (seeded
// from the loader's seed and the epoch) while it draws the order, so a
// custom sampler that draws from default_generator() is reproducible too.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ember/core/generator.h"

namespace ember::datasets {

class Sampler {
 public:
  virtual ~Sampler() = default;
  // The indices of one pass, in order.
  virtual std::vector<int64_t> indices() = 0;
  // How many indices a pass yields (torch's len(sampler)).
  virtual int64_t size() const = 0;
};
using SamplerPtr = std::shared_ptr<Sampler>;

// The interface of batch samplers (torch's batch_sampler argument): the
// index lists of one pass's batches. BatchSampler is the standard one; derive
// from this for others (e.g. batches of similar lengths).
class BatchSamplerBase {
 public:
  virtual ~BatchSamplerBase() = default;
  virtual std::vector<std::vector<int64_t>> batches() = 0;
  // How many batches a pass yields.
  virtual int64_t size() const = 0;
};
using BatchSamplerPtr = std::shared_ptr<BatchSamplerBase>;

// 0, 1, ..., size - 1.
class SequentialSampler final : public Sampler {
 public:
  explicit SequentialSampler(int64_t size);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return size_; }

 private:
  int64_t size_;
};

struct RandomSamplerOptions {
  // Draw with replacement (indices may repeat).
  bool replacement = false;
  // Indices per pass; default: the dataset's size. Without replacement, more
  // than the dataset's size chains several permutations (as torch 1.13).
  std::optional<int64_t> num_samples = std::nullopt;
  // Where the numbers come from; default_generator() when null.
  std::shared_ptr<Generator> generator = nullptr;
};

// A random permutation of 0..size-1 per pass, or num_samples indices drawn
// uniformly with replacement.
class RandomSampler final : public Sampler {
 public:
  explicit RandomSampler(int64_t data_size, RandomSamplerOptions options = {});
  std::vector<int64_t> indices() override;
  int64_t size() const override { return num_samples_; }

 private:
  int64_t data_size_;
  int64_t num_samples_;
  RandomSamplerOptions options_;
};

// A random permutation of the given indices per pass.
class SubsetRandomSampler final : public Sampler {
 public:
  explicit SubsetRandomSampler(std::vector<int64_t> indices, std::shared_ptr<Generator> generator = nullptr);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }

 private:
  std::vector<int64_t> indices_;
  std::shared_ptr<Generator> generator_;
};

// num_samples indices drawn with probabilities proportional to `weights`
// (non-negative, finite, not all zero), with or without replacement.
class WeightedRandomSampler final : public Sampler {
 public:
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement = true,
                        std::shared_ptr<Generator> generator = nullptr);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return num_samples_; }
  const std::vector<double>& weights() const { return weights_; }

 private:
  std::vector<double> weights_;
  int64_t num_samples_;
  bool replacement_;
  std::shared_ptr<Generator> generator_;
};

// Groups a sampler's indices into batches of batch_size; the last batch is
// smaller, or dropped with drop_last.
class BatchSampler final : public BatchSamplerBase {
 public:
  BatchSampler(SamplerPtr sampler, int64_t batch_size, bool drop_last);
  std::vector<std::vector<int64_t>> batches() override;
  int64_t size() const override;
  const SamplerPtr& sampler() const { return sampler_; }
  int64_t batch_size() const { return batch_size_; }
  bool drop_last() const { return drop_last_; }

 private:
  SamplerPtr sampler_;
  int64_t batch_size_;
  bool drop_last_;
};

}  // namespace ember::datasets
