// The DataLoader's non-template parts: option checks, the default batch
// sampler, the epoch's order, seeds and error messages.
#include <cmath>
#include <exception>
#include <limits>
#include <sstream>

#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/datasets/data_loader.h"
#include "ember/datasets/detail/worker_pool.h"
#include "ember/ops/random.h"

namespace ember::datasets::detail {

namespace {
uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

uint64_t mix_seed(std::initializer_list<uint64_t> words) {
  uint64_t h = 0x243f6a8885a308d3ULL;  // digits of pi: any fixed start
  uint64_t position = 0;
  for (uint64_t w : words) h = splitmix64(h ^ splitmix64(w + 0x9e3779b97f4a7c15ULL * ++position));
  return h;
}

WorkerInfo worker_info_for(uint64_t seed, int64_t epoch, int64_t id, int64_t num_workers) {
  return WorkerInfo{id, num_workers,
                    mix_seed({seed, kWorkerStream, static_cast<uint64_t>(epoch), static_cast<uint64_t>(id)})};
}

uint64_t draw_seed() {
  return static_cast<uint64_t>(randint_scalar(0, std::numeric_limits<int64_t>::max()));
}

void rethrow_with_context(const std::string& context) {
  std::string what;
  try {
    throw;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  std::throw_with_nested(Error(context + ": " + what));
}

std::string format_indices(const std::vector<int64_t>& indices, size_t limit) {
  std::ostringstream ss;
  ss << '[';
  for (size_t i = 0; i < indices.size() && i < limit; ++i) ss << (i ? ", " : "") << indices[i];
  if (indices.size() > limit) ss << ", ... (" << indices.size() << " in all)";
  ss << ']';
  return ss.str();
}

void throw_timeout(double timeout, int64_t batch, const std::string& detail) {
  EMBER_FAIL("DataLoader: timed out after ", timeout, " s waiting for batch ", batch, " (", detail,
             "); the epoch was stopped");
}

void throw_stopped() {
  EMBER_FAIL("DataLoader: this epoch was stopped (a new epoch began, an error ended it, or the DataLoader was "
             "destroyed); its iterator cannot advance");
}

void validate_options(const DataLoaderOptions& o, bool iterable) {
  EMBER_CHECK(o.num_workers >= 0, "DataLoader: num_workers option should be non-negative, got ", o.num_workers,
              "; use num_workers=0 to load in the calling thread");
  EMBER_CHECK(o.timeout >= 0 && !std::isnan(o.timeout), "DataLoader: timeout option should be non-negative, got ",
              o.timeout);
  if (o.prefetch_factor) {
    EMBER_CHECK(o.num_workers > 0, "DataLoader: prefetch_factor option could only be specified with num_workers > 0 "
                                   "(got prefetch_factor=", *o.prefetch_factor, " and num_workers=0)");
    EMBER_CHECK(*o.prefetch_factor > 0, "DataLoader: prefetch_factor option should be positive, got ",
                *o.prefetch_factor);
  }
  EMBER_CHECK(!o.persistent_workers || o.num_workers > 0,
              "DataLoader: persistent_workers option needs num_workers > 0");
  EMBER_CHECK(!o.pin_memory,
              "DataLoader: pin_memory=true cannot be honoured: Ember has no CUDA backend yet, so there is no "
              "page-locked host memory and no GPU to copy batches to; use pin_memory=false");
  if (iterable) {
    EMBER_CHECK(!o.shuffle, "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=true");
    EMBER_CHECK(o.sampler == nullptr, "DataLoader with IterableDataset: expected unspecified sampler option");
    EMBER_CHECK(o.batch_sampler == nullptr,
                "DataLoader with IterableDataset: expected unspecified batch_sampler option");
  }
  if (o.sampler) EMBER_CHECK(!o.shuffle, "DataLoader: sampler option is mutually exclusive with shuffle");
  if (o.batch_sampler) {
    EMBER_CHECK(o.batch_size == 1 && !o.shuffle && o.sampler == nullptr && !o.drop_last,
                "DataLoader: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                "drop_last");
  }
  EMBER_CHECK(o.batch_size > 0, "DataLoader: batch_size should be a positive integer value, got ", o.batch_size);
}

BatchSamplerPtr resolve_batch_sampler(const DataLoaderOptions& o, int64_t dataset_size) {
  if (o.batch_sampler) return o.batch_sampler;
  SamplerPtr sampler = o.sampler;
  if (!sampler) {
    if (o.shuffle) sampler = std::make_shared<RandomSampler>(dataset_size);
    else sampler = std::make_shared<SequentialSampler>(dataset_size);
  }
  return std::make_shared<BatchSampler>(std::move(sampler), o.batch_size, o.drop_last);
}

std::vector<std::vector<int64_t>> draw_epoch_batches(BatchSamplerBase& sampler, uint64_t seed, int64_t epoch) {
  Generator generator(mix_seed({seed, kOrderStream, static_cast<uint64_t>(epoch)}));
  GeneratorScope scope(generator);
  return sampler.batches();
}

int64_t iterable_batch_count(int64_t size, int64_t batch_size, bool drop_last) {
  return drop_last ? size / batch_size : (size + batch_size - 1) / batch_size;
}

}  // namespace ember::datasets::detail
