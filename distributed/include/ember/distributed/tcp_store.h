#pragma once
// TCPStore: a Store served over TCP (c10d's TCPStore). One process runs the
// server (inside a rank with is_master, or a standalone TCPStoreServer);
// every TCPStore is a client of it.
//
// The server is one thread polling all its connections (Note [TCPStore
// server] in tcp_store.cpp): any number of clients, blocking waits answered
// when the keys arrive, no thread per client. A client whose server went away
// gets an ember::Error naming host:port on its next call, and stays failed: a
// server restarted on the same port has lost the keys, so reconnecting to it
// silently would be wrong.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <ember/distributed/store.h>

namespace ember::distributed {

// A TCPStore server with no client of its own. Listens on host:port (port 0:
// any free port, see port()) until destroyed.
class TCPStoreServer {
 public:
  explicit TCPStoreServer(const std::string& host = "127.0.0.1", uint16_t port = 0);
  ~TCPStoreServer();
  TCPStoreServer(const TCPStoreServer&) = delete;
  TCPStoreServer& operator=(const TCPStoreServer&) = delete;

  uint16_t port() const;
  const std::string& host() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

struct TCPStoreOptions {
  // Port of the server; with is_master, 0 picks a free one (see TCPStore::port()).
  uint16_t port = 0;
  // Start the server in this process (and connect to it).
  bool is_master = false;
  // With world_size and wait_for_workers, the master's constructor returns
  // once world_size clients (itself included) have connected, as c10d's.
  std::optional<int64_t> world_size = std::nullopt;
  bool wait_for_workers = true;
  // Timeout of connecting, get and wait.
  std::chrono::milliseconds timeout = kDefaultStoreTimeout;
};

class TCPStore final : public Store {
 public:
  // Connects to host:port, retrying until the timeout while nothing listens
  // there yet (the master may start later); starts the server first with
  // is_master.
  TCPStore(std::string host, const TCPStoreOptions& options = {});
  ~TCPStore() override;

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

  // A new client connection to the same server (c10d's TCPStore::clone): it
  // does not count as a worker, and it does not keep the server alive (a
  // master's server goes with the master's TCPStore).
  std::shared_ptr<Store> clone() override;

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }

 private:
  TCPStore(std::string host, const TCPStoreOptions& options, bool count_in);
  struct Reply;
  Reply request(uint8_t op, const std::vector<std::string>& args,
                std::chrono::milliseconds reply_timeout);
  std::string address() const;
  void count_in_and_wait_for_workers(const TCPStoreOptions& options, std::chrono::steady_clock::time_point start);

  std::string host_;
  uint16_t port_ = 0;
  std::unique_ptr<TCPStoreServer> server_;
  std::mutex mutex_;  // one request at a time on the connection
  int fd_ = -1;
  bool broken_ = false;  // the connection failed; every later call fails too
};

}  // namespace ember::distributed
