#pragma once
// Store semantics written once and run against every Store implementation
// (c10d's semantics: see docs/distributed.md "Stores").
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include <ember/core/error.h>
#include <ember/distributed/store.h>

namespace ember::testing {

// ember::Error thrown by f, with its message; fails the test when none was.
template <class F>
std::string store_error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ember::Error was thrown";
  return {};
}

// Runs the c10d store semantics on an empty store; `other` is a second handle
// on the same store (another client, another FileStore object on the file, or
// the same object where calls from several threads may overlap). Errors name
// keys as key_prefix + key (a PrefixStore names the full key).
inline void check_store_semantics(distributed::Store& store, distributed::Store& other,
                                  const std::string& key_prefix = "") {
  auto quoted = [&](const char* key) { return "'" + key_prefix + key + "'"; };
  using namespace std::chrono_literals;
  EXPECT_EQ(store.num_keys(), 0);
  store.set("a", "1");
  EXPECT_EQ(store.get("a"), "1");
  store.set("a", std::string("bytes\0with\xffnul", 14));
  EXPECT_EQ(store.get("a"), std::string("bytes\0with\xffnul", 14));
  store.set("empty", "");
  EXPECT_EQ(store.get("empty"), "");

  // add: a missing key counts as 0; values are decimal text.
  EXPECT_EQ(store.add("counter", 5), 5);
  EXPECT_EQ(store.add("counter", -7), -2);
  EXPECT_EQ(store.get("counter"), "-2");
  EXPECT_EQ(store.add("counter", 0), -2);
  EXPECT_NE(store_error_of([&] { store.add("empty", 1); }).find("not an integer"), std::string::npos);
  store.set("text", "12abc");
  const std::string add_error = store_error_of([&] { store.add("text", 1); });
  EXPECT_NE(add_error.find(quoted("text")), std::string::npos) << add_error;
  EXPECT_NE(add_error.find("12abc"), std::string::npos) << add_error;

  // compare_set: c10d's three cases.
  EXPECT_EQ(store.compare_set("cas", "", "first"), "first");      // missing + empty expected: set
  EXPECT_EQ(store.compare_set("cas", "wrong", "second"), "first");  // mismatch: unchanged
  EXPECT_EQ(store.compare_set("cas", "first", "second"), "second");  // match: swapped
  EXPECT_EQ(store.get("cas"), "second");
  EXPECT_EQ(store.compare_set("missing", "x", "y"), "x");  // missing + non-empty expected
  EXPECT_FALSE(store.check({"missing"}));

  EXPECT_TRUE(store.check({"a", "counter", "cas"}));
  EXPECT_FALSE(store.check({"a", "nope"}));
  EXPECT_TRUE(store.check({}));
  EXPECT_EQ(store.num_keys(), 5);  // a, empty, counter, text, cas
  EXPECT_TRUE(store.delete_key("text"));
  EXPECT_FALSE(store.delete_key("text"));
  EXPECT_FALSE(store.check({"text"}));
  EXPECT_EQ(store.num_keys(), 4);

  store.wait({"a", "cas"});  // present: returns at once
  store.wait({"a"}, 1ms);

  // A missing key: the error names it and the elapsed time.
  const auto start = std::chrono::steady_clock::now();
  const std::string timeout_error = store_error_of([&] { store.wait({"a", "late1", "late2"}, 150ms); });
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, 150ms);
  EXPECT_LT(elapsed, 5s);
  EXPECT_NE(timeout_error.find("timed out after "), std::string::npos) << timeout_error;
  EXPECT_NE(timeout_error.find("(timeout 150 ms)"), std::string::npos) << timeout_error;
  EXPECT_NE(timeout_error.find(quoted("late1") + ", " + quoted("late2")), std::string::npos) << timeout_error;
  EXPECT_EQ(timeout_error.find(quoted("a")), std::string::npos) << timeout_error;  // only the missing ones

  // get uses the store's timeout.
  const auto saved = store.timeout();
  store.set_timeout(100ms);
  const std::string get_error = store_error_of([&] { store.get("never"); });
  EXPECT_NE(get_error.find("key " + quoted("never")), std::string::npos) << get_error;
  EXPECT_NE(get_error.find("(timeout 100 ms)"), std::string::npos) << get_error;
  store.set_timeout(saved);
  // The store is still usable after a timeout.
  EXPECT_EQ(store.get("a"), std::string("bytes\0with\xffnul", 14));

  // A key set later (from another thread) wakes a waiter.
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    other.set("later", "here");
  });
  EXPECT_EQ(store.get("later"), "here");
  setter.join();
  EXPECT_EQ(other.get("cas"), "second");
  EXPECT_EQ(other.num_keys(), 5);
}

}  // namespace ember::testing
