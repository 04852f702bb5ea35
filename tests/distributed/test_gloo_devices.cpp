// ProcessGroupGloo on several Gloo devices (Note [Gloo devices]):
// GLOO_SOCKET_IFNAME=lo,lo and the devices option (127.0.0.1 and 127.0.0.2)
// give one device each, every collective and send/recv works across them
// (collective n on device n % 2), and the pairs of the second device are
// live TCP connections on its address. Errors name a bad list entry.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <thread>
#include <sstream>

#include <ember/distributed/hash_store.h>
#include <ember/distributed/init.h>
#include <ember/distributed/prefix_store.h>
#include <ember/distributed/process_group_gloo.h>
#include <ember/distributed/tcp_store.h>
#include <ember/ops/factories.h>

#include "gloo_testing.h"
#include "multiprocess.h"
#include "store_testing.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::DType;
using ember::Tensor;
using ember::testing::check_values;
using ember::testing::env_int;
using ember::testing::env_string;
using ember::testing::Ranks;
using ember::testing::store_env;
using ember::testing::store_error_of;
using ember::testing::tensor_of;

// Established TCP connections of this process with 127.0.0.2 at either end
// (/proc/net/tcp lists addresses as little-endian hex: 0200007F).
int connections_on_127_0_0_2() {
  std::set<std::string> inodes;
  if (DIR* fds = ::opendir("/proc/self/fd")) {
    while (dirent* entry = ::readdir(fds)) {
      char target[256] = {};
      const std::string link = std::string("/proc/self/fd/") + entry->d_name;
      const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
      const std::string text(target, n > 0 ? static_cast<size_t>(n) : 0);
      if (text.rfind("socket:[", 0) == 0) inodes.insert(text.substr(8, text.size() - 9));
    }
    ::closedir(fds);
  }
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);  // the header
  int count = 0;
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
    const bool on_it = local.rfind("0200007F:", 0) == 0 || remote.rfind("0200007F:", 0) == 0;
    if (state == "01" && on_it && inodes.count(inode)) ++count;
  }
  return count;
}

// Every kind of collective, several times (so on both devices), and a ring of
// send/recv with tags 0..3 (both devices as well).
void exercise(ProcessGroupGloo& group) {
  const int rank = static_cast<int>(group.rank()), n = static_cast<int>(group.size());
  for (int i = 0; i < 4; ++i) {
    Tensor t = tensor_of({double(rank + i), 1.0}, DType::Float64);
    group.all_reduce(t)->wait();
    check_values(t, {double(n * (n - 1) / 2 + n * i), double(n)}, "all_reduce");
    const int root = i % n;
    Tensor b = tensor_of({rank == root ? 7.0 * (i + 1) : 0.0}, DType::Int32);
    group.broadcast(b, {.root_rank = root})->wait();
    check_values(b, {7.0 * (i + 1)}, "broadcast");
    std::vector<Tensor> gathered;
    for (int r = 0; r < n; ++r) gathered.push_back(ember::empty({1}, ember::TensorOptions(DType::Int64)));
    group.all_gather(gathered, tensor_of({double(10 * rank + i)}, DType::Int64))->wait();
    for (int r = 0; r < n; ++r) check_values(gathered[r], {double(10 * r + i)}, "all_gather");
    group.barrier()->wait();
    Tensor received = ember::empty({2}, ember::TensorOptions(DType::Float32));
    const int from = (rank + n - 1) % n, to = (rank + 1) % n;
    auto recv = group.recv(received, from, /*tag=*/i);
    auto send = group.send(tensor_of({double(rank), double(i)}, DType::Float32), to, /*tag=*/i);
    send->wait();
    recv->wait();
    check_values(received, {double(from), double(i)}, "recv");
  }
}

EMBER_DIST_WORKER(gloo_devices_worker) {
  const std::string mode = env_string("DEVICE_MODE");
  std::shared_ptr<ProcessGroupGloo> group;
  std::shared_ptr<TCPStore> store;
  if (mode == "env") {  // GLOO_SOCKET_IFNAME=lo,lo
    store = ember::testing::init_gloo_from_test_store(rank, world_size);
    group = std::dynamic_pointer_cast<ProcessGroupGloo>(default_process_group());
  } else {
    store = std::make_shared<TCPStore>(
        "127.0.0.1", TCPStoreOptions{.port = static_cast<uint16_t>(env_int("STORE_PORT")), .timeout = 20s});
    group = std::make_shared<ProcessGroupGloo>(
        std::make_shared<PrefixStore>("devices", store), rank, world_size,
        ProcessGroupGlooOptions{.timeout = 20s, .devices = {{.hostname = "127.0.0.1"}, {.hostname = "127.0.0.2"}}});
  }
  const std::vector<std::string> names = group->device_names();
  EMBER_CHECK(names.size() == 2, "rank ", rank, ": ", names.size(), " devices");
  const std::string second = mode == "env" ? "127.0.0.1" : "127.0.0.2";
  EMBER_CHECK(names[0].find("127.0.0.1") != std::string::npos && names[1].find(second) != std::string::npos,
              "rank ", rank, ": devices ", names[0], ", ", names[1]);
  exercise(*group);
  if (mode == "hosts") {
    // A full mesh on the second device: a live connection to every other rank.
    const int live = connections_on_127_0_0_2();
    EMBER_CHECK(live >= world_size - 1, "rank ", rank, ": ", live, " connections on 127.0.0.2, expected at least ",
                world_size - 1);
  }
  // Nobody leaves before the others are done with the pairs.
  store->add("done", 1);
  while (store->add("done", 0) < world_size) std::this_thread::sleep_for(5ms);
  group.reset();
  if (mode == "env") destroy_process_group();
}

TEST(GlooDevices, GlooSocketIfnameListsTwoDevices) {
  TCPStoreServer server;
  auto env = store_env(server);
  env["DEVICE_MODE"] = "env";
  env["GLOO_SOCKET_IFNAME"] = "lo,lo";
  Ranks ranks("gloo_devices_worker", 2, env);
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST(GlooDevices, TheDevicesOptionSpreadsPairsOverTwoAddresses) {
  TCPStoreServer server;
  auto env = store_env(server);
  env["DEVICE_MODE"] = "hosts";
  Ranks ranks("gloo_devices_worker", 3, env);
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST(GlooDevices, OneRankGroupOnTwoDevices) {
  ProcessGroupGloo group(std::make_shared<HashStore>(), 0, 1,
                         {.timeout = 10s, .devices = {{.hostname = "127.0.0.1"}, {.interface = "lo"}}});
  EXPECT_EQ(group.device_names().size(), 2u);
  Tensor t = tensor_of({1.5, 2}, DType::Float32);
  for (int i = 0; i < 3; ++i) group.all_reduce(t)->wait();
  check_values(t, {1.5, 2}, "all_reduce of one rank");
}

TEST(GlooDevices, ABadEntryOfTheListIsNamed) {
  const std::string empty = store_error_of(
      [] { ProcessGroupGloo group(std::make_shared<HashStore>(), 0, 1, {.timeout = 10s, .interface = "lo,,lo"}); });
  EXPECT_NE(empty.find("ProcessGroupGloo: the interface option 'lo,,lo' has an empty interface name"),
            std::string::npos)
      << empty;
  const std::string unknown = store_error_of([] {
    ProcessGroupGloo group(std::make_shared<HashStore>(), 0, 1, {.timeout = 10s, .interface = "lo,ember_no_if1"});
  });
  EXPECT_NE(unknown.find("cannot create a TCP device for interface ember_no_if1: no such network interface"),
            std::string::npos)
      << unknown;
}

}  // namespace
