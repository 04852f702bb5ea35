#include "ember/text/lm_batching.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "ember/core/error.h"
#include "ember/text/shuffle_buffer.h"

namespace ember::text {

Tensor batchify(const Tensor& data, int64_t batch_size) {
  EMBER_CHECK(data.dim() == 1, "batchify: expected 1-D token ids, got a ", data.dim(), "-D tensor");
  EMBER_CHECK(batch_size >= 1, "batchify: batch_size must be >= 1, got ", batch_size);
  const int64_t steps = data.size(0) / batch_size;
  return data.narrow(0, 0, steps * batch_size).reshape({batch_size, steps}).t().contiguous();
}

std::pair<Tensor, Tensor> get_batch(const Tensor& source, int64_t i, int64_t bptt) {
  EMBER_CHECK(source.dim() == 2, "get_batch: expected a batchified [T, B] source, got a ", source.dim(),
              "-D tensor");
  EMBER_CHECK(bptt >= 1, "get_batch: bptt must be >= 1, got ", bptt);
  const int64_t steps = source.size(0);
  EMBER_CHECK(i >= 0 && i < steps - 1, "get_batch: i must be in [0, ", steps - 1, ") for a source of ", steps,
              " steps, got ", i);
  const int64_t seq_len = std::min(bptt, steps - 1 - i);
  Tensor data = source.narrow(0, i, seq_len);
  Tensor target = source.narrow(0, i + 1, seq_len).reshape({-1});
  return {std::move(data), std::move(target)};
}

BucketBatchSampler::BucketBatchSampler(std::vector<int64_t> lengths, BucketBatchSamplerOptions options)
    : lengths_(std::move(lengths)), options_(options) {
  EMBER_CHECK(options_.batch_size >= 1, "BucketBatchSampler: batch_size must be >= 1, got ", options_.batch_size);
  EMBER_CHECK(options_.bucket_multiplier >= 1, "BucketBatchSampler: bucket_multiplier must be >= 1, got ",
              options_.bucket_multiplier);
}

int64_t BucketBatchSampler::size() const {
  const auto n = static_cast<int64_t>(lengths_.size());
  const int64_t bucket = options_.batch_size * options_.bucket_multiplier;
  const int64_t full_buckets = n / bucket, rest = n % bucket;
  const int64_t per_full = options_.bucket_multiplier;  // a full bucket is whole batches
  const int64_t from_rest = options_.drop_last ? rest / options_.batch_size
                                               : (rest + options_.batch_size - 1) / options_.batch_size;
  return full_buckets * per_full + from_rest;
}

std::vector<std::vector<int64_t>> BucketBatchSampler::batches() {
  std::mt19937_64 engine(detail::epoch_seed(options_.seed, epoch_++));
  // Fisher-Yates with the portable draw.
  auto shuffle = [&engine](auto& v) {
    for (size_t k = v.size(); k > 1; --k) std::swap(v[k - 1], v[detail::uniform_below(engine, k)]);
  };
  std::vector<int64_t> order(lengths_.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  shuffle(order);
  const auto bucket = static_cast<size_t>(options_.batch_size * options_.bucket_multiplier);
  const auto batch = static_cast<size_t>(options_.batch_size);
  std::vector<std::vector<int64_t>> out;
  for (size_t begin = 0; begin < order.size(); begin += bucket) {
    const size_t end = std::min(order.size(), begin + bucket);
    std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(end),
                     [this](int64_t a, int64_t b) { return lengths_[static_cast<size_t>(a)] < lengths_[static_cast<size_t>(b)]; });
    for (size_t b = begin; b < end; b += batch) {
      const size_t e = std::min(end, b + batch);
      if (options_.drop_last && e - b < batch) continue;
      out.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(b), order.begin() + static_cast<std::ptrdiff_t>(e));
    }
  }
  shuffle(out);
  return out;
}

}  // namespace ember::text
