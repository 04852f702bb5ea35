// HashStore and PrefixStore, and the store semantics shared by every Store.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include <ember/distributed/hash_store.h>
#include <ember/distributed/prefix_store.h>

#include "store_testing.h"

namespace {

using namespace std::chrono_literals;
using ember::distributed::HashStore;
using ember::distributed::PrefixStore;
using ember::testing::check_store_semantics;
using ember::testing::store_error_of;

TEST(HashStore, Semantics) {
  HashStore store;
  check_store_semantics(store, store);
}

TEST(HashStore, AddFromManyThreadsSums) {
  HashStore store;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) store.add("sum", t + 1);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(store.add("sum", 0), 200 * 36);
}

TEST(HashStore, RejectsNonPositiveTimeouts) {
  EXPECT_NE(store_error_of([] { HashStore store(0ms); }).find("timeout must be positive"), std::string::npos);
  HashStore store;
  EXPECT_NE(store_error_of([&] { store.set_timeout(-1ms); }).find("timeout must be positive"), std::string::npos);
}

TEST(PrefixStore, Semantics) {
  auto base = std::make_shared<HashStore>();
  PrefixStore store("group0", base);
  check_store_semantics(store, store, "group0/");
}

TEST(PrefixStore, KeysLiveUnderThePrefixInTheUnderlyingStore) {
  auto base = std::make_shared<HashStore>();
  PrefixStore a("a", base);
  PrefixStore b("b", base);
  a.set("k", "from a");
  b.set("k", "from b");
  EXPECT_EQ(base->get("a/k"), "from a");
  EXPECT_EQ(base->get("b/k"), "from b");
  EXPECT_EQ(a.get("k"), "from a");
  EXPECT_EQ(a.add("n", 2), 2);
  EXPECT_EQ(base->add("a/n", 1), 3);
  EXPECT_FALSE(b.check({"n"}));
  EXPECT_EQ(a.num_keys(), 3);  // counts the whole store, as c10d's
  // Nested prefixes join with '/'.
  auto inner = std::make_shared<PrefixStore>("outer", base);
  PrefixStore nested("inner", inner);
  nested.set("x", "1");
  EXPECT_EQ(base->get("outer/inner/x"), "1");
  // Timeouts name the prefixed key.
  const std::string error = store_error_of([&] { a.wait({"absent"}, 20ms); });
  EXPECT_NE(error.find("'a/absent'"), std::string::npos) << error;
  a.set_timeout(1234ms);
  EXPECT_EQ(base->timeout(), 1234ms);
}

TEST(PrefixStore, RejectsANullStore) {
  EXPECT_NE(store_error_of([] { PrefixStore p("x", nullptr); }).find("underlying store is null"), std::string::npos);
}

}  // namespace
