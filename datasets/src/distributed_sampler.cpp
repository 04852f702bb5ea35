// DistributedSampler: torch's partitioning, step by step
// (torch/utils/data/distributed.py, 1.13).
#include "ember/datasets/distributed_sampler.h"

#include <numeric>

#include "ember/core/error.h"
#include "ember/ops/random.h"

namespace ember::datasets {

namespace {
// ceil(a / b) for b > 0 and any a (Python's math.ceil of a true division).
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
}  // namespace

DistributedSampler::DistributedSampler(int64_t dataset_size, DistributedSamplerOptions options)
    : dataset_size_(dataset_size), options_(options) {
  EMBER_CHECK(dataset_size >= 0, "DistributedSampler: expected a non-negative dataset size, got ", dataset_size);
  EMBER_CHECK(options.num_replicas > 0, "DistributedSampler: num_replicas should be positive, got ",
              options.num_replicas);
  EMBER_CHECK(options.rank >= 0 && options.rank < options.num_replicas, "DistributedSampler: invalid rank ",
              options.rank, ", rank should be in the interval [0, ", options.num_replicas - 1, "]");
  const int64_t r = options.num_replicas;
  // With drop_last, the tail that does not divide evenly is dropped;
  // otherwise the list is padded up to a multiple of num_replicas.
  if (options.drop_last && dataset_size % r != 0) num_samples_ = ceil_div(dataset_size - r, r);
  else num_samples_ = ceil_div(dataset_size, r);
  total_size_ = num_samples_ * r;
}

std::vector<int64_t> DistributedSampler::indices() {
  const auto n = static_cast<size_t>(dataset_size_);
  std::vector<int64_t> all(n);
  if (options_.shuffle) {
    // Every rank seeds the same way, so all ranks see the same permutation.
    Generator generator(options_.seed + static_cast<uint64_t>(epoch_));
    const Tensor perm = randperm(dataset_size_, kInt64, &generator).contiguous();
    std::copy(perm.data_ptr<int64_t>(), perm.data_ptr<int64_t>() + n, all.begin());
  } else {
    std::iota(all.begin(), all.end(), int64_t{0});
  }
  const auto total = static_cast<size_t>(total_size_);
  if (!options_.drop_last) {
    // Pad by repeating the head of the list (the whole list several times
    // over when the padding is longer than the list).
    const size_t padding = total - n;
    for (size_t i = 0; i < padding; ++i) all.push_back(all[i % n]);
  } else {
    all.resize(total);
  }
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(num_samples_));
  for (size_t i = static_cast<size_t>(options_.rank); i < total; i += static_cast<size_t>(options_.num_replicas))
    out.push_back(all[i]);
  return out;
}

}  // namespace ember::datasets
