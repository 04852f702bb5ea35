#pragma once
// Note [CUDA caching allocator]
// cudaMalloc and cudaFree synchronize the device and cost tens of microseconds
// to milliseconds, so, as PyTorch's CUDACachingAllocator, Ember keeps freed
// GPU memory and hands it out again:
// - sizes are rounded up to multiples of 512 bytes (kMinBlockSize);
// - requests up to 1 MiB (kSmallSize) come from the small pool, carved out of
//   2 MiB segments (kSmallBuffer); larger ones from the large pool, whose
//   segments are 20 MiB (kLargeBuffer) for requests under 10 MiB (kMinLargeAlloc)
//   and the request rounded up to 2 MiB (kRoundLarge) otherwise;
// - a free block larger than the request is split; the rest stays free (small
//   pool: if at least 512 bytes; large pool: if more than 1 MiB), and freed
//   neighbours within one segment merge again;
// - blocks are per stream: a block freed by work on stream S is reused at once
//   for a later allocation on S (stream order makes that safe) and never for
//   another stream. record_stream(ptr, T) marks a block as also used by T; when
//   it is freed, an event is recorded on T and the block becomes free only once
//   that event has completed (checked on each later allocation);
// - when cudaMalloc fails, every cached segment with no block in use is freed
//   and the cudaMalloc tried once more; if that fails too the error says how
//   much was asked and how much is allocated, reserved and free.
// empty_cache() returns the segments with no block in use to the driver.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "ember/core/allocator.h"
#include "ember/cuda/memory.h"

namespace ember::cuda::detail {

inline constexpr size_t kMinBlockSize = 512;
inline constexpr size_t kSmallSize = size_t{1} << 20;
inline constexpr size_t kSmallBuffer = size_t{2} << 20;
inline constexpr size_t kLargeBuffer = size_t{20} << 20;
inline constexpr size_t kMinLargeAlloc = size_t{10} << 20;
inline constexpr size_t kRoundLarge = size_t{2} << 20;

// The block size a request of nbytes gets.
size_t round_block_size(size_t nbytes);
// The segment cudaMalloc'ed for a block of `size` bytes that no cached block fits.
size_t segment_size_for(size_t size);

struct Block {
  size_t size = 0;
  size_t requested = 0;  // bytes asked for (stats)
  void* ptr = nullptr;
  cudaStream_t stream = nullptr;  // the stream it was allocated for
  bool allocated = false;
  bool small = false;  // in the small pool
  Block* prev = nullptr;  // neighbours within the segment
  Block* next = nullptr;
  std::vector<cudaStream_t> stream_uses;  // other streams (record_stream)
  int pending_events = 0;                 // events to complete before it is free
};

class DeviceCachingAllocator final : public Allocator {
 public:
  explicit DeviceCachingAllocator(int16_t device) : device_(device) {}

  void* allocate(size_t nbytes) override;
  void* allocate(size_t nbytes, Stream stream) override;
  void deallocate(void* ptr, size_t nbytes) override;
  void record_stream(void* ptr, Stream stream) override;
  Device device() const override { return Device(DeviceType::CUDA, device_); }

  void* allocate_on(size_t nbytes, cudaStream_t stream);
  void free_ptr(void* ptr);
  MemoryStats stats() const;
  void reset_peak_stats();
  void reset_accumulated_stats();
  void empty_cache();
  void set_memory_fraction(double fraction);

 private:
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockLess>;

  Block* find_free_block(Pool& pool, size_t size, cudaStream_t stream);
  Block* malloc_segment(size_t size, size_t segment, cudaStream_t stream, bool small);
  void free_block(Block* block);  // back into its pool, merged with free neighbours
  void process_events();
  void synchronize_and_free_events();
  void release_cached_segments();
  [[noreturn]] void throw_out_of_memory(size_t nbytes, size_t segment);

  const int16_t device_;
  mutable std::mutex mutex_;
  Pool small_pool_, large_pool_;
  std::unordered_map<void*, Block*> active_;
  std::deque<std::pair<cudaEvent_t, Block*>> events_;
  size_t limit_ = SIZE_MAX;  // set_per_process_memory_fraction
  MemoryStats stats_;
};

// Created on first use, for devices [0, device_count()).
DeviceCachingAllocator& device_allocator(int16_t index);

// Page-locked host memory, cached by power-of-two size (PyTorch's
// CachingHostAllocator). record_stream(ptr, s) records an event on s now: the
// block is reused only after that event completes (an asynchronous copy from
// or to it was queued on s).
class PinnedHostAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes) override;
  void record_stream(void* ptr, Stream stream) override;
  Device device() const override { return kCPU; }
  // Whether ptr lies in a block of this allocator.
  bool owns(const void* ptr) const;
  HostMemoryStats stats() const;
  void empty_cache();

 private:
  struct HostBlock {
    size_t size = 0;
    bool allocated = false;
    int pending_events = 0;
  };
  void process_events();
  std::map<char*, HostBlock>::iterator find_block(const void* ptr);

  mutable std::mutex mutex_;
  std::map<char*, HostBlock> blocks_;
  std::multimap<size_t, char*> free_;
  std::deque<std::pair<cudaEvent_t, char*>> events_;
  HostMemoryStats stats_;
};
PinnedHostAllocator& pinned_host_allocator();

}  // namespace ember::cuda::detail
