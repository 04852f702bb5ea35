// TCPStore: semantics, many clients from threads and processes, blocking
// waits across processes, timeouts and a server that goes away.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <memory>
#include <thread>

#include <ember/distributed/tcp_store.h>

#include "multiprocess.h"
#include "store_testing.h"

namespace {

using namespace std::chrono_literals;
using ember::distributed::TCPStore;
using ember::distributed::TCPStoreOptions;
using ember::distributed::TCPStoreServer;
using ember::testing::env_int;
using ember::testing::env_string;
using ember::testing::free_port;
using ember::testing::Ranks;
using ember::testing::store_error_of;

TCPStore client_of(uint16_t port, std::chrono::milliseconds timeout = 10s) {
  return TCPStore("127.0.0.1", {.port = port, .timeout = timeout});
}

std::unique_ptr<TCPStore> worker_client() {
  return std::make_unique<TCPStore>("127.0.0.1",
                                    TCPStoreOptions{.port = static_cast<uint16_t>(env_int("STORE_PORT")),
                                                    .timeout = 20s});
}

std::map<std::string, std::string> port_env(uint16_t port) { return {{"STORE_PORT", std::to_string(port)}}; }

TEST(TCPStore, SemanticsThroughTheMasterAndASecondClient) {
  TCPStore master("127.0.0.1", {.port = 0, .is_master = true, .timeout = 10s});
  ASSERT_NE(master.port(), 0);
  TCPStore other = client_of(master.port());
  ember::testing::check_store_semantics(master, other);
}

TEST(TCPStore, StandaloneServer) {
  TCPStoreServer server("127.0.0.1", 0);
  TCPStore a = client_of(server.port());
  TCPStore b = client_of(server.port());
  a.set("k", "v");
  EXPECT_EQ(b.get("k"), "v");
  EXPECT_EQ(b.num_keys(), 1);  // the clients' own bookkeeping is not counted
}

TEST(TCPStore, LargeValuesRoundTrip) {
  TCPStoreServer server;
  TCPStore a = client_of(server.port());
  std::string big(8 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 2654435761u >> 24);
  a.set("big", big);
  EXPECT_EQ(client_of(server.port()).get("big"), big);
}

TEST(TCPStore, ManyClientsFromThreadsAddConcurrently) {
  TCPStoreServer server;
  constexpr int kClients = 24, kAdds = 50;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int c = 0; c < kClients; ++c)
    threads.emplace_back([&, c] {
      try {
        TCPStore store = client_of(server.port());
        for (int i = 0; i < kAdds; ++i) store.add("sum", c);
        store.set("done/" + std::to_string(c), "1");
      } catch (...) {
        ++failures;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  TCPStore check = client_of(server.port());
  EXPECT_EQ(check.add("sum", 0), kAdds * kClients * (kClients - 1) / 2);
  EXPECT_EQ(check.num_keys(), kClients + 1);
}

TEST(TCPStore, WaitsOfOneClientDoNotBlockOthers) {
  TCPStoreServer server;
  TCPStore waiter = client_of(server.port());
  TCPStore setter = client_of(server.port());
  std::thread t([&] {
    // While `waiter` is parked on the server, other clients keep working.
    std::this_thread::sleep_for(30ms);
    setter.set("x", "1");
    EXPECT_EQ(setter.add("n", 1), 1);
    setter.set("go", "now");
  });
  const auto start = std::chrono::steady_clock::now();
  waiter.wait({"go", "x"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  t.join();
  EXPECT_EQ(waiter.get("go"), "now");
}

EMBER_DIST_WORKER(tcp_store_add_worker) {
  auto store = worker_client();
  for (int i = 0; i < 100; ++i) store->add("sum", rank + 1);
}

TEST(TCPStore, AddFromFourProcessesSums) {
  TCPStoreServer server;
  Ranks ranks("tcp_store_add_worker", 4, port_env(server.port()));
  ASSERT_TRUE(ranks.all_succeed(30s));
  EXPECT_EQ(client_of(server.port()).add("sum", 0), 100 * (1 + 2 + 3 + 4));
}

// Every rank tries to become the leader with compare_set; each records whom it
// saw win.
EMBER_DIST_WORKER(tcp_store_leader_worker) {
  auto store = worker_client();
  store->add("ready", 1);
  store->wait({"start"});
  const std::string winner = store->compare_set("leader", "", std::to_string(rank));
  store->set("saw/" + std::to_string(rank), winner);
}

TEST(TCPStore, CompareSetElectsExactlyOneLeaderAcrossProcesses) {
  TCPStoreServer server;
  TCPStore store = client_of(server.port());
  Ranks ranks("tcp_store_leader_worker", 4, port_env(server.port()));
  for (auto start = std::chrono::steady_clock::now(); store.add("ready", 0) < 4;) {
    ASSERT_LT(std::chrono::steady_clock::now() - start, 30s);
    std::this_thread::sleep_for(2ms);
  }
  store.set("start", "1");  // all compete at once
  ASSERT_TRUE(ranks.all_succeed(30s));
  const std::string leader = store.get("leader");
  EXPECT_TRUE(leader == "0" || leader == "1" || leader == "2" || leader == "3") << leader;
  for (int r = 0; r < 4; ++r) EXPECT_EQ(store.get("saw/" + std::to_string(r)), leader);
}

// A ring: each rank publishes its value and reads its left neighbour's, which
// may not be set yet (get blocks until it is).
EMBER_DIST_WORKER(tcp_store_ring_worker) {
  auto store = worker_client();
  const int left = (rank + world_size - 1) % world_size;
  if (rank == 0) std::this_thread::sleep_for(100ms);  // others block on rank 0's key meanwhile
  store->set("value/" + std::to_string(rank), std::to_string(rank * rank));
  const std::string got = store->get("value/" + std::to_string(left));
  EMBER_CHECK(got == std::to_string(left * left), "rank ", rank, " read ", got, " from rank ", left);
  store->set("checked/" + std::to_string(rank), got);
}

TEST(TCPStore, BlockingGetsAcrossFourProcesses) {
  TCPStoreServer server;
  Ranks ranks("tcp_store_ring_worker", 4, port_env(server.port()));
  ASSERT_TRUE(ranks.all_succeed(30s));
  TCPStore store = client_of(server.port());
  for (int r = 0; r < 4; ++r) EXPECT_EQ(store.get("checked/" + std::to_string(r)), std::to_string(((r + 3) % 4) * ((r + 3) % 4)));
}

EMBER_DIST_WORKER(tcp_store_wait_then_ack_worker) {
  auto store = worker_client();
  store->wait({"go/" + std::to_string(rank), "go/all"});
  store->set("ack/" + std::to_string(rank), store->get("go/" + std::to_string(rank)));
}

TEST(TCPStore, WaitOnKeysThatAnotherProcessSetsLater) {
  TCPStoreServer server;
  Ranks ranks("tcp_store_wait_then_ack_worker", 2, port_env(server.port()));
  TCPStore store = client_of(server.port());
  std::this_thread::sleep_for(150ms);
  EXPECT_FALSE(store.check({"ack/0"}));  // still waiting
  store.set("go/0", "zero");
  store.set("go/1", "one");
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(store.check({"ack/0"}));  // go/all missing
  store.set("go/all", "");
  ASSERT_TRUE(ranks.all_succeed(30s));
  EXPECT_EQ(store.get("ack/0"), "zero");
  EXPECT_EQ(store.get("ack/1"), "one");
}

// Runs the server (as master) in its own process until killed.
EMBER_DIST_WORKER(tcp_store_master_worker) {
  TCPStore master("127.0.0.1", {.port = static_cast<uint16_t>(env_int("STORE_PORT")), .is_master = true,
                                .timeout = 20s});
  master.set("master_up", "1");
  std::this_thread::sleep_for(60s);
}

TEST(TCPStore, ClientOfAServerThatWentAwayGetsAnErrorNamingTheAddress) {
  const uint16_t port = free_port();
  Ranks ranks("tcp_store_master_worker", 1, port_env(port));
  TCPStore client = client_of(port);  // retries until the master listens
  EXPECT_EQ(client.get("master_up"), "1");
  ranks.kill(0, SIGKILL);
  EXPECT_EQ(ranks.wait(0, 10s).signal, SIGKILL);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  const std::string error = store_error_of([&] { client.get("master_up"); });
  EXPECT_NE(error.find(address), std::string::npos) << error;
  // A server restarted on the same port has lost the keys: the old client
  // stays failed instead of reconnecting.
  TCPStoreServer restarted("127.0.0.1", port);
  const std::string again = store_error_of([&] { client.set("k", "v"); });
  EXPECT_NE(again.find(address), std::string::npos) << again;
  EXPECT_NE(again.find("failed earlier"), std::string::npos) << again;
  EXPECT_EQ(client_of(port).num_keys(), 0);  // a new client works with the new server
}

TEST(TCPStore, AWaitInProgressFailsWhenTheServerDies) {
  const uint16_t port = free_port();
  Ranks ranks("tcp_store_master_worker", 1, port_env(port));
  TCPStore client = client_of(port, 60s);
  client.wait({"master_up"});
  std::thread killer([&] {
    std::this_thread::sleep_for(100ms);
    ranks.kill(0, SIGKILL);
  });
  const auto start = std::chrono::steady_clock::now();
  const std::string error = store_error_of([&] { client.wait({"never"}); });
  killer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);  // not the 60 s timeout
  EXPECT_NE(error.find("closed the connection"), std::string::npos) << error;
  EXPECT_NE(error.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << error;
}

EMBER_DIST_WORKER(tcp_store_parked_worker) {
  auto store = worker_client();
  store->set("parked/" + std::to_string(rank), "");
  store->wait({"never"});
}

TEST(TCPStore, ServerOutlivesClientsKilledWhileWaiting) {
  TCPStoreServer server;
  TCPStore store = client_of(server.port());
  {
    Ranks ranks("tcp_store_parked_worker", 3, port_env(server.port()));
    store.wait({"parked/0", "parked/1", "parked/2"});
    std::this_thread::sleep_for(20ms);  // their waits reach the server
    ranks.kill(0, SIGKILL);
    ranks.kill(1, SIGKILL);
    store.set("never", "now");  // wakes rank 2, and maybe answers the dead ones
    EXPECT_TRUE(ranks.wait(2, 10s).ok()) << ranks.log(2);
  }
  EXPECT_EQ(store.add("n", 1), 1);
  EXPECT_EQ(client_of(server.port()).get("never"), "now");
}

TEST(TCPStore, ConnectingToNothingTimesOutNamingTheAddress) {
  const uint16_t port = free_port();
  const auto start = std::chrono::steady_clock::now();
  const std::string error = store_error_of([&] { client_of(port, 200ms); });
  EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);
  EXPECT_NE(error.find("could not connect to the server at 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << error;
}

TEST(TCPStore, BadArguments) {
  EXPECT_NE(store_error_of([] { TCPStore("127.0.0.1", {.port = 0}); }).find("needs the server's port"),
            std::string::npos);
  EXPECT_NE(store_error_of([] { TCPStore("", {.port = 1}); }).find("host is empty"), std::string::npos);
  TCPStoreServer server;
  EXPECT_NE(store_error_of([&] { TCPStoreServer second("127.0.0.1", server.port()); }).find("cannot listen on"),
            std::string::npos);
}

EMBER_DIST_WORKER(tcp_store_join_worker) { auto store = worker_client(); }

TEST(TCPStore, MasterWaitsForWorldSizeWorkers) {
  const uint16_t port = free_port();
  Ranks ranks("tcp_store_join_worker", 2, port_env(port));
  TCPStore master("127.0.0.1", {.port = port, .is_master = true, .world_size = 3, .timeout = 20s});
  ASSERT_TRUE(ranks.all_succeed(30s));
  // Nobody else joins: the master's constructor times out naming the count.
  const std::string error = store_error_of([] {
    TCPStore lonely("127.0.0.1", {.port = 0, .is_master = true, .world_size = 2, .timeout = 200ms});
  });
  EXPECT_NE(error.find("waiting for 2 workers"), std::string::npos) << error;
  EXPECT_NE(error.find("1 did"), std::string::npos) << error;
}

}  // namespace
