#include "spin_kernel.h"

#include <cuda_runtime.h>

namespace ember::cuda::testing {
namespace {
__global__ void spin_kernel(int64_t cycles) {
  const int64_t start = clock64();
  while (clock64() - start < cycles) {
  }
}
}  // namespace

void spin_on_stream(void* stream, double ms) {
  int device = 0, khz = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device);
  if (khz <= 0) khz = 1500000;
  spin_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<int64_t>(ms * khz));
}
}  // namespace ember::cuda::testing
