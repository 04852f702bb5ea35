#pragma once
// How DistributedDataParallel groups parameters into gradient buckets
// (c10d's compute_bucket_assignment_by_size).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::distributed {

// PyTorch's first bucket: small, so that the first all_reduce starts early in
// the backward pass (c10d's kDefaultFirstBucketBytes).
inline constexpr int64_t kDefaultFirstBucketBytes = 1024 * 1024;

// Buckets of parameter indices: parameters are visited in `order` (indices
// into params, each once); parameters of one dtype fill a bucket until it
// holds at least its limit of bytes (the first bucket of each dtype
// first_bucket_bytes, later ones bucket_bytes), so one parameter larger than
// the limit has a bucket of its own. Buckets come in the order of their first
// parameter in `order`, and list their parameters in that order.
std::vector<std::vector<size_t>> compute_bucket_assignment_by_size(const std::vector<Tensor>& params,
                                                                   const std::vector<size_t>& order,
                                                                   int64_t first_bucket_bytes, int64_t bucket_bytes);

}  // namespace ember::distributed
