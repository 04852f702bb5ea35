#include <ember/distributed/hash_store.h>

#include "store_util.h"

namespace ember::distributed {

void HashStore::set(const std::string& key, const std::string& value) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    map_[key] = value;
  }
  changed_.notify_all();
}

std::string HashStore::get(const std::string& key) {
  wait({key});
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t delta) {
  int64_t value;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(key);
    value = (it == map_.end() ? 0 : detail::parse_counter(it->second, "HashStore", key)) + delta;
    map_[key] = std::to_string(value);
  }
  changed_.notify_all();
  return value;
}

std::string HashStore::compare_set(const std::string& key, const std::string& expected,
                                   const std::string& desired) {
  std::string result;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(key);
    if (it == map_.end()) {
      if (!expected.empty()) return expected;
      map_[key] = desired;
      result = desired;
    } else {
      if (it->second == expected) it->second = desired;
      result = it->second;
    }
  }
  changed_.notify_all();
  return result;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& key : keys)
    if (!map_.count(key)) return false;
  return true;
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.erase(key) > 0;
}

int64_t HashStore::num_keys() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(map_.size());
}

void HashStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  auto missing = [&] {
    std::vector<std::string> out;
    for (const auto& key : keys)
      if (!map_.count(key)) out.push_back(key);
    return out;
  };
  if (!changed_.wait_until(lock, start + timeout, [&] { return missing().empty(); }))
    detail::throw_wait_timeout("HashStore", missing(), std::chrono::steady_clock::now() - start, timeout);
}

}  // namespace ember::distributed
