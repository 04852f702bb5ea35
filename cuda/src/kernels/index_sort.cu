// CUB's radix sort and scan for the indexing kernels, kept to one
// instantiation each in a file of their own (CUB's sort is slow to compile).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "ember/ops/factories.h"
#include "index_common.cuh"

namespace ember::cuda::kernels {

namespace {
// Temporary storage from Ember's caching allocator (on the current stream).
Tensor temp_bytes(size_t n, const Tensor& like) {
  return empty({static_cast<int64_t>(n > 0 ? n : 1)}, TensorOptions(kUInt8).device(like.device()));
}
}  // namespace

void sort_pairs_int64(const Tensor& keys_in, Tensor& keys_out, const Tensor& values_in, Tensor& values_out,
                      int64_t n, cudaStream_t stream, const char* op) {
  if (n == 0) return;
  const auto* ki = static_cast<const int64_t*>(keys_in.data_ptr());
  auto* ko = static_cast<int64_t*>(keys_out.data_ptr());
  const auto* vi = static_cast<const int64_t*>(values_in.data_ptr());
  auto* vo = static_cast<int64_t*>(values_out.data_ptr());
  size_t bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ki, ko, vi, vo, n, 0, 64, stream), op);
  Tensor temp = temp_bytes(bytes, keys_in);
  EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data_ptr(), bytes, ki, ko, vi, vo, n, 0, 64, stream), op);
}

void inclusive_sum_int64(const Tensor& in, Tensor& out, int64_t n, cudaStream_t stream, const char* op) {
  if (n == 0) return;
  const auto* i = static_cast<const int64_t*>(in.data_ptr());
  auto* o = static_cast<int64_t*>(out.data_ptr());
  size_t bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, i, o, n, stream), op);
  Tensor temp = temp_bytes(bytes, in);
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data_ptr(), bytes, i, o, n, stream), op);
}

}  // namespace ember::cuda::kernels
