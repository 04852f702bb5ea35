#include "ember/core/allocator.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "ember/core/error.h"
#include "ember/core/out_of_memory.h"

namespace ember {

namespace {
constexpr size_t kAlignment = 64;  // a cache line; enough for AVX-512 loads

[[noreturn]] void fail_out_of_memory(size_t nbytes) {
  detail::note_allocation_failure(nbytes);  // Note [Out of memory at the entry points]
  // PyTorch's words, so that users recognize the error.
  EMBER_FAIL("CPU allocator: not enough memory: you tried to allocate ", nbytes, " bytes (",
             static_cast<double>(nbytes) / double(1 << 30), " GiB)");
}

// nullptr when the system refuses (callers decide whether to retry).
void* try_aligned_malloc(size_t nbytes) {
  // Storages never exceed 2^63 - 1 bytes (Note [Checked sizes]); refusing
  // larger requests here also keeps the rounding below from wrapping.
  if (nbytes > static_cast<size_t>(INT64_MAX)) return nullptr;
  const size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  return std::aligned_alloc(kAlignment, rounded);
}

void* aligned_malloc(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  void* p = try_aligned_malloc(nbytes);
  if (p == nullptr) fail_out_of_memory(nbytes);
  return p;
}
}  // namespace

void* CPUAllocator::allocate(size_t nbytes) { return aligned_malloc(nbytes); }
void CPUAllocator::deallocate(void* ptr, size_t) { std::free(ptr); }

CachingAllocator::CachingAllocator(size_t max_cached_bytes, size_t min_cached_bytes)
    : max_cached_bytes_(max_cached_bytes), min_cached_bytes_(min_cached_bytes) {}

CachingAllocator::~CachingAllocator() { empty_cache(); }

size_t CachingAllocator::round_size(size_t nbytes) const {
  // Page granularity: outputs of one shape always land in the same bucket.
  // (Requests past 2^63 are refused before they get here, so this cannot wrap.)
  constexpr size_t kPage = 4096;
  return (nbytes + kPage - 1) / kPage * kPage;
}

namespace {
// Note [Caching up to the peak]
// A fixed bound on the cache stops reuse exactly where it matters most: a
// training step whose activations outgrow the bound (conv_tasnet_base on
// 4 x 4 s has 4.7 GB alive at the end of its forward) got back only the
// bound's 2 GiB of blocks at the next step, and every other output was fresh
// memory again, a page fault per 4 KiB (0.4-1.2M faults per step, most of the
// forward's CPU time on a VM where a fault costs ~20 us). So the default
// allocator's cache may also hold whatever keeps live + cached bytes within
// the peak of live bytes seen so far: the process never holds more than it
// already needed at its peak (or live + max_cached_bytes, the fixed bound),
// and a loop whose steps repeat their shapes reuses all of its blocks. A miss
// that would push live + cached over that evicts cached blocks first (as
// trim_locked chooses them); empty_cache() returns every cached block and
// restarts the peak at the live bytes. Private caches (CachingAllocatorGuard's)
// keep the fixed bound alone. The counts cover blocks of cacheable size, rounded to pages,
// and are guarded by the allocator's mutex.
struct LiveBytes {
  size_t live = 0;
  size_t peak = 0;
};
LiveBytes g_default_live;  // the default allocator's (default_caching_allocator)

LiveBytes* peak_tracking(const CachingAllocator* a) {
  return a == &default_caching_allocator() ? &g_default_live : nullptr;
}

// The most the cache may hold now; `live` is null for a fixed bound.
size_t cache_bound(const LiveBytes* live, size_t max_cached_bytes) {
  return live ? std::max(max_cached_bytes, live->peak - live->live) : max_cached_bytes;
}
}  // namespace

void* CachingAllocator::allocate(size_t nbytes) {
  if (nbytes < min_cached_bytes_) return aligned_malloc(nbytes);
  if (nbytes > static_cast<size_t>(INT64_MAX)) fail_out_of_memory(nbytes);
  const size_t size = round_size(nbytes);
  LiveBytes* live = peak_tracking(this);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live) {
      live->live += size;
      live->peak = std::max(live->peak, live->live);
    }
    auto it = free_blocks_.find(size);
    if (it != free_blocks_.end()) {
      void* p = it->second;
      free_blocks_.erase(it);
      cached_bytes_ -= size;
      ++hits_;
      return p;
    }
    ++misses_;
    // A fresh block: keep live + cached within the bound (Note [Caching up
    // to the peak]) by returning cached blocks of other sizes first.
    if (live) trim_locked(cache_bound(live, max_cached_bytes_));
  }
  if (void* p = try_aligned_malloc(size)) return p;
  // The system refused: the blocks this cache holds may be what it lacks.
  empty_cache();
  if (void* p = try_aligned_malloc(size)) return p;
  if (live) {
    std::lock_guard<std::mutex> lock(mutex_);
    live->live -= size;
  }
  fail_out_of_memory(nbytes);
}

void CachingAllocator::deallocate(void* ptr, size_t nbytes) {
  if (!ptr) return;
  if (nbytes < min_cached_bytes_) {
    std::free(ptr);
    return;
  }
  const size_t size = round_size(nbytes);
  LiveBytes* live = peak_tracking(this);
  std::lock_guard<std::mutex> lock(mutex_);
  if (live) live->live -= size;
  const size_t bound = cache_bound(live, max_cached_bytes_);
  if (size > bound) {
    std::free(ptr);
    return;
  }
  if (cached_bytes_ + size > bound) trim_locked(bound - size);
  free_blocks_.emplace(size, ptr);
  cached_bytes_ += size;
}

void CachingAllocator::trim_locked(size_t target) {
  // Evict the smallest block that covers the excess alone, else the largest
  // and repeat: every evicted byte is a page fault when its size is asked for
  // again, so evict as few bytes as the bound allows. (Largest-first dropped
  // ConvTasNet's one 65.5 MB mask block to make room for far smaller misses,
  // three times a step: docs/audio.md, "Where the margins went".)
  while (cached_bytes_ > target && !free_blocks_.empty()) {
    auto it = free_blocks_.lower_bound(cached_bytes_ - target);
    if (it == free_blocks_.end()) it = std::prev(it);
    std::free(it->second);
    cached_bytes_ -= it->first;
    free_blocks_.erase(it);
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  trim_locked(0);
  if (LiveBytes* live = peak_tracking(this)) live->peak = live->live;
}

void CachingAllocator::set_max_cached_bytes(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  max_cached_bytes_ = bytes;
  trim_locked(cache_bound(peak_tracking(this), max_cached_bytes_));
}

size_t CachingAllocator::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

namespace {
thread_local Allocator* t_guard_allocator = nullptr;
std::atomic<Allocator*> g_cpu_allocator{nullptr};
}  // namespace

CachingAllocator& default_caching_allocator() {
  // Never destroyed: storages may outlive static destruction order.
  static auto* allocator = new CachingAllocator();
  return *allocator;
}

CPUAllocator& plain_cpu_allocator() {
  static auto* allocator = new CPUAllocator();
  return *allocator;
}

Allocator* cpu_allocator() {
  if (t_guard_allocator) return t_guard_allocator;
  Allocator* a = g_cpu_allocator.load(std::memory_order_acquire);
  return a ? a : &default_caching_allocator();
}

void set_cpu_allocator(Allocator* allocator) {
  g_cpu_allocator.store(allocator, std::memory_order_release);
}

CachingAllocatorGuard::CachingAllocatorGuard(CachingAllocator* allocator)
    : previous_(t_guard_allocator) {
  EMBER_CHECK(allocator != nullptr, "CachingAllocatorGuard: allocator must not be null");
  t_guard_allocator = allocator;
}
CachingAllocatorGuard::~CachingAllocatorGuard() { t_guard_allocator = previous_; }

namespace {
// Allocators per (kind, device type, index); index slot kMaxIndices holds the
// allocator registered for every index of the type (index -1).
constexpr int kMaxIndices = 64;
constexpr int kAnyIndex = kMaxIndices;
constexpr int kNumKinds = 2;
std::atomic<Allocator*> g_device_allocators[kNumKinds][kNumDeviceTypes][kMaxIndices + 1] = {};

std::atomic<Allocator*>& allocator_slot(AllocatorKind kind, DeviceType type, int index) {
  return g_device_allocators[static_cast<int>(kind)][static_cast<int>(type)][index];
}
}  // namespace

Allocator* get_allocator(Device device, AllocatorKind kind) {
  if (kind == AllocatorKind::PinnedHost) {
    // Pinned memory is host memory: it belongs to the CPU device whatever
    // backend pins it, and plain CPU memory stands in where none does.
    Allocator* a = device.is_cpu() ? nullptr
                                   : allocator_slot(kind, device.type, kAnyIndex).load(std::memory_order_acquire);
    return a ? a : cpu_allocator();
  }
  if (device.is_cpu()) return cpu_allocator();
  Device d = resolve_device(device);
  EMBER_CHECK(d.index >= 0 && d.index < kMaxIndices, "allocate: device index ", d.index, " of ",
              device, " is out of range [0, ", kMaxIndices, ")");
  Allocator* a = allocator_slot(kind, d.type, d.index).load(std::memory_order_acquire);
  if (!a) a = allocator_slot(kind, d.type, kAnyIndex).load(std::memory_order_acquire);
  EMBER_CHECK(a != nullptr, "allocate: no allocator registered for device ", d,
              " (was Ember built with this backend, and is it linked?)");
  return a;
}

Allocator* find_pinned_host_allocator(DeviceType type) {
  if (type == DeviceType::CPU) return nullptr;
  return allocator_slot(AllocatorKind::PinnedHost, type, kAnyIndex).load(std::memory_order_acquire);
}

void register_allocator(Device device, Allocator* allocator, AllocatorKind kind) {
  EMBER_CHECK(!device.is_cpu(), "register_allocator: the CPU's allocator is set with set_cpu_allocator");
  EMBER_CHECK(device.index < kMaxIndices, "register_allocator: device index ", device.index,
              " is out of range [0, ", kMaxIndices, ")");
  EMBER_CHECK(kind != AllocatorKind::PinnedHost || device.index < 0,
              "register_allocator: pinned host memory is registered per device type, not for ", device);
  allocator_slot(kind, device.type, device.index < 0 ? kAnyIndex : device.index)
      .store(allocator, std::memory_order_release);
}

}  // namespace ember
