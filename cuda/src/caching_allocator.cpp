// The device caching allocator (Note [CUDA caching allocator]).
#include "caching_allocator.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>

#include "check.h"
#include "stream_internal.h"

namespace ember::cuda::detail {
namespace {

constexpr const char* kOp = "cuda allocator";

std::string format_bytes(int64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (bytes >= (int64_t{1} << 30)) std::snprintf(buf, sizeof(buf), "%.2f GiB", b / (1 << 30));
  else if (bytes >= (int64_t{1} << 20)) std::snprintf(buf, sizeof(buf), "%.2f MiB", b / (1 << 20));
  else if (bytes >= 1024) std::snprintf(buf, sizeof(buf), "%.2f KiB", b / 1024);
  else std::snprintf(buf, sizeof(buf), "%lld bytes", static_cast<long long>(bytes));
  return buf;
}

void add_current(int64_t& current, int64_t& peak, int64_t delta) {
  current += delta;
  peak = std::max(peak, current);
}

}  // namespace

size_t round_block_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return (nbytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t segment_size_for(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

bool DeviceCachingAllocator::BlockLess::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return reinterpret_cast<uintptr_t>(a->stream) < reinterpret_cast<uintptr_t>(b->stream);
  if (a->size != b->size) return a->size < b->size;
  return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
}

void* DeviceCachingAllocator::allocate(size_t nbytes) { return allocate_on(nbytes, current_cuda_stream(device_)); }

void* DeviceCachingAllocator::allocate(size_t nbytes, Stream stream) {
  EMBER_CHECK(stream.device.type == DeviceType::CUDA && (stream.device.index == device_ || stream.device.index < 0),
              kOp, ": allocation for cuda:", device_, " ordered on a stream of ", stream.device);
  return allocate_on(nbytes, to_cuda_stream(stream));
}

Block* DeviceCachingAllocator::find_free_block(Pool& pool, size_t size, cudaStream_t stream) {
  Block key;
  key.size = size;
  key.stream = stream;
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.erase(it);
  return block;
}

Block* DeviceCachingAllocator::malloc_segment(size_t size, size_t segment, cudaStream_t stream, bool small) {
  if (static_cast<size_t>(stats_.reserved_bytes) + segment > limit_) return nullptr;
  void* ptr = nullptr;
  ScopedDevice on(device_, kOp);
  const cudaError_t err = cudaMalloc(&ptr, segment);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return nullptr;
  }
  EMBER_CUDA_CHECK(err, kOp);
  auto* block = new Block;
  block->size = segment;
  block->ptr = ptr;
  block->stream = stream;
  block->small = small;
  add_current(stats_.reserved_bytes, stats_.max_reserved_bytes, static_cast<int64_t>(segment));
  ++stats_.segments;
  ++stats_.device_allocations;
  return block;
}

void* DeviceCachingAllocator::allocate_on(size_t nbytes, cudaStream_t stream) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  process_events();
  const size_t size = round_block_size(nbytes);
  const bool small = size <= kSmallSize;
  Pool& pool = small ? small_pool_ : large_pool_;
  Block* block = find_free_block(pool, size, stream);
  if (!block) {
    const size_t segment = segment_size_for(size);
    block = malloc_segment(size, segment, stream, small);
    if (!block) {
      // Free what the cache holds and try once more.
      ++stats_.alloc_retries;
      release_cached_segments();
      block = malloc_segment(size, segment, stream, small);
    }
    if (!block) throw_out_of_memory(nbytes, segment);
  }
  const size_t remaining = block->size - size;
  if (small ? remaining >= kMinBlockSize : remaining > kSmallSize) {
    auto* rest = new Block;
    rest->size = remaining;
    rest->ptr = static_cast<char*>(block->ptr) + size;
    rest->stream = stream;
    rest->small = small;
    rest->prev = block;
    rest->next = block->next;
    if (block->next) block->next->prev = rest;
    block->next = rest;
    block->size = size;
    pool.insert(rest);
  }
  block->allocated = true;
  block->requested = nbytes;
  active_[block->ptr] = block;
  add_current(stats_.allocated_bytes, stats_.max_allocated_bytes, static_cast<int64_t>(block->size));
  stats_.requested_bytes += static_cast<int64_t>(nbytes);
  ++stats_.active_blocks;
  ++stats_.allocations;
  return block->ptr;
}

void DeviceCachingAllocator::deallocate(void* ptr, size_t /*nbytes*/) { free_ptr(ptr); }

void DeviceCachingAllocator::free_ptr(void* ptr) {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = active_.find(ptr);
  EMBER_CHECK(it != active_.end(), kOp, ": free of ", ptr, ", which cuda:", device_,
              "'s allocator did not hand out (or freed already)");
  Block* block = it->second;
  active_.erase(it);
  block->allocated = false;
  stats_.allocated_bytes -= static_cast<int64_t>(block->size);
  stats_.requested_bytes -= static_cast<int64_t>(block->requested);
  --stats_.active_blocks;
  ++stats_.frees;
  if (block->stream_uses.empty()) {
    free_block(block);
    return;
  }
  // Used on other streams too: free once their work queued so far is done.
  ScopedDevice on(device_, kOp);
  for (cudaStream_t s : block->stream_uses) {
    cudaEvent_t event = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), kOp);
    EMBER_CUDA_CHECK(cudaEventRecord(event, s), kOp);
    ++block->pending_events;
    events_.emplace_back(event, block);
  }
  block->stream_uses.clear();
}

void DeviceCachingAllocator::record_stream(void* ptr, Stream stream) {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = active_.find(ptr);
  EMBER_CHECK(it != active_.end(), kOp, ": record_stream of ", ptr, ", which cuda:", device_,
              "'s allocator did not hand out");
  Block* block = it->second;
  const cudaStream_t s = to_cuda_stream(stream);
  if (s == block->stream) return;
  if (std::find(block->stream_uses.begin(), block->stream_uses.end(), s) == block->stream_uses.end())
    block->stream_uses.push_back(s);
}

void DeviceCachingAllocator::free_block(Block* block) {
  Pool& pool = block->small ? small_pool_ : large_pool_;
  // Merge with free neighbours of the same segment.
  for (Block* neighbour : {block->prev, block->next}) {
    if (!neighbour || neighbour->allocated || neighbour->pending_events > 0) continue;
    pool.erase(neighbour);
    if (neighbour == block->prev) {
      block->ptr = neighbour->ptr;
      block->prev = neighbour->prev;
      if (block->prev) block->prev->next = block;
    } else {
      block->next = neighbour->next;
      if (block->next) block->next->prev = block;
    }
    block->size += neighbour->size;
    delete neighbour;
  }
  pool.insert(block);
}

void DeviceCachingAllocator::process_events() {
  while (!events_.empty()) {
    auto [event, block] = events_.front();
    const cudaError_t err = cudaEventQuery(event);
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      break;
    }
    EMBER_CUDA_CHECK(err, kOp);
    (void)cudaEventDestroy(event);
    events_.pop_front();
    if (--block->pending_events == 0) free_block(block);
  }
}

void DeviceCachingAllocator::synchronize_and_free_events() {
  while (!events_.empty()) {
    auto [event, block] = events_.front();
    EMBER_CUDA_CHECK(cudaEventSynchronize(event), kOp);
    (void)cudaEventDestroy(event);
    events_.pop_front();
    if (--block->pending_events == 0) free_block(block);
  }
}

void DeviceCachingAllocator::release_cached_segments() {
  synchronize_and_free_events();
  ScopedDevice on(device_, kOp);
  for (Pool* pool : {&small_pool_, &large_pool_}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* block = *it;
      if (block->prev || block->next) {  // part of a segment still in use
        ++it;
        continue;
      }
      EMBER_CUDA_CHECK(cudaFree(block->ptr), kOp);
      stats_.reserved_bytes -= static_cast<int64_t>(block->size);
      --stats_.segments;
      ++stats_.device_frees;
      it = pool->erase(it);
      delete block;
    }
  }
}

void DeviceCachingAllocator::throw_out_of_memory(size_t nbytes, size_t segment) {
  ++stats_.ooms;
  size_t free_bytes = 0, total_bytes = 0;
  {
    ScopedDevice on(device_, kOp);
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) (void)cudaGetLastError();
  }
  std::string limit;
  if (limit_ != SIZE_MAX)
    limit = ::ember::detail::concat("; the allowed memory fraction caps Ember at ",
                                    format_bytes(static_cast<int64_t>(limit_)));
  throw CUDAError(::ember::detail::concat(
                      "CUDA out of memory: tried to allocate ", format_bytes(static_cast<int64_t>(nbytes)),
                      " (a ", format_bytes(static_cast<int64_t>(segment)), " segment) on cuda:", device_, "; ",
                      format_bytes(static_cast<int64_t>(total_bytes)), " total, ",
                      format_bytes(stats_.allocated_bytes), " allocated by Ember's tensors, ",
                      format_bytes(stats_.reserved_bytes), " reserved by Ember's allocator, ",
                      format_bytes(static_cast<int64_t>(free_bytes)), " free", limit),
                  static_cast<int>(cudaErrorMemoryAllocation));
}

MemoryStats DeviceCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  MemoryStats s = stats_;
  s.inactive_split_bytes = 0;
  for (const Pool* pool : {&small_pool_, &large_pool_})
    for (const Block* b : *pool)
      if (b->prev || b->next) s.inactive_split_bytes += static_cast<int64_t>(b->size);
  return s;
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.max_allocated_bytes = stats_.allocated_bytes;
  stats_.max_reserved_bytes = stats_.reserved_bytes;
}

void DeviceCachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.allocations = stats_.frees = 0;
  stats_.device_allocations = stats_.device_frees = 0;
  stats_.alloc_retries = stats_.ooms = 0;
}

void DeviceCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cached_segments();
}

void DeviceCachingAllocator::set_memory_fraction(double fraction) {
  EMBER_CHECK(fraction >= 0 && fraction <= 1, "cuda set_per_process_memory_fraction: fraction must be in [0, 1], got ",
              fraction);
  size_t free_bytes = 0, total_bytes = 0;
  {
    ScopedDevice on(device_, kOp);
    EMBER_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), "cuda set_per_process_memory_fraction");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = static_cast<size_t>(fraction * static_cast<double>(total_bytes));
}

DeviceCachingAllocator& device_allocator(int16_t index) {
  // Never destroyed: tensors in static storage may free their memory after
  // this file's statics are gone (the driver reclaims it at exit).
  static std::array<DeviceCachingAllocator*, kMaxDevices> allocators{};
  static std::once_flag created;
  std::call_once(created, [] {
    for (int i = 0; i < cached_device_count() && i < kMaxDevices; ++i)
      allocators[i] = new DeviceCachingAllocator(static_cast<int16_t>(i));
  });
  index = resolve_index(index, kOp);
  return *allocators[index];
}

}  // namespace ember::cuda::detail
