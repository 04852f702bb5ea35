#pragma once
// Generator: the state of Ember's random number streams, a seed and a
// Philox4x32-10 counter offset (see Note [Counter-based random numbers] in
// random_ops.cpp). Each random op reserves a range of counters; element i of
// its output depends only on (seed, offset, i), so results are reproducible
// per seed and identical for any thread count.
//
// Unlike torch::Generator (a shared handle), copying an ember::Generator
// copies its state: the copy then produces the same numbers as the original.
#include <cstdint>
#include <mutex>
#include <utility>

#include "ember/core/tensor.h"

namespace ember {

class Generator {
 public:
  // PyTorch's default seed.
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;

  explicit Generator(uint64_t seed = kDefaultSeed) : seed_(seed) {}
  Generator(const Generator& other);
  Generator& operator=(const Generator& other);

  // Restarts the stream from `seed` (offset 0).
  void manual_seed(uint64_t seed);
  // Seeds from a non-deterministic source and returns the seed chosen.
  uint64_t seed();
  // The seed the current stream started from.
  uint64_t initial_seed() const;
  // The state as a uint8 tensor of 16 bytes: seed, then offset (little-endian).
  Tensor get_state() const;
  void set_state(const Tensor& state);
  uint64_t offset() const;

  // Reserves `blocks` Philox counters; returns (seed, first counter). Thread-safe.
  std::pair<uint64_t, uint64_t> reserve(uint64_t blocks);

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The generator random ops use when none is given: the one a GeneratorScope
// installed on this thread, else the process-wide default.
Generator& default_generator();
// The process-wide default, whatever scope is active.
Generator& global_generator();

// While it lives, default_generator() on this thread is `generator` (scopes
// nest; the innermost wins). A data loader installs one per sample, seeded from
// (seed, epoch, sample index), so random transforms that draw from the default
// draw the same numbers whichever worker thread runs them. manual_seed() inside
// a scope reseeds the scope's generator.
class GeneratorScope {
 public:
  explicit GeneratorScope(Generator& generator);
  ~GeneratorScope();
  GeneratorScope(const GeneratorScope&) = delete;
  GeneratorScope& operator=(const GeneratorScope&) = delete;

 private:
  Generator* previous_;
};
// Seeds the default generator (torch.manual_seed).
void manual_seed(uint64_t seed);

}  // namespace ember
