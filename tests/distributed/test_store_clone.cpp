// Store::clone: every store's clone is another handle on the same keys (the
// shared semantics run through a store and its clone), a TCPStore clone has a
// connection of its own (it works while the original blocks in wait), a
// PrefixStore clone keeps the prefix, a FileStore clone keeps the file alive,
// and a store without clone() says so.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>

#include <ember/distributed/file_store.h>
#include <ember/distributed/hash_store.h>
#include <ember/distributed/prefix_store.h>
#include <ember/distributed/tcp_store.h>

#include "store_testing.h"
#include "temp_dir.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::testing::check_store_semantics;
using ember::testing::store_error_of;
using ember::testing::TempDir;

TEST(StoreClone, HashStoreClonesShareTheMap) {
  HashStore store(2s);
  std::shared_ptr<Store> clone = store.clone();
  EXPECT_EQ(clone->timeout(), 2s);
  check_store_semantics(store, *clone);
  // A clone of a clone is one more handle on the same map.
  store.set("late", "1");
  EXPECT_EQ(clone->clone()->get("late"), "1");
}

TEST(StoreClone, PrefixStoreClonesKeepThePrefix) {
  auto base = std::make_shared<HashStore>();
  PrefixStore store("group_3", base);
  std::shared_ptr<Store> clone = store.clone();
  auto* prefixed = dynamic_cast<PrefixStore*>(clone.get());
  ASSERT_NE(prefixed, nullptr);
  EXPECT_EQ(prefixed->prefix(), "group_3");
  EXPECT_NE(prefixed->underlying_store(), base);  // a clone of the underlying store, not the same handle
  check_store_semantics(store, *clone, "group_3/");
  clone->set("through_clone", "x");
  EXPECT_EQ(base->get("group_3/through_clone"), "x");
}

TEST(StoreClone, FileStoreCloneOpensTheFileAgainAndCountsAsAUser) {
  TempDir dir("ember_filestore_clone");
  const std::string path = dir / "store";
  auto store = std::make_unique<FileStore>(path, 10s);
  std::shared_ptr<Store> clone = store->clone();
  EXPECT_EQ(clone->timeout(), 10s);
  check_store_semantics(*store, *clone);
  clone->set("k", "v");
  store.reset();
  EXPECT_TRUE(std::filesystem::exists(path));  // the clone still uses it
  EXPECT_EQ(clone->get("k"), "v");
  clone.reset();
  EXPECT_FALSE(std::filesystem::exists(path));  // the last user removed it
}

TEST(StoreClone, TCPStoreCloneIsAConnectionOfItsOwn) {
  TCPStore master("127.0.0.1", {.port = 0, .is_master = true, .timeout = 10s});
  std::shared_ptr<Store> clone = master.clone();
  auto* tcp = dynamic_cast<TCPStore*>(clone.get());
  ASSERT_NE(tcp, nullptr);
  EXPECT_EQ(tcp->port(), master.port());
  EXPECT_EQ(tcp->host(), "127.0.0.1");
  check_store_semantics(master, *clone);
  // Calls on one TCPStore are serialized: while a thread blocks in wait on
  // the master's handle, the clone still sets the key that ends the wait.
  std::atomic<bool> released{false};
  std::thread waiter([&] {
    master.wait({"go"}, 10s);
    released = true;
  });
  std::this_thread::sleep_for(100ms);  // the waiter is parked on the server now
  const auto start = std::chrono::steady_clock::now();
  clone->set("go", "1");
  waiter.join();
  EXPECT_TRUE(released.load());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(StoreClone, ACloneOfABrokenTCPStoreIsRefused) {
  auto server = std::make_unique<TCPStoreServer>("127.0.0.1", 0);
  const uint16_t port = server->port();
  TCPStore client("127.0.0.1", {.port = port, .timeout = 5s});
  server.reset();
  store_error_of([&] { client.get("anything"); });  // the connection breaks here
  const std::string error = store_error_of([&] { client.clone(); });
  EXPECT_NE(error.find("TCPStore::clone: the connection to the server at 127.0.0.1:" + std::to_string(port) +
                       " failed earlier"),
            std::string::npos)
      << error;
}

// A Store of a user: everything forwarded to a HashStore, no clone().
class ForwardingStore final : public Store {
 public:
  void set(const std::string& key, const std::string& value) override { inner_.set(key, value); }
  std::string get(const std::string& key) override { return inner_.get(key); }
  int64_t add(const std::string& key, int64_t delta) override { return inner_.add(key, delta); }
  std::string compare_set(const std::string& key, const std::string& expected, const std::string& desired) override {
    return inner_.compare_set(key, expected, desired);
  }
  bool check(const std::vector<std::string>& keys) override { return inner_.check(keys); }
  bool delete_key(const std::string& key) override { return inner_.delete_key(key); }
  int64_t num_keys() override { return inner_.num_keys(); }
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    inner_.wait(keys, timeout);
  }

 private:
  HashStore inner_;
};

TEST(StoreClone, AStoreWithoutCloneSaysSo) {
  ForwardingStore store;
  EXPECT_NE(store_error_of([&] { store.clone(); }).find("Store::clone: this store type cannot be cloned"),
            std::string::npos);
  PrefixStore prefixed("p", std::make_shared<ForwardingStore>());
  EXPECT_NE(store_error_of([&] { prefixed.clone(); }).find("cannot be cloned"), std::string::npos);
}

}  // namespace
