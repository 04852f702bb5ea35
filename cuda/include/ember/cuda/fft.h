#pragma once
// The cuFFT plan cache behind ember::fft on CUDA tensors
// (torch.backends.cuda.cufft_plan_cache[device]): an LRU of cuFFT plans per
// device, 4096 plans at most by default. `device` -1 means the current device.
// Without a GPU these raise "no CUDA device is available".
#include <cstdint>

namespace ember::cuda {

// Plans cached now (cufft_plan_cache[i].size).
int64_t fft_plan_cache_size(int16_t device = -1);
// The capacity (cufft_plan_cache[i].max_size).
int64_t fft_plan_cache_max_size(int16_t device = -1);
// Sets the capacity, dropping the least recently used plans beyond it; 0
// turns caching off (cufft_plan_cache[i].max_size = n). Raises for n < 0.
void set_fft_plan_cache_max_size(int64_t max_size, int16_t device = -1);
// Drops every cached plan (cufft_plan_cache[i].clear()); plans in use live
// until their transform is queued.
void clear_fft_plan_cache(int16_t device = -1);

}  // namespace ember::cuda
