#pragma once
// torch::data::samplers: what decides the indices of each batch, as
// libtorch's: reset() starts an epoch, next(batch_size) returns the next
// indices (fewer at the end, nullopt when the epoch is over). save/load
// write and read a sampler's position in libtorch's archive format (defined
// in samplers_serialize.h, which <ember/torch.h> includes).
#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "ember/core/error.h"
#include "ember/ops/random.h"

namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace torch::data::samplers {

// Raised by the save/load of a sampler that does not override them.
[[noreturn]] inline void sampler_not_serializable(const char* what) {
  EMBER_FAIL("Sampler::", what, ": this sampler does not override ", what,
             " (libtorch's samplers and Ember's RandomSampler, SequentialSampler and Distributed*Sampler do)");
}

template <class BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  virtual void reset(std::optional<size_t> new_size) = 0;
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
  // Pure in libtorch; here a sampler of one's own needs them only when saved.
  virtual void save(serialize::OutputArchive& /*archive*/) const { sampler_not_serializable("save"); }
  virtual void load(serialize::InputArchive& /*archive*/) { sampler_not_serializable("load"); }
};

// 0, 1, ..., size - 1 in order.
class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    if (new_size) size_ = *new_size;
    index_ = 0;
  }
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    const size_t end = std::min(index_ + batch_size, size_);
    if (end <= index_) return std::nullopt;
    std::vector<size_t> indices(end - index_);
    for (size_t i = 0; i < indices.size(); ++i) indices[i] = index_ + i;
    index_ = end;
    return indices;
  }
  size_t index() const noexcept { return index_; }
  // libtorch's layout: "index" (an int64 tensor buffer).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  size_t size_;
  size_t index_ = 0;
};

// A new random permutation of 0 .. size - 1 each epoch, drawn from Ember's
// default generator (torch::manual_seed makes it repeatable).
class RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(int64_t size) : size_(size) {
    EMBER_CHECK(size >= 0, "RandomSampler: size must be >= 0, got ", size);
    reset();
  }
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    if (new_size) size_ = static_cast<int64_t>(*new_size);
    ember::Tensor perm = ember::randperm(size_);
    const int64_t* p = perm.data_ptr<int64_t>();
    indices_.assign(p, p + size_);
    index_ = 0;
  }
  std::optional<std::vector<size_t>> next(size_t batch_size) override {
    const size_t end = std::min(index_ + batch_size, indices_.size());
    if (end <= index_) return std::nullopt;
    std::vector<size_t> indices(indices_.begin() + static_cast<std::ptrdiff_t>(index_),
                                indices_.begin() + static_cast<std::ptrdiff_t>(end));
    index_ = end;
    return indices;
  }
  size_t index() const noexcept { return index_; }
  // libtorch's layout: "index" and "indices" (the epoch's permutation), int64
  // tensor buffers; loading takes the saved permutation (and its size).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  int64_t size_;
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

// libtorch's BatchSize: a StreamSampler's request, the number of examples
// wanted; converts to size_t for a StreamDataset's get_batch.
struct BatchSize {
  explicit BatchSize(size_t size) : size_(size) {}
  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  operator size_t() const noexcept { return size_; }  // NOLINT(google-explicit-constructor)
  size_t size_;
};

// libtorch's StreamSampler: asks for batch_size examples at a time until
// epoch_size have been asked for (the last request is the remainder).
class StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override {
    if (new_size) epoch_size_ = *new_size;
    examples_retrieved_so_far_ = 0;
  }
  std::optional<BatchSize> next(size_t batch_size) override {
    if (examples_retrieved_so_far_ >= epoch_size_) return std::nullopt;
    batch_size = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
    examples_retrieved_so_far_ += batch_size;
    return BatchSize(batch_size);
  }
  // libtorch's layout: "examples_retrieved_so_far" (an int64 tensor buffer).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  size_t epoch_size_;
  size_t examples_retrieved_so_far_ = 0;
};

}  // namespace torch::data::samplers
