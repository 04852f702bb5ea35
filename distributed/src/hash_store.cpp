#include <ember/distributed/hash_store.h>

#include "store_util.h"

namespace ember::distributed {

HashStore::HashStore(std::chrono::milliseconds timeout) : Store(timeout), map_(std::make_shared<Map>()) {}

HashStore::HashStore(std::shared_ptr<Map> map, std::chrono::milliseconds timeout)
    : Store(timeout), map_(std::move(map)) {}

std::shared_ptr<Store> HashStore::clone() {
  // The constructor is private: no make_shared.
  return std::shared_ptr<Store>(new HashStore(map_, timeout()));
}

void HashStore::set(const std::string& key, const std::string& value) {
  {
    std::lock_guard<std::mutex> lock(map_->mutex);
    map_->entries[key] = value;
  }
  map_->changed.notify_all();
}

std::string HashStore::get(const std::string& key) {
  wait({key});
  std::lock_guard<std::mutex> lock(map_->mutex);
  return map_->entries.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t delta) {
  int64_t value;
  {
    std::lock_guard<std::mutex> lock(map_->mutex);
    auto it = map_->entries.find(key);
    value = (it == map_->entries.end() ? 0 : detail::parse_counter(it->second, "HashStore", key)) + delta;
    map_->entries[key] = std::to_string(value);
  }
  map_->changed.notify_all();
  return value;
}

std::string HashStore::compare_set(const std::string& key, const std::string& expected,
                                   const std::string& desired) {
  std::string result;
  {
    std::lock_guard<std::mutex> lock(map_->mutex);
    auto it = map_->entries.find(key);
    if (it == map_->entries.end()) {
      if (!expected.empty()) return expected;
      map_->entries[key] = desired;
      result = desired;
    } else {
      if (it->second == expected) it->second = desired;
      result = it->second;
    }
  }
  map_->changed.notify_all();
  return result;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(map_->mutex);
  for (const auto& key : keys)
    if (!map_->entries.count(key)) return false;
  return true;
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(map_->mutex);
  return map_->entries.erase(key) > 0;
}

int64_t HashStore::num_keys() {
  std::lock_guard<std::mutex> lock(map_->mutex);
  return static_cast<int64_t>(map_->entries.size());
}

void HashStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(map_->mutex);
  auto missing = [&] {
    std::vector<std::string> out;
    for (const auto& key : keys)
      if (!map_->entries.count(key)) out.push_back(key);
    return out;
  };
  if (!map_->changed.wait_until(lock, start + timeout, [&] { return missing().empty(); }))
    detail::throw_wait_timeout("HashStore", missing(), std::chrono::steady_clock::now() - start, timeout);
}

}  // namespace ember::distributed
