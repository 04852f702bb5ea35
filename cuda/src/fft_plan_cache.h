#pragma once
// The host half of the cuFFT plan cache (Note [cuFFT plan cache] in
// kernels/fft.cpp): the plan key and an LRU map, free of CUDA headers so that
// tests/cuda/test_fft.cpp checks them on machines without a GPU.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace ember::cuda::detail {

// What a cuFFT plan is made for: cufftMakePlanMany64's arguments (unit
// element strides: the executor hands cuFFT contiguous buffers). Entries of
// n/inembed/onembed past `rank` are 0.
struct FFTPlanKey {
  int type = 0;  // the cufftType value (CUFFT_C2C, CUFFT_R2C, ... CUFFT_Z2D)
  int rank = 0;  // 1 to 3
  std::array<int64_t, 3> n{}, inembed{}, onembed{};
  int64_t idist = 0, odist = 0, batch = 0;

  friend bool operator==(const FFTPlanKey&, const FFTPlanKey&) = default;
};

struct FFTPlanKeyHash {
  size_t operator()(const FFTPlanKey& k) const {
    size_t h = std::hash<int64_t>{}(k.type * 4 + k.rank);
    auto mix = [&h](int64_t v) { h ^= std::hash<int64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (int i = 0; i < 3; ++i) mix(k.n[i]), mix(k.inembed[i]), mix(k.onembed[i]);
    mix(k.idist), mix(k.odist), mix(k.batch);
    return h;
  }
};

// PyTorch's default cuFFT plan cache capacity (CUDA >= 10).
inline constexpr int64_t kDefaultFFTPlanCacheMaxSize = 4096;

// A thread-safe LRU map from Key to shared Values. get() returns the cached
// value (now the most recently used) or makes one; beyond max_size the least
// recently used entries are dropped. A value handed out stays alive while its
// user holds it, even if the cache drops it meanwhile (shared_ptr).
template <class Key, class Value, class Hash>
class LruCache {
 public:
  explicit LruCache(int64_t max_size) : max_size_(max_size) {}

  // `make(key)` returns a std::shared_ptr<Value>; called outside the lock (a
  // cuFFT plan takes a while to make); if two threads race on a miss, the
  // first insert wins and both get that value. With max_size 0 nothing is
  // kept: every call makes a fresh value.
  template <class Make>
  std::shared_ptr<Value> get(const Key& key, const Make& make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto hit = find_locked(key)) return hit;
    }
    std::shared_ptr<Value> made = make(key);
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto hit = find_locked(key)) return hit;
    if (max_size_ == 0) return made;
    order_.emplace_front(key, made);
    index_[key] = order_.begin();
    trim_locked();
    return made;
  }

  int64_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int64_t>(order_.size());
  }
  int64_t max_size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return max_size_;
  }
  // Drops the least recently used entries beyond the new size.
  void set_max_size(int64_t max_size) {
    std::lock_guard<std::mutex> lock(mutex_);
    max_size_ = max_size;
    trim_locked();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    order_.clear();
  }
  // Whether key is cached (without touching its recency): for tests.
  bool contains(const Key& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return index_.count(key) != 0;
  }

 private:
  std::shared_ptr<Value> find_locked(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);  // now the most recently used
    return it->second->second;
  }
  void trim_locked() {
    while (static_cast<int64_t>(order_.size()) > max_size_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  mutable std::mutex mutex_;
  int64_t max_size_;
  std::list<std::pair<Key, std::shared_ptr<Value>>> order_;
  std::unordered_map<Key, typename decltype(order_)::iterator, Hash> index_;
};

}  // namespace ember::cuda::detail
