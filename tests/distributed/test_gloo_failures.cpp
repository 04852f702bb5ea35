// ProcessGroupGloo and init_process_group: async Work, the init methods,
// timeouts, a rank killed mid-collective, and argument errors.
#include <gtest/gtest.h>

#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include <ember/distributed/hash_store.h>
#include <ember/distributed/init.h>
#include <ember/distributed/process_group_gloo.h>
#include <ember/distributed/tcp_store.h>

#include "gloo_testing.h"
#include "multiprocess.h"
#include "store_testing.h"
#include "temp_dir.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::DType;
using ember::Tensor;
using ember::testing::env_int;
using ember::testing::env_string;
using ember::testing::init_gloo_from_test_store;
using ember::testing::store_env;
using ember::testing::Ranks;
using ember::testing::store_error_of;
using ember::testing::tensor_of;
using ember::testing::values_of;

void expect_contains(const std::string& text, const std::string& part) {
  EMBER_CHECK(text.find(part) != std::string::npos, "expected '", part, "' in: ", text);
}

// Rank 1 enters the all_reduce late: rank 0's Work is pending meanwhile, a
// short wait on it times out, and a full wait then succeeds.
EMBER_DIST_WORKER(gloo_async_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  Tensor t = tensor_of({double(rank + 1), double(10 * (rank + 1))}, DType::Float64);
  if (rank == 1) std::this_thread::sleep_for(400ms);
  auto work = all_reduce(t, ReduceOp::SUM, /*async_op=*/true);
  EMBER_CHECK(work != nullptr, "async all_reduce returned no Work");
  EMBER_CHECK(work->op() == "all_reduce" && work->sequence_number() == 0, "Work names ", work->op(), " #",
              work->sequence_number());
  if (rank == 0) {
    EMBER_CHECK(!work->is_completed(), "the all_reduce completed before rank 1 entered it");
    std::string error;
    try {
      work->wait(50ms);
    } catch (const ember::Error& e) {
      error = e.what();
    }
    expect_contains(error, "all_reduce (sequence number 0) did not complete within 50 ms");
  }
  EMBER_CHECK(work->wait(), "wait() returns true");
  EMBER_CHECK(work->is_completed() && work->is_success() && !work->exception(), "the Work should have succeeded");
  EMBER_CHECK(work->result().size() == 1 && work->result()[0].is_same(t), "result() is the input tensor");
  const auto v = values_of(t);
  EMBER_CHECK(v[0] == 3 && v[1] == 30, "all_reduce gave ", v[0], ", ", v[1]);
  // A second collective gets the next sequence number; barrier too.
  auto second = barrier(/*async_op=*/true);
  EMBER_CHECK(second->sequence_number() == 1, "barrier's sequence number is ", second->sequence_number());
  second->wait();
  destroy_process_group();
}

TEST(ProcessGroupGloo, AsyncWorkAndWaitWithATimeout) {
  TCPStoreServer server;
  Ranks ranks("gloo_async_worker", 2, store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

// init_process_group through env://, tcp:// and file://.
EMBER_DIST_WORKER(gloo_init_method_worker) {
  const std::string method = env_string("INIT_METHOD");
  InitOptions options{.timeout = 20s};
  if (method == "env") {
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(world_size).c_str(), 1);
  } else {
    options.init_method = method;
    options.rank = rank;
    options.world_size = world_size;
  }
  EMBER_CHECK(!is_initialized(), "initialized before init_process_group");
  auto group = init_process_group("gloo", options);
  EMBER_CHECK(is_initialized() && group == default_process_group(), "the default group is not the one returned");
  EMBER_CHECK(get_rank() == rank && get_world_size() == world_size, "get_rank ", get_rank(), " get_world_size ",
              get_world_size());
  EMBER_CHECK(group->backend_name() == "gloo", "backend ", group->backend_name());
  Tensor t = tensor_of({double(rank + 1)}, DType::Int64);
  all_reduce(t);
  EMBER_CHECK(values_of(t)[0] == world_size * (world_size + 1) / 2, "sum is ", values_of(t)[0]);
  group.reset();
  destroy_process_group();
  EMBER_CHECK(!is_initialized(), "still initialized after destroy_process_group");
}

TEST(InitProcessGroup, EnvInitMethod) {
  const uint16_t port = ember::testing::free_port();
  Ranks ranks("gloo_init_method_worker", 3,
              {{"INIT_METHOD", "env"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", std::to_string(port)}});
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST(InitProcessGroup, TcpInitMethod) {
  const uint16_t port = ember::testing::free_port();
  Ranks ranks("gloo_init_method_worker", 2, {{"INIT_METHOD", "tcp://127.0.0.1:" + std::to_string(port)}});
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST(InitProcessGroup, TcpInitMethodOnTheInterfaceOfGlooSocketIfname) {
  const uint16_t port = ember::testing::free_port();
  Ranks ranks("gloo_init_method_worker", 2,
              {{"INIT_METHOD", "tcp://127.0.0.1:" + std::to_string(port)}, {"GLOO_SOCKET_IFNAME", "lo"}});
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST(InitProcessGroup, FileInitMethodRemovesItsFile) {
  ember::testing::TempDir dir("ember_init_file");
  const std::string path = dir / "rendezvous";
  Ranks ranks("gloo_init_method_worker", 2, {{"INIT_METHOD", "file://" + path}});
  EXPECT_TRUE(ranks.all_succeed(60s));
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Rank 1 never enters the all_reduce: rank 0's fails after its timeout with an
// error naming the op, rank, sequence number and tensor.
EMBER_DIST_WORKER(gloo_timeout_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  if (rank == 0) {
    Tensor t = tensor_of({1, 2, 3, 4}, DType::Float32);
    auto group = default_process_group();
    const auto start = std::chrono::steady_clock::now();
    std::string error;
    try {
      group->all_reduce(t, {.reduce_op = ReduceOp::MAX, .timeout = 300ms})->wait();
    } catch (const ember::Error& e) {
      error = e.what();
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EMBER_CHECK(elapsed >= 290ms && elapsed < 10s, "the timeout took ",
                std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), " ms");
    expect_contains(error, "ProcessGroupGloo: all_reduce (MAX, tensor [4] float32) on rank 0 of 2 (sequence number 0) failed after ");
    expect_contains(error, "Timed out");
    std::fprintf(stderr, "timeout error: %s\n", error.c_str());
    store->set("rank0_done", "");
  } else {
    store->wait({"rank0_done"});
  }
}

TEST(ProcessGroupGloo, ARankThatNeverArrivesTimesOutWithADescriptiveError) {
  TCPStoreServer server;
  Ranks ranks("gloo_timeout_worker", 2, store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

// Rank 1 dies (SIGKILL) while rank 0 is inside an all_reduce: rank 0 gets an
// error quickly, not a hang until its 20 s timeout.
EMBER_DIST_WORKER(gloo_killed_peer_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  if (rank == 1) {
    store->wait({"rank0_in_collective"});
    std::this_thread::sleep_for(100ms);
    ::raise(SIGKILL);
  }
  Tensor t = tensor_of({1, 2, 3}, DType::Float64);
  auto work = default_process_group()->all_reduce(t);
  store->set("rank0_in_collective", "");
  const auto start = std::chrono::steady_clock::now();
  std::string error;
  try {
    work->wait();
  } catch (const ember::Error& e) {
    error = e.what();
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EMBER_CHECK(elapsed < 10s, "the error took ", std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(),
              " ms");
  expect_contains(error, "ProcessGroupGloo: all_reduce (SUM, tensor [3] float64) on rank 0 of 2 (sequence number 0) failed");
  std::fprintf(stderr, "peer-killed error: %s\n", error.c_str());
}

TEST(ProcessGroupGloo, ARankKilledDuringACollectiveGivesTheOthersAnError) {
  TCPStoreServer server;
  Ranks ranks("gloo_killed_peer_worker", 2, store_env(server));
  const auto& exits = ranks.wait(60s);
  EXPECT_TRUE(exits[0].ok()) << exits[0].describe() << "\n" << ranks.log(0);
  EXPECT_EQ(exits[1].signal, SIGKILL) << exits[1].describe() << "\n" << ranks.log(1);
}

// Rank 1 never starts: rank 0's rendezvous fails after the timeout naming the
// key it waited for.
TEST(ProcessGroupGloo, RendezvousTimesOutWhenARankNeverComes) {
  auto store = std::make_shared<HashStore>(300ms);
  const std::string error = store_error_of([&] { ProcessGroupGloo group(store, 0, 2, {.timeout = 300ms}); });
  EXPECT_NE(error.find("ProcessGroupGloo: the rendezvous of rank 0 of 2 failed after"), std::string::npos) << error;
  EXPECT_NE(error.find("timed out after"), std::string::npos) << error;
}

TEST(ProcessGroupGloo, AnUnknownInterfaceIsNamed) {
  const std::string error = store_error_of([] {
    ProcessGroupGloo group(std::make_shared<HashStore>(), 0, 1, {.timeout = 10s, .interface = "ember_no_if0"});
  });
  EXPECT_NE(error.find("cannot create a TCP device for interface ember_no_if0"), std::string::npos) << error;
}

// One rank in-process (world size 1) for the argument checks.
TEST(ProcessGroupGloo, ArgumentErrors) {
  ProcessGroupGloo group(std::make_shared<HashStore>(), 0, 1, {.timeout = 10s});
  Tensor f = tensor_of({1.5, 2}, DType::Float32);
  EXPECT_NE(store_error_of([&] { group.all_reduce(f, {.reduce_op = ReduceOp::BXOR}); })
                .find("ReduceOp BXOR does not apply to float32"),
            std::string::npos);
  Tensor c = tensor_of({1, 2}, DType::Complex64);
  EXPECT_NE(store_error_of([&] { group.all_reduce(c, {.reduce_op = ReduceOp::MAX}); })
                .find("ReduceOp MAX does not apply to complex64"),
            std::string::npos);
  Tensor b = tensor_of({1, 0}, DType::Bool);
  EXPECT_NE(store_error_of([&] { group.all_reduce(b, {.reduce_op = ReduceOp::AVG}); })
                .find("ReduceOp AVG does not apply to bool"),
            std::string::npos);

  EXPECT_NE(store_error_of([&] { group.broadcast(f, {.root_rank = 1}); }).find("root rank 1 is outside [0, 1)"),
            std::string::npos);
  Tensor undefined;
  EXPECT_NE(store_error_of([&] { group.broadcast(undefined); }).find("the tensor is undefined"), std::string::npos);
  EXPECT_NE(store_error_of([] { ProcessGroupGloo g(nullptr, 0, 1); }).find("the store is null"), std::string::npos);
  EXPECT_NE(store_error_of([] { ProcessGroupGloo g(std::make_shared<HashStore>(), 2, 2); }).find("rank 2 is outside"),
            std::string::npos);
  // A group of one: the collectives return the input.
  group.all_reduce(f, {.reduce_op = ReduceOp::AVG})->wait();
  EXPECT_EQ(values_of(f), (std::vector<double>{1.5, 2}));
  group.barrier()->wait();
}

TEST(InitProcessGroup, ArgumentErrors) {
  EXPECT_FALSE(is_initialized());
  EXPECT_NE(store_error_of([] { get_rank(); }).find("get_rank: the default process group has not been initialized"),
            std::string::npos);
  EXPECT_NE(store_error_of([] { init_process_group("mpi"); }).find("unknown backend 'mpi'"), std::string::npos);
  auto store = std::make_shared<HashStore>();
  EXPECT_NE(store_error_of([&] {
              init_process_group("gloo", {.init_method = "tcp://127.0.0.1:1", .rank = 0, .world_size = 1, .store = store});
            }).find("and a store were both given"),
            std::string::npos);
  EXPECT_NE(store_error_of([] { init_process_group("gloo", {.init_method = "tcp://127.0.0.1:1"}); })
                .find("needs rank and world_size"),
            std::string::npos);
  EXPECT_NE(store_error_of([] { init_process_group("gloo", {.init_method = "udp://x", .rank = 0, .world_size = 1}); })
                .find("unknown init_method 'udp://x'"),
            std::string::npos);
  EXPECT_NE(store_error_of([] { init_process_group("gloo", {.init_method = "tcp://host", .rank = 0, .world_size = 1}); })
                .find("has no host:port"),
            std::string::npos);
  // env:// without MASTER_ADDR.
  const char* saved = std::getenv("MASTER_ADDR");
  const std::string saved_value = saved ? saved : "";
  ::unsetenv("MASTER_ADDR");
  EXPECT_NE(store_error_of([] { init_process_group("gloo"); }).find("environment variable MASTER_ADDR expected"),
            std::string::npos);
  if (saved) ::setenv("MASTER_ADDR", saved_value.c_str(), 1);
  // A group of one through a store; a second init is refused.
  init_process_group("GLOO", {.rank = 0, .world_size = 1, .timeout = 10s, .store = store});
  EXPECT_EQ(get_world_size(), 1);
  EXPECT_NE(store_error_of([&] { init_process_group("gloo", {.rank = 0, .world_size = 1, .store = store}); })
                .find("already initialized"),
            std::string::npos);
  Tensor t = tensor_of({7}, DType::Int32);
  broadcast(t, 0);
  EXPECT_EQ(values_of(t)[0], 7);
  destroy_process_group();
  EXPECT_FALSE(is_initialized());
  EXPECT_NE(store_error_of([] { destroy_process_group(); }).find("no default process group"), std::string::npos);
}

}  // namespace
