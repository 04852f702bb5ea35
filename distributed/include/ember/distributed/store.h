#pragma once
// ember::distributed::Store: the key-value store that ranks rendezvous through,
// with torch.distributed's (c10d's) semantics. Keys are strings; values are
// byte strings (any bytes, std::string as the container).
//
// Implementations: TCPStore (tcp_store.h), FileStore (file_store.h), HashStore
// (hash_store.h) and PrefixStore (prefix_store.h). All are safe to use from
// several threads of one process.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed {

// c10d's default store timeout: 300 s.
inline constexpr std::chrono::milliseconds kDefaultStoreTimeout{300'000};

class Store {
 public:
  explicit Store(std::chrono::milliseconds timeout = kDefaultStoreTimeout);
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Sets key to value, replacing any previous value; wakes waiters on key.
  virtual void set(const std::string& key, const std::string& value) = 0;
  // The value of key; blocks until the key exists or the store's timeout
  // passes (then ember::Error naming the key and the elapsed time).
  virtual std::string get(const std::string& key) = 0;
  // Adds delta to the integer stored (as decimal text) under key, a missing
  // key counting as 0, and returns the new value. A value that is not an
  // integer raises ember::Error.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // Atomically: when key holds expected (or is missing and expected is
  // empty), sets it to desired. Returns the value after the operation; for a
  // missing key with a non-empty expected, returns expected (c10d's answer).
  virtual std::string compare_set(const std::string& key, const std::string& expected,
                                  const std::string& desired) = 0;
  // True when every key exists; never blocks.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  // Removes key; true when it existed.
  virtual bool delete_key(const std::string& key) = 0;
  // How many keys the store holds (internal bookkeeping keys excluded).
  virtual int64_t num_keys() = 0;
  // Blocks until every key exists; ember::Error naming the missing keys and
  // the elapsed time after `timeout` (the store's timeout without it).
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;

  // Another handle on the same store (c10d's Store::clone), with this one's
  // timeout: what one handle sets, the other sees. A TCPStore clone is a new
  // client connection to the same server, so that a thread can use it while
  // another blocks in get/wait on this handle (whose calls are serialized);
  // a PrefixStore clones its underlying store; a FileStore opens the file
  // again; a HashStore shares the map. The default raises ember::Error.
  virtual std::shared_ptr<Store> clone();

  std::chrono::milliseconds timeout() const { return timeout_; }
  // The timeout of later get/wait calls (and of a TCPStore's connecting).
  virtual void set_timeout(std::chrono::milliseconds timeout);

 private:
  std::chrono::milliseconds timeout_;
};

}  // namespace ember::distributed
