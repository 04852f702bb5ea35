#pragma once
// Pluggable allocators. Every Storage remembers the allocator that made it and
// hands its memory back to that one, so allocators can be swapped at any time.
//
// Note [CPU caching allocator]
// glibc returns large blocks to the OS on free, so every fresh op output pays a
// page fault per 4 KiB on first touch: an allocating elementwise op ran ~3x
// slower than the same op writing into an existing `out=` tensor. The caching
// allocator keeps freed blocks, keyed by size, and hands them out again, so a
// steady-state loop reuses warm pages. It is the default CPU allocator; its
// cache is bounded (set_max_cached_bytes) and can be emptied (empty_cache).
// CachingAllocatorGuard scopes a private cache to a region of code, as the
// PyTorch 1.7 mobile CPUCachingAllocator + WithCPUCachingAllocatorGuard do.
#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>

#include "ember/core/device.h"

namespace ember {

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(size_t nbytes) = 0;
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
  virtual Device device() const = 0;
};

// Plain 64-byte aligned malloc/free.
class CPUAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes) override;
  Device device() const override { return kCPU; }
};

class CachingAllocator final : public Allocator {
 public:
  // Blocks below min_cached_bytes go straight to malloc: small blocks are
  // already served from glibc's arenas without page faults.
  explicit CachingAllocator(size_t max_cached_bytes = size_t(2) << 30,
                            size_t min_cached_bytes = 64 * 1024);
  ~CachingAllocator() override;
  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes) override;
  Device device() const override { return kCPU; }

  void empty_cache();
  void set_max_cached_bytes(size_t bytes);
  size_t cached_bytes() const;
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }

 private:
  size_t round_size(size_t nbytes) const;
  void trim_locked(size_t target);

  mutable std::mutex mutex_;
  std::multimap<size_t, void*> free_blocks_;  // rounded size -> block
  size_t cached_bytes_ = 0;
  size_t max_cached_bytes_;
  size_t min_cached_bytes_;
  size_t hits_ = 0, misses_ = 0;
};

// The allocator new CPU tensors use: the thread's guard allocator if one is
// active, else the process-wide one (the default caching allocator unless
// replaced with set_cpu_allocator).
Allocator* cpu_allocator();
void set_cpu_allocator(Allocator* allocator);  // nullptr restores the default
CachingAllocator& default_caching_allocator();
CPUAllocator& plain_cpu_allocator();

// While alive, CPU allocations on this thread go through `allocator`.
class CachingAllocatorGuard {
 public:
  explicit CachingAllocatorGuard(CachingAllocator* allocator);
  ~CachingAllocatorGuard();
  CachingAllocatorGuard(const CachingAllocatorGuard&) = delete;
  CachingAllocatorGuard& operator=(const CachingAllocatorGuard&) = delete;

 private:
  Allocator* previous_;
};

// Registry of allocators per device type, for backends that plug in (CUDA).
Allocator* get_allocator(Device device);
void register_allocator(DeviceType type, Allocator* allocator);

}  // namespace ember
