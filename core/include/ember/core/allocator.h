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

#include "ember/core/device_guard.h"

namespace ember {

// An allocator serves one device (type and index; CPU's index is -1). Device
// backends order allocations on streams: a block allocated for one stream may
// be reused by work on that stream without synchronizing; record_stream tells
// the allocator that another stream also uses a block, so it is not reused
// before that stream's work is done (CUDA's caching-allocator contract).
// Host allocators ignore streams.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // On the device's current stream.
  virtual void* allocate(size_t nbytes) = 0;
  virtual void* allocate(size_t nbytes, Stream stream) {
    (void)stream;
    return allocate(nbytes);
  }
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
  virtual void record_stream(void* ptr, Stream stream) {
    (void)ptr;
    (void)stream;
  }
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

// What an allocator hands out. PinnedHost: host memory that a device type can
// copy from and to asynchronously (page-locked for CUDA); where a backend
// registers none, plain CPU memory stands in.
enum class AllocatorKind : uint8_t { Device, PinnedHost };

// Registry of allocators per (device type, index), for backends that plug in.
// get_allocator resolves index -1 to the current device of that type
// (DeviceGuard) and raises an ember::Error when no backend registered one.
Allocator* get_allocator(Device device, AllocatorKind kind = AllocatorKind::Device);
// The PinnedHost allocator registered for `type`; nullptr when none is (no
// fallback, unlike get_allocator).
Allocator* find_pinned_host_allocator(DeviceType type);
// index -1 registers the allocator for every index of the type that has no
// allocator of its own. CPU's own allocator is cpu_allocator(): registering
// one for CPU is refused (use set_cpu_allocator).
void register_allocator(Device device, Allocator* allocator,
                        AllocatorKind kind = AllocatorKind::Device);
inline void register_allocator(DeviceType type, Allocator* allocator) {
  register_allocator(Device(type), allocator);
}

}  // namespace ember
