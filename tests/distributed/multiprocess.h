#pragma once
// The multi-process harness of the distributed tests: a test starts real rank
// processes, each one a fresh exec of this test binary that runs a registered
// worker function instead of the tests (Note [Worker processes] in
// multiprocess.cpp), waits for them with a timeout, and always kills and
// reaps what is left, so that no test leaks a process or hangs.
//
//   EMBER_DIST_WORKER(add_worker) {  // (int rank, int world_size)
//     TCPStore store("127.0.0.1", {.port = env_port("STORE_PORT")});
//     store.add("sum", rank + 1);
//   }
//   Ranks ranks("add_worker", 4, {{"STORE_PORT", std::to_string(server.port())}});
//   EXPECT_TRUE(ranks.all_succeed(10s));
//
// A worker fails by throwing (EMBER_CHECK); its output goes to a log per rank
// that all_succeed() prints on failure.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace ember::testing {

using WorkerFunction = void (*)(int rank, int world_size);
bool register_worker(const char* name, WorkerFunction function);

#define EMBER_DIST_WORKER(name)                                                             \
  static void name##_body(int rank, int world_size);                                        \
  [[maybe_unused]] static const bool name##_registered =                                    \
      ::ember::testing::register_worker(#name, name##_body);                                \
  static void name##_body([[maybe_unused]] int rank, [[maybe_unused]] int world_size)

// How a rank process ended.
struct RankExit {
  bool exited = false;     // exited normally with `code`
  int code = -1;
  int signal = 0;          // killed by this signal
  bool timed_out = false;  // still running at the deadline (then killed)
  bool ok() const { return exited && code == 0; }
  std::string describe() const;
};

class Ranks {
 public:
  // Starts world_size processes running worker `worker` as ranks 0..n-1, with
  // env (and EMBER_DIST_WORKER, EMBER_DIST_RANK, EMBER_DIST_WORLD_SIZE) added
  // to this process's environment.
  Ranks(const std::string& worker, int world_size, const std::map<std::string, std::string>& env = {});
  // Kills (SIGKILL) and reaps every rank still running.
  ~Ranks();
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  int size() const { return static_cast<int>(pids_.size()); }
  pid_t pid(int rank) const { return pids_.at(rank); }
  // Sends sig to a running rank.
  void kill(int rank, int sig);
  // Waits until every rank ended or the timeout passed; ranks still running
  // then are killed and reported as timed out.
  const std::vector<RankExit>& wait(std::chrono::milliseconds timeout);
  // Waits for one rank only.
  const RankExit& wait(int rank, std::chrono::milliseconds timeout);
  // The rank's stdout and stderr so far.
  std::string log(int rank) const;
  // wait(), then success when every rank exited with 0; the failure names
  // each failed rank with its exit and its log.
  ::testing::AssertionResult all_succeed(std::chrono::milliseconds timeout);

 private:
  bool reap(int rank, bool block);
  void kill_all();

  TempDir logs_{"ember_dist_ranks"};
  std::vector<pid_t> pids_;
  std::vector<bool> done_;
  std::vector<RankExit> exits_;
};

// The integer in environment variable name (a worker's parameters); throws
// when it is unset.
int64_t env_int(const char* name);
std::string env_string(const char* name);

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0).
uint16_t free_port();

}  // namespace ember::testing
