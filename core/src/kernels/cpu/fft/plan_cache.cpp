// The plan cache: a small LRU per (plan type, precision) keyed by length.
// Direction is not part of the key: one plan runs both ways (plan.h). Plans
// are built outside the lock (building a Bluestein or four-step plan asks the
// cache for its sub-plans); if two threads race on a miss, the first insert wins.
#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "kernels/cpu/fft/plan.h"

namespace ember::fft::detail {
namespace {

inline constexpr size_t kPlanCacheCapacity = 64;

template <class V>
class LruCache {
 public:
  template <class Make>
  std::shared_ptr<const V> get(int64_t key, const Make& make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto hit = find_locked(key)) return hit;
    }
    std::shared_ptr<const V> made = make(key);
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto hit = find_locked(key)) return hit;
    order_.emplace_front(key, made);
    index_[key] = order_.begin();
    if (order_.size() > kPlanCacheCapacity) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return made;
  }

 private:
  std::shared_ptr<const V> find_locked(int64_t key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);  // now the most recently used
    return it->second->second;
  }

  std::mutex mutex_;
  std::list<std::pair<int64_t, std::shared_ptr<const V>>> order_;
  std::unordered_map<int64_t, typename decltype(order_)::iterator> index_;
};

}  // namespace

template <class T>
std::shared_ptr<const Plan<T>> get_plan(int64_t n) {
  static LruCache<Plan<T>> cache;
  return cache.get(n, make_plan<T>);
}

template <class T>
std::shared_ptr<const RealPlan<T>> get_real_plan(int64_t n) {
  static LruCache<RealPlan<T>> cache;
  return cache.get(n, make_real_plan<T>);
}

template std::shared_ptr<const Plan<float>> get_plan<float>(int64_t);
template std::shared_ptr<const Plan<double>> get_plan<double>(int64_t);
template std::shared_ptr<const RealPlan<float>> get_real_plan<float>(int64_t);
template std::shared_ptr<const RealPlan<double>> get_real_plan<double>(int64_t);

}  // namespace ember::fft::detail
