#pragma once
// True shuffling of an iterable dataset through a buffer (torchdata's
// Shuffler, used by torchtext's datasets): the first `buffer_size` samples
// fill the buffer; each later sample replaces a uniformly drawn slot, whose
// sample is yielded; at the end the rest of the buffer is yielded in random
// order. A buffer at least as large as the dataset gives a uniform permutation.
//
// Note [Shuffle buffer and workers]: the order must not depend on the
// DataLoader's num_workers. So every worker runs the same shuffle over the
// whole source stream (the source is iterated as one worker, {0, 1}), seeded
// from (seed, epoch) and never from the worker's own seed, and keeps only its
// share: output sample n belongs to worker (n / block) % num_workers. The
// loader takes one batch from each worker in turn, so with block equal to the
// loader's batch_size the batches are the same for any num_workers (tested
// for 0 to 4). The cost: each worker reads the whole source.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/datasets/iterable_dataset.h"

namespace ember::text {

struct ShuffleBufferOptions {
  // Samples held at once (>= 1); memory grows with it, and so does randomness.
  int64_t buffer_size = 10000;
  // The seed of epoch 0; epoch e draws from a stream seeded with (seed, e).
  uint64_t seed = 0;
  // Consecutive output samples that go to the same worker; set it to the
  // DataLoader's batch_size for worker-independent batches.
  int64_t block = 1;
};

namespace detail {
// A uniform draw from [0, n) by rejection (std::uniform_int_distribution's
// numbers differ between standard libraries; these do not).
inline uint64_t uniform_below(std::mt19937_64& engine, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x = engine();
  while (x >= limit) x = engine();
  return x % n;
}
// splitmix64 of (seed, epoch): the engine seed of one epoch.
inline uint64_t epoch_seed(uint64_t seed, int64_t epoch) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(epoch) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
}  // namespace detail

template <class Sample>
class ShuffleBuffer final : public datasets::IterableDataset<Sample> {
 public:
  ShuffleBuffer(datasets::IterableDatasetPtr<Sample> source, ShuffleBufferOptions options)
      : source_(std::move(source)), options_(options) {
    EMBER_CHECK(source_ != nullptr, "ShuffleBuffer: the source dataset is null");
    EMBER_CHECK(options_.buffer_size >= 1, "ShuffleBuffer: buffer_size must be >= 1, got ", options_.buffer_size);
    EMBER_CHECK(options_.block >= 1, "ShuffleBuffer: block must be >= 1, got ", options_.block);
  }

  // A new order for epoch e (as DistributedSampler.set_epoch); call it before
  // each epoch's loop.
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }
  std::optional<int64_t> size() const override { return source_->size(); }

  std::unique_ptr<datasets::SampleIterator<Sample>> iter(const datasets::WorkerInfo& worker) override {
    struct State {
      std::unique_ptr<datasets::SampleIterator<Sample>> source;
      std::mt19937_64 engine;
      std::vector<Sample> buffer;
      bool source_done = false;
      int64_t produced = 0;
    };
    auto state = std::make_shared<State>();
    state->source = source_->iter(datasets::WorkerInfo{0, 1, detail::epoch_seed(options_.seed, epoch_)});
    state->engine.seed(detail::epoch_seed(options_.seed, epoch_));
    return datasets::make_iterator<Sample>(
        [state, size = static_cast<size_t>(options_.buffer_size), block = options_.block, worker]() mutable
        -> std::optional<Sample> {
          for (;;) {
            std::optional<Sample> out;
            while (!out && !state->source_done) {
              std::optional<Sample> s = state->source->next();
              if (!s) {
                state->source_done = true;
              } else if (state->buffer.size() < size) {
                state->buffer.push_back(std::move(*s));
              } else {
                const size_t k = detail::uniform_below(state->engine, size);
                out = std::move(state->buffer[k]);
                state->buffer[k] = std::move(*s);
              }
            }
            if (!out) {
              if (state->buffer.empty()) return std::nullopt;
              // The remainder in random order: draw a slot, move the last into it.
              const size_t k = detail::uniform_below(state->engine, state->buffer.size());
              out = std::move(state->buffer[k]);
              if (k + 1 != state->buffer.size()) state->buffer[k] = std::move(state->buffer.back());
              state->buffer.pop_back();
            }
            const int64_t n = state->produced++;
            if ((n / block) % worker.num_workers == worker.id) return out;
          }
        });
  }

 private:
  datasets::IterableDatasetPtr<Sample> source_;
  ShuffleBufferOptions options_;
  int64_t epoch_ = 0;
};

// shuffle_buffer(dataset, {.buffer_size, .seed, .block}): the shuffled dataset.
template <class D>
auto shuffle_buffer(std::shared_ptr<D> source, ShuffleBufferOptions options = {}) {
  using Sample = typename D::SampleType;
  return std::make_shared<ShuffleBuffer<Sample>>(
      std::static_pointer_cast<datasets::IterableDataset<Sample>>(std::move(source)), options);
}

}  // namespace ember::text
