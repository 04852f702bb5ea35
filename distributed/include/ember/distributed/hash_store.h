#pragma once
// HashStore: an in-process Store (c10d's HashStore), for threads of one
// process and for tests. Its clones share the map.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <ember/distributed/store.h>

namespace ember::distributed {

class HashStore final : public Store {
 public:
  explicit HashStore(std::chrono::milliseconds timeout = kDefaultStoreTimeout);

  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  // Another handle on the same map.
  std::shared_ptr<Store> clone() override;

 private:
  struct Map {
    std::mutex mutex;
    std::condition_variable changed;
    std::unordered_map<std::string, std::string> entries;
  };
  HashStore(std::shared_ptr<Map> map, std::chrono::milliseconds timeout);

  std::shared_ptr<Map> map_;
};

}  // namespace ember::distributed
