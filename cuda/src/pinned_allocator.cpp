// Page-locked host memory, cached (PinnedHostAllocator in caching_allocator.h).
#include <bit>

#include "caching_allocator.h"
#include "check.h"
#include "stream_internal.h"

namespace ember::cuda::detail {
namespace {
constexpr const char* kOp = "cuda pinned allocator";
}  // namespace

void* PinnedHostAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  const size_t size = std::bit_ceil(std::max<size_t>(nbytes, 512));
  std::lock_guard<std::mutex> lock(mutex_);
  process_events();
  char* ptr = nullptr;
  if (auto it = free_.find(size); it != free_.end()) {
    ptr = it->second;
    free_.erase(it);
  } else {
    void* p = nullptr;
    const cudaError_t err = cudaHostAlloc(&p, size, cudaHostAllocDefault);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      EMBER_FAIL(kOp, ": out of page-locked host memory: tried to allocate ", size, " bytes (",
                 stats_.reserved_bytes, " bytes reserved)");
    }
    EMBER_CUDA_CHECK(err, kOp);
    ptr = static_cast<char*>(p);
    blocks_[ptr] = HostBlock{size, false, 0};
    stats_.reserved_bytes += static_cast<int64_t>(size);
    ++stats_.host_allocations;
  }
  blocks_[ptr].allocated = true;
  stats_.allocated_bytes += static_cast<int64_t>(size);
  return ptr;
}

std::map<char*, PinnedHostAllocator::HostBlock>::iterator PinnedHostAllocator::find_block(const void* ptr) {
  auto it = blocks_.upper_bound(static_cast<char*>(const_cast<void*>(ptr)));
  if (it == blocks_.begin()) return blocks_.end();
  --it;
  if (static_cast<const char*>(ptr) >= it->first + it->second.size) return blocks_.end();
  return it;
}

void PinnedHostAllocator::deallocate(void* ptr, size_t /*nbytes*/) {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(static_cast<char*>(ptr));
  EMBER_CHECK(it != blocks_.end() && it->second.allocated, kOp, ": free of ", ptr,
              ", which it did not hand out (or freed already)");
  it->second.allocated = false;
  stats_.allocated_bytes -= static_cast<int64_t>(it->second.size);
  if (it->second.pending_events == 0) free_.emplace(it->second.size, it->first);
}

void PinnedHostAllocator::record_stream(void* ptr, Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = find_block(ptr);
  if (it == blocks_.end()) return;
  ScopedDevice on(resolve_index(stream.device.index, kOp), kOp);
  cudaEvent_t event = nullptr;
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), kOp);
  EMBER_CUDA_CHECK(cudaEventRecord(event, to_cuda_stream(stream)), kOp);
  ++it->second.pending_events;
  events_.emplace_back(event, it->first);
}

void PinnedHostAllocator::process_events() {
  while (!events_.empty()) {
    auto [event, ptr] = events_.front();
    const cudaError_t err = cudaEventQuery(event);
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      break;
    }
    EMBER_CUDA_CHECK(err, kOp);
    (void)cudaEventDestroy(event);
    events_.pop_front();
    HostBlock& b = blocks_[ptr];
    if (--b.pending_events == 0 && !b.allocated) free_.emplace(b.size, ptr);
  }
}

bool PinnedHostAllocator::owns(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return const_cast<PinnedHostAllocator*>(this)->find_block(ptr) != blocks_.end();
}

HostMemoryStats PinnedHostAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void PinnedHostAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  process_events();
  for (auto& [size, ptr] : free_) {
    EMBER_CUDA_CHECK(cudaFreeHost(ptr), kOp);
    blocks_.erase(ptr);
    stats_.reserved_bytes -= static_cast<int64_t>(size);
    ++stats_.host_frees;
  }
  free_.clear();
}

PinnedHostAllocator& pinned_host_allocator() {
  static PinnedHostAllocator* allocator = new PinnedHostAllocator;  // lives past static destruction
  return *allocator;
}

}  // namespace ember::cuda::detail
