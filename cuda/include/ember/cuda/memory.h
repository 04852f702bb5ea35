#pragma once
// GPU memory as torch.cuda's memory API: the caching allocator's statistics
// and controls (Note [CUDA caching allocator] in cuda/src/caching_allocator.h),
// stream-ordered reuse (record_stream) and page-locked host memory for
// asynchronous copies (pin_memory). `device` -1 means the current device.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ember/core/tensor.h"
#include "ember/cuda/stream.h"

namespace ember::cuda {

struct MemoryStats {
  int64_t allocated_bytes = 0, max_allocated_bytes = 0;  // handed out to tensors (rounded sizes)
  int64_t reserved_bytes = 0, max_reserved_bytes = 0;    // cudaMalloc'ed segments
  int64_t requested_bytes = 0;                           // handed out, as asked (before rounding)
  int64_t active_blocks = 0;       // blocks handed out now
  int64_t segments = 0;            // cudaMalloc'ed segments held
  int64_t inactive_split_bytes = 0;  // free bytes inside segments that are partly in use
  int64_t allocations = 0, frees = 0;            // calls since the start (or reset_accumulated)
  int64_t device_allocations = 0, device_frees = 0;  // cudaMalloc / cudaFree calls
  int64_t alloc_retries = 0;  // allocations that freed the cache and tried again
  int64_t ooms = 0;           // allocations that failed with the out-of-memory error
};
MemoryStats memory_stats(int16_t device = -1);
int64_t memory_allocated(int16_t device = -1);
int64_t max_memory_allocated(int16_t device = -1);
int64_t memory_reserved(int16_t device = -1);
int64_t max_memory_reserved(int16_t device = -1);
// Peaks start again from the current values.
void reset_peak_memory_stats(int16_t device = -1);
// Counters (allocations, frees, device_allocations, ...) start again from 0.
void reset_accumulated_memory_stats(int16_t device = -1);
// A table of the statistics, as torch.cuda.memory_summary.
std::string memory_summary(int16_t device = -1);

// Returns every cached segment with no block in use to the driver, on every
// device (after waiting for the streams that blocks were recorded on).
void empty_cache();
// Caps the memory the allocator reserves on `device` at fraction x total
// memory; an allocation beyond it fails with the out-of-memory error.
void set_per_process_memory_fraction(double fraction, int16_t device = -1);

// Memory straight from the caching allocator, ordered on `stream` (the
// current stream by default): torch.cuda.caching_allocator_alloc/_delete.
void* raw_alloc(size_t nbytes);
void* raw_alloc(size_t nbytes, const CUDAStream& stream);
void raw_delete(void* ptr);

// Tells the allocator that `stream` uses t's memory: when t's storage is
// freed, its block is reused only after the work queued on `stream` so far is
// done (Tensor.record_stream).
void record_stream(const Tensor& t, const CUDAStream& stream);

// A copy of CPU tensor t in page-locked host memory (Tensor.pin_memory()),
// from which copies to the GPU with non_blocking run asynchronously.
Tensor pin_memory(const Tensor& t);
bool is_pinned(const Tensor& t);
struct HostMemoryStats {
  int64_t allocated_bytes = 0;  // handed out to tensors
  int64_t reserved_bytes = 0;   // cudaHostAlloc'ed, in use or cached
  int64_t host_allocations = 0, host_frees = 0;  // cudaHostAlloc / cudaFreeHost calls
};
HostMemoryStats host_memory_stats();
// Frees the cached page-locked blocks that no copy uses any more.
void empty_host_cache();

}  // namespace ember::cuda
