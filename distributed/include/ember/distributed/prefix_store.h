#pragma once
// PrefixStore: a view of another store in which every key is "<prefix>/<key>"
// (c10d's PrefixStore), so that groups and subsystems sharing one store do
// not collide. num_keys() counts the whole underlying store, as c10d's does.
#include <memory>

#include <ember/distributed/store.h>

namespace ember::distributed {

class PrefixStore final : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);

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
  // Also sets the underlying store's timeout (c10d forwards it too).
  void set_timeout(std::chrono::milliseconds timeout) override;
  // The same prefix on a clone of the underlying store (c10d's).
  std::shared_ptr<Store> clone() override;

  const std::string& prefix() const { return prefix_; }
  const std::shared_ptr<Store>& underlying_store() const { return store_; }

 private:
  std::string joined(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> joined(const std::vector<std::string>& keys) const;

  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace ember::distributed
