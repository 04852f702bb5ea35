// SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler
// and BatchSampler.
#include <cmath>
#include <numeric>

#include "ember/core/error.h"
#include "ember/datasets/sampler.h"
#include "ember/ops/factories.h"
#include "ember/ops/random.h"

namespace ember::datasets {

namespace {
std::vector<int64_t> to_vector(const Tensor& t) {
  const Tensor c = t.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}
}  // namespace

SequentialSampler::SequentialSampler(int64_t size) : size_(size) {
  EMBER_CHECK(size >= 0, "SequentialSampler: expected a non-negative size, got ", size);
}

std::vector<int64_t> SequentialSampler::indices() {
  std::vector<int64_t> out(static_cast<size_t>(size_));
  std::iota(out.begin(), out.end(), int64_t{0});
  return out;
}

RandomSampler::RandomSampler(int64_t data_size, RandomSamplerOptions options)
    : data_size_(data_size), num_samples_(options.num_samples.value_or(data_size)), options_(std::move(options)) {
  EMBER_CHECK(data_size >= 0, "RandomSampler: expected a non-negative dataset size, got ", data_size);
  EMBER_CHECK(num_samples_ > 0, "RandomSampler: num_samples should be a positive integer value, but got num_samples=",
              num_samples_);
  EMBER_CHECK(data_size > 0, "RandomSampler: cannot draw ", num_samples_, " samples from an empty dataset");
}

std::vector<int64_t> RandomSampler::indices() {
  Generator* generator = options_.generator.get();
  if (options_.replacement) return to_vector(randint(0, data_size_, {num_samples_}, kInt64, generator));
  // Whole permutations, then the head of one more (torch 1.13).
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(num_samples_));
  for (int64_t i = 0; i < num_samples_ / data_size_; ++i) {
    const std::vector<int64_t> perm = to_vector(randperm(data_size_, kInt64, generator));
    out.insert(out.end(), perm.begin(), perm.end());
  }
  const int64_t rest = num_samples_ % data_size_;
  if (rest > 0) {
    const std::vector<int64_t> perm = to_vector(randperm(data_size_, kInt64, generator));
    out.insert(out.end(), perm.begin(), perm.begin() + rest);
  }
  return out;
}

SubsetRandomSampler::SubsetRandomSampler(std::vector<int64_t> indices, std::shared_ptr<Generator> generator)
    : indices_(std::move(indices)), generator_(std::move(generator)) {}

std::vector<int64_t> SubsetRandomSampler::indices() {
  const std::vector<int64_t> perm = to_vector(randperm(size(), kInt64, generator_.get()));
  std::vector<int64_t> out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = indices_[static_cast<size_t>(perm[i])];
  return out;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement,
                                             std::shared_ptr<Generator> generator)
    : weights_(std::move(weights)),
      num_samples_(num_samples),
      replacement_(replacement),
      generator_(std::move(generator)) {
  EMBER_CHECK(num_samples > 0,
              "WeightedRandomSampler: num_samples should be a positive integer value, but got num_samples=",
              num_samples);
  EMBER_CHECK(!weights_.empty(), "WeightedRandomSampler: weights is empty");
  double total = 0;
  int64_t nonzero = 0;
  for (size_t i = 0; i < weights_.size(); ++i) {
    EMBER_CHECK(std::isfinite(weights_[i]) && weights_[i] >= 0, "WeightedRandomSampler: weight ", i,
                " is ", weights_[i], "; weights must be finite and non-negative");
    total += weights_[i];
    nonzero += weights_[i] > 0;
  }
  EMBER_CHECK(total > 0, "WeightedRandomSampler: the weights sum to zero");
  EMBER_CHECK(replacement || num_samples <= nonzero, "WeightedRandomSampler: cannot draw ", num_samples,
              " samples without replacement from ", nonzero, " non-zero weights");
}

std::vector<int64_t> WeightedRandomSampler::indices() {
  return to_vector(multinomial(tensor(weights_, kFloat64), num_samples_, replacement_, generator_.get()));
}

BatchSampler::BatchSampler(SamplerPtr sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  EMBER_CHECK(sampler_ != nullptr, "BatchSampler: the sampler is null");
  EMBER_CHECK(batch_size > 0, "BatchSampler: batch_size should be a positive integer value, but got batch_size=",
              batch_size);
}

std::vector<std::vector<int64_t>> BatchSampler::batches() {
  const std::vector<int64_t> indices = sampler_->indices();
  const auto n = static_cast<int64_t>(indices.size());
  std::vector<std::vector<int64_t>> out;
  out.reserve(static_cast<size_t>(n / batch_size_ + 1));
  for (int64_t begin = 0; begin < n; begin += batch_size_) {
    const int64_t end = std::min(n, begin + batch_size_);
    if (end - begin < batch_size_ && drop_last_) break;
    out.emplace_back(indices.begin() + begin, indices.begin() + end);
  }
  return out;
}

int64_t BatchSampler::size() const {
  const int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

}  // namespace ember::datasets
