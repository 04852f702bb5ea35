#pragma once
// Turning a failed CUDA call into an ember::cuda::CUDAError naming the Ember op,
// the call and CUDA's error name and string.
#include <cuda_runtime_api.h>

#include "ember/cuda/error.h"

namespace ember::cuda::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* op, const char* call);

inline void check(cudaError_t err, const char* op, const char* call) {
  if (err != cudaSuccess) [[unlikely]] throw_cuda_error(err, op, call);
}

// Device index -1 resolved to the current device, others checked against the count.
int16_t resolve_index(int16_t index, const char* op);

// Makes `index` the current device (cudaSetDevice) for the scope, restoring the
// previous one after; cheap when it already is.
class ScopedDevice {
 public:
  ScopedDevice(int16_t index, const char* op);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

// The cached number of devices (cudaGetDeviceCount once; 0 without a driver).
int cached_device_count();

}  // namespace ember::cuda::detail

// EMBER_CUDA_CHECK(cudaMalloc(&p, n), "cuda allocator"): the call, checked.
#define EMBER_CUDA_CHECK(call, op) ::ember::cuda::detail::check((call), (op), #call)
