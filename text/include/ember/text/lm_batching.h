#pragma once
// Language-model batching, as the PyTorch word-language-model and
// Transformer tutorials do it, and a batch sampler that groups samples of
// similar length.
#include <cstdint>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/datasets/sampler.h"

namespace ember::text {

// The 1-D token ids `data` as `batch_size` parallel streams: a [T, batch_size]
// tensor with T = numel / batch_size, column b holding ids [b*T, (b+1)*T);
// the last numel % batch_size ids are dropped (the tutorials' batchify).
Tensor batchify(const Tensor& data, int64_t batch_size);

// BPTT window i of a batchified [T, B] source: seq_len = min(bptt, T - 1 - i),
// data = source[i : i + seq_len] ([seq_len, B], a view) and target =
// source[i + 1 : i + 1 + seq_len] flattened to [seq_len * B] (the tutorial's
// get_batch; requires 0 <= i < T - 1).
std::pair<Tensor, Tensor> get_batch(const Tensor& source, int64_t i, int64_t bptt);

struct BucketBatchSamplerOptions {
  int64_t batch_size = 1;
  // A bucket holds batch_size * bucket_multiplier samples (>= 1).
  int64_t bucket_multiplier = 100;
  // Drop the last, smaller batch of each bucket.
  bool drop_last = false;
  uint64_t seed = 0;
};

// Batches of similar lengths (torchtext's legacy BucketIterator, torchnlp's
// BucketBatchSampler): each pass shuffles the indices, cuts them into buckets
// of batch_size * bucket_multiplier, sorts each bucket by length (stable),
// cuts it into batches, and shuffles the batches. Pass k draws from a stream
// seeded with (seed, k), so runs repeat; set_epoch(k) resumes at pass k.
class BucketBatchSampler final : public datasets::BatchSamplerBase {
 public:
  BucketBatchSampler(std::vector<int64_t> lengths, BucketBatchSamplerOptions options);
  std::vector<std::vector<int64_t>> batches() override;
  int64_t size() const override;
  void set_epoch(int64_t epoch) { epoch_ = epoch; }

 private:
  std::vector<int64_t> lengths_;
  BucketBatchSamplerOptions options_;
  int64_t epoch_ = 0;
};

}  // namespace ember::text
