#pragma once
// DataLoaderOptions: the keyword arguments of torch.utils.data.DataLoader.
#include <cstdint>
#include <functional>
#include <optional>

#include "ember/datasets/sampler.h"

namespace ember::datasets {

struct DataLoaderOptions {
  // Samples per batch (must be 1, the default, when batch_sampler is given).
  int64_t batch_size = 1;
  // A new random order every epoch (a RandomSampler over the dataset).
  bool shuffle = false;
  // The order of the indices; exclusive with shuffle.
  SamplerPtr sampler = nullptr;
  // The index lists of the batches; exclusive with batch_size, shuffle,
  // sampler and drop_last.
  BatchSamplerPtr batch_sampler = nullptr;
  // Worker threads fetching and collating batches; 0 loads in the calling
  // thread, when the loop asks for the next batch.
  int64_t num_workers = 0;
  // Copy batches into page-locked memory for fast copies to a GPU. Ember has
  // no CUDA backend yet, so true is refused with an ember::Error rather than
  // ignored (see docs/datasets.md).
  bool pin_memory = false;
  // Drop the last batch when it is smaller than batch_size.
  bool drop_last = false;
  // Batches in flight per worker (fetched ahead of the loop); default 2.
  // Only with workers.
  std::optional<int64_t> prefetch_factor = std::nullopt;
  // Keep the worker threads between epochs instead of starting new ones.
  bool persistent_workers = false;
  // The seed of the loader's random streams (the shuffled order and the
  // generator each sample is fetched under); default: drawn from
  // default_generator() when the loader is built, so ember::manual_seed()
  // before it makes runs repeatable.
  std::optional<uint64_t> seed = std::nullopt;
  // Seconds to wait for a batch from the workers before raising an
  // ember::Error; 0 (or infinity) waits forever.
  double timeout = 0;
  // Called in each worker thread, with its id, before it fetches anything
  // (every epoch, unless persistent_workers).
  std::function<void(int64_t worker_id)> worker_init_fn = nullptr;
};

}  // namespace ember::datasets
