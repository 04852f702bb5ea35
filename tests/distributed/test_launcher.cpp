// ember-run: the environment its workers see, restarts (RESTART_COUNT), the
// restart budget and the failure summary, a worker killed by a signal, signals
// to the agent, and two agents on 127.0.0.1 and 127.0.0.2 forming one world
// whose workers all_reduce over Gloo.
#include <gtest/gtest.h>

#include <signal.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <ember/core/tensor.h>
#include <ember/distributed/init.h>
#include <ember/distributed/tcp_store.h>

#include "agent_process.h"
#include "gloo_testing.h"
#include "launch_options.h"
#include "multiprocess.h"
#include "temp_dir.h"

namespace {

using namespace std::chrono_literals;
using ember::testing::AgentProcess;
using ember::testing::TempDir;
using ember::testing::wait_for_file;
namespace launcher = ember::distributed::launcher;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// key=value lines of a file.
std::map<std::string, std::string> read_env_file(const std::string& path) {
  std::map<std::string, std::string> vars;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return vars;
}

// A worker in sh that writes its environment to <dir>/env_<RANK>_<RESTART_COUNT>.
std::string env_dump_script(const std::string& dir) {
  std::string script;
  for (const char* name : {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
                           "MASTER_ADDR", "MASTER_PORT", "RESTART_COUNT", "TORCHELASTIC_RUN_ID"})
    script += std::string("echo ") + name + "=$" + name + "; ";
  return "{ " + script + "} > " + dir + "/env_${RANK}_${RESTART_COUNT}";
}

TEST(LaunchOptions, ParsesTorchrunFlags) {
  const auto o = launcher::parse_launch_options(
      {"ember-run", "--nproc-per-node", "4", "--nnodes=2:3", "--node-rank", "1", "--rdzv-endpoint", "h:29500",
       "--rdzv-id", "job", "--rdzv-conf", "join_timeout=5,last_call_timeout=0.5", "--max-restarts", "3",
       "--monitor-interval", "0.5", "prog", "--nproc-per-node", "7"});
  EXPECT_EQ(o.nproc_per_node, 4);
  EXPECT_EQ(o.min_nodes, 2);
  EXPECT_EQ(o.max_nodes, 3);
  EXPECT_EQ(o.node_rank, 1);
  EXPECT_EQ(o.rdzv_endpoint, "h:29500");
  EXPECT_EQ(o.rdzv_id, "job");
  EXPECT_EQ(o.join_timeout_s, 5);
  EXPECT_EQ(o.last_call_timeout_s, 0.5);
  EXPECT_EQ(o.max_restarts, 3);
  EXPECT_EQ(o.monitor_interval_s, 0.5);
  // Everything from the program on is the program's.
  EXPECT_EQ(o.program, (std::vector<std::string>{"prog", "--nproc-per-node", "7"}));
}

TEST(LaunchOptions, BadFlagsNameTheFlagAndValue) {
  auto error_of = [](std::vector<std::string> args) {
    try {
      launcher::parse_launch_options(args);
    } catch (const ember::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of({"ember-run", "--nproc-per-node", "0", "p"}).find("--nproc-per-node must be an integer >= 1, got '0'"),
            std::string::npos);
  EXPECT_NE(error_of({"ember-run", "--nnodes", "3:2", "--rdzv-endpoint", "h:1", "p"}).find("MIN exceeds MAX"),
            std::string::npos);
  EXPECT_NE(error_of({"ember-run", "--nnodes", "2", "p"}).find("needs --rdzv-endpoint"), std::string::npos);
  EXPECT_NE(error_of({"ember-run", "--frobnicate", "p"}).find("unknown flag --frobnicate"), std::string::npos);
  EXPECT_NE(error_of({"ember-run", "--nproc-per-node", "2"}).find("no program to run"), std::string::npos);
  EXPECT_NE(error_of({"ember-run", "--rdzv-conf", "timeout=3", "p"}).find("unknown --rdzv-conf key 'timeout'"),
            std::string::npos);
}

TEST(Launcher, WorkersSeeTheirEnvironment) {
  TempDir dir("ember_run_env");
  AgentProcess agent({"--nproc-per-node", "3", "--rdzv-id", "envjob", "--log-dir", dir / "logs", "sh", "-c",
                      env_dump_script(dir.path().string())});
  ASSERT_EQ(agent.wait(20s), 0) << agent.output();
  std::string master_port;
  for (int rank = 0; rank < 3; ++rank) {
    auto vars = read_env_file(dir / ("env_" + std::to_string(rank) + "_0"));
    EXPECT_EQ(vars["RANK"], std::to_string(rank));
    EXPECT_EQ(vars["LOCAL_RANK"], std::to_string(rank));
    EXPECT_EQ(vars["WORLD_SIZE"], "3");
    EXPECT_EQ(vars["LOCAL_WORLD_SIZE"], "3");
    EXPECT_EQ(vars["GROUP_RANK"], "0");
    EXPECT_EQ(vars["GROUP_WORLD_SIZE"], "1");
    EXPECT_EQ(vars["MASTER_ADDR"], "127.0.0.1");
    EXPECT_EQ(vars["RESTART_COUNT"], "0");
    EXPECT_EQ(vars["TORCHELASTIC_RUN_ID"], "envjob");
    ASSERT_FALSE(vars["MASTER_PORT"].empty());
    if (rank == 0) master_port = vars["MASTER_PORT"];
    EXPECT_EQ(vars["MASTER_PORT"], master_port) << "every rank gets the same master";
    // The per-rank log file exists for each rank.
    EXPECT_TRUE(std::filesystem::exists(dir / ("logs/round_0/rank_" + std::to_string(rank) + ".log")));
  }
}

TEST(Launcher, RestartsTheGroupAfterAFailureAndCountsRestarts) {
  TempDir dir("ember_run_restart");
  // Rank 1 fails on the first run only; on the restart every rank must see
  // RESTART_COUNT=1.
  const std::string script = env_dump_script(dir.path().string()) +
                             "; if [ $RANK = 1 ] && [ $RESTART_COUNT = 0 ]; then echo first run fails; exit 3; fi";
  AgentProcess agent({"--nproc-per-node", "2", "--max-restarts", "3", "--log-dir", dir / "logs", "sh", "-c", script});
  ASSERT_EQ(agent.wait(20s), 0) << agent.output();
  const std::string out = agent.output();
  EXPECT_NE(out.find("round 0 failed: rank 1 (local rank 1 on node 0, 127.0.0.1) exited with code 3; restarting the "
                     "group (restart 1 of 3, shared by all nodes)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("round 1: every worker succeeded"), std::string::npos) << out;
  for (int rank = 0; rank < 2; ++rank) EXPECT_EQ(read_env_file(dir / ("env_" + std::to_string(rank) + "_1"))["RESTART_COUNT"], "1");
  EXPECT_FALSE(std::filesystem::exists(dir / "env_0_2")) << "no third round";
  EXPECT_EQ(read_file(dir / "logs/round_0/rank_1.log"), "first run fails\n");
}

TEST(Launcher, SpentBudgetEndsWithASummaryOfTheFirstFailure) {
  TempDir dir("ember_run_budget");
  // Rank 1 always fails after some output; rank 0 would run for a minute and
  // must be stopped each time.
  const std::string script =
      "if [ $RANK = 1 ]; then for k in 1 2 3 4 5 6 7 8 9 10 11 12; do echo line $k of round $RESTART_COUNT; done; "
      "exit 7; fi; sleep 60";
  const auto start = std::chrono::steady_clock::now();
  AgentProcess agent({"--nproc-per-node", "2", "--max-restarts", "2", "--log-dir", dir / "logs", "sh", "-c", script});
  EXPECT_EQ(agent.wait(20s), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s) << "rank 0 was not stopped";
  const std::string out = agent.output();
  const std::string expected = "ember-run: the job failed after 2 restarts (budget 2, shared by all nodes)\n"
                               "first failure of round 2: rank 1 (local rank 1 on node 0, 127.0.0.1) exited with "
                               "code 7\n  log: " + dir / "logs/round_2/rank_1.log" + "\n  last lines:\n";
  EXPECT_NE(out.find(expected), std::string::npos) << out;
  // The last 10 lines of the log, not the first two.
  EXPECT_NE(out.find("    line 3 of round 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("    line 12 of round 2\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("    line 2 of round 2\n"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "logs/round_3"));
}

TEST(Launcher, AWorkerKilledByASignalIsReportedWithTheSignal) {
  TempDir dir("ember_run_signal");
  const std::string script = "if [ $RANK = 0 ]; then echo about to die; kill -KILL $$; fi; sleep 60";
  const auto start = std::chrono::steady_clock::now();
  AgentProcess agent({"--nproc-per-node", "3", "--log-dir", dir / "logs", "sh", "-c", script});
  EXPECT_EQ(agent.wait(20s), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  const std::string out = agent.output();
  EXPECT_NE(out.find("the job failed after 0 restarts (budget 0, shared by all nodes)"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 0 (local rank 0 on node 0, 127.0.0.1) killed by signal 9 (SIGKILL)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("    about to die\n"), std::string::npos) << out;
}

TEST(Launcher, SignalsToTheAgentReachTheWorkers) {
  TempDir dir("ember_run_forward");
  const std::string d = dir.path().string();
  const std::string script = "trap 'echo TERM > " + d + "/term_$RANK; exit 0' TERM; touch " + d +
                             "/started_$RANK; while :; do sleep 0.02; done";
  AgentProcess agent({"--nproc-per-node", "2", "--log-dir", dir / "logs", "sh", "-c", script});
  ASSERT_TRUE(wait_for_file(dir / "started_0", 10s) && wait_for_file(dir / "started_1", 10s)) << agent.output();
  agent.kill(SIGTERM);
  EXPECT_EQ(agent.wait(20s), 128 + SIGTERM) << agent.output();
  EXPECT_EQ(read_file(dir / "term_0"), "TERM\n");
  EXPECT_EQ(read_file(dir / "term_1"), "TERM\n");
  EXPECT_NE(agent.output().find("got signal 15: forwarding it to the workers"), std::string::npos) << agent.output();
}

TEST(Launcher, ARoundOfMinMaxNodesClosesAfterTheLastCall) {
  TempDir dir("ember_run_last_call");
  const std::string endpoint = "127.0.0.1:" + std::to_string(ember::testing::free_port());
  // --nnodes 1:2 with one agent: the round closes last_call_timeout after the
  // first node joined, with 1 node.
  const auto start = std::chrono::steady_clock::now();
  AgentProcess agent({"--nproc-per-node", "2", "--nnodes", "1:2", "--rdzv-endpoint", endpoint, "--rdzv-conf",
                      "last_call_timeout=0.3", "--log-dir", dir / "logs", "sh", "-c",
                      env_dump_script(dir.path().string())});
  ASSERT_EQ(agent.wait(20s), 0) << agent.output();
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_EQ(read_env_file(dir / "env_1_0")["WORLD_SIZE"], "2");
  EXPECT_EQ(read_env_file(dir / "env_1_0")["GROUP_WORLD_SIZE"], "1");
}

TEST(Launcher, TooFewNodesWithinTheJoinTimeoutIsAnError) {
  TempDir dir("ember_run_join_timeout");
  const std::string endpoint = "127.0.0.1:" + std::to_string(ember::testing::free_port());
  AgentProcess agent({"--nproc-per-node", "1", "--nnodes", "2", "--rdzv-endpoint", endpoint, "--rdzv-id", "lonely",
                      "--rdzv-conf", "join_timeout=0.3", "--log-dir", dir / "logs", "true"});
  EXPECT_EQ(agent.wait(20s), 1);
  EXPECT_NE(agent.output().find("ember-run: rendezvous 'lonely' round 0: only 1 of at least 2 nodes joined within the "
                                "join timeout of 0.3 s"),
            std::string::npos)
      << agent.output();
  EXPECT_FALSE(std::filesystem::exists(dir / "logs/round_0")) << "no worker started";
}

TEST(Launcher, ANodeJoiningAFullRoundIsRefused) {
  TempDir dir("ember_run_late");
  const std::string endpoint = "127.0.0.1:" + std::to_string(ember::testing::free_port());
  const std::string d = dir.path().string();
  AgentProcess first({"--nproc-per-node", "1", "--nnodes", "1", "--rdzv-endpoint", endpoint, "--rdzv-id", "late",
                      "--log-dir", dir / "logs1", "sh", "-c", "touch " + d + "/started; sleep 1"});
  ASSERT_TRUE(wait_for_file(dir / "started", 10s)) << first.output();
  AgentProcess late({"--nproc-per-node", "1", "--nnodes", "1", "--rdzv-endpoint", endpoint, "--rdzv-id", "late",
                     "--local-addr", "127.0.0.2", "--log-dir", dir / "logs2", "true"});
  EXPECT_EQ(late.wait(20s), 1);
  EXPECT_NE(late.output().find("ember-run: rendezvous 'late' round 0 closed with 1 nodes (the most --nnodes allows) "
                               "before this node joined (as node 2)"),
            std::string::npos)
      << late.output();
  EXPECT_EQ(first.wait(20s), 0) << first.output();
}

// Note [Scale-up]: a job of 1:2 nodes runs with one; a second node joins it:
// the first node's workers stop and both nodes start round 1 with a world of
// 2, RESTART_COUNT still 0 (a budget of 0 restarts does not end the job).
TEST(Launcher, ANodeJoiningARunningJobScalesItUp) {
  TempDir dir("ember_run_scale_up");
  const std::string endpoint = "127.0.0.1:" + std::to_string(ember::testing::free_port());
  const std::string d = dir.path().string();
  // One node: wait to be stopped; two nodes: dump the environment and exit.
  const std::string script = "if [ $GROUP_WORLD_SIZE = 1 ]; then touch " + d + "/alone; sleep 30; fi; " +
                             env_dump_script(d);
  AgentProcess first({"--nproc-per-node", "1", "--nnodes", "1:2", "--rdzv-endpoint", endpoint, "--rdzv-id", "grow",
                      "--rdzv-conf", "last_call_timeout=0.1", "--max-restarts", "0", "--log-dir", dir / "logs1", "sh",
                      "-c", script});
  ASSERT_TRUE(wait_for_file(dir / "alone", 10s)) << first.output();
  AgentProcess second({"--nproc-per-node", "1", "--nnodes", "1:2", "--rdzv-endpoint", endpoint, "--rdzv-id", "grow",
                       "--rdzv-conf", "last_call_timeout=5", "--local-addr", "127.0.0.2", "--log-dir",
                       dir / "logs2", "sh", "-c", script});
  EXPECT_EQ(first.wait(30s), 0) << first.output();
  EXPECT_EQ(second.wait(30s), 0) << second.output();
  EXPECT_NE(first.output().find("round 0: a node is waiting to join; restarting the group with it (not counted "
                                "against the restart budget)"),
            std::string::npos)
      << first.output();
  EXPECT_NE(second.output().find("round 1: node 1 of 2 (127.0.0.2), ranks 1..1 of 2"), std::string::npos)
      << second.output();
  for (int rank : {0, 1}) {
    auto env = read_env_file(d + "/env_" + std::to_string(rank) + "_0");
    EXPECT_EQ(env["WORLD_SIZE"], "2");
    EXPECT_EQ(env["GROUP_WORLD_SIZE"], "2");
    EXPECT_EQ(env["GROUP_RANK"], std::to_string(rank));
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "logs1/round_1/rank_0.log"));
}

// Note [Failed rendezvous]: the agent serving the store fails the round (its
// join timeout is short); the other node, still waiting, gets that agent's
// reason instead of a bare store error, and the serving agent waits for it.
TEST(Launcher, AFailedRendezvousReachesTheOtherNodes) {
  TempDir dir("ember_run_rdzv_failed");
  const uint16_t port = ember::testing::free_port();
  const std::string endpoint = "127.0.0.1:" + std::to_string(port);
  AgentProcess serving({"--nproc-per-node", "1", "--nnodes", "3", "--rdzv-endpoint", endpoint, "--rdzv-id", "short",
                        "--rdzv-conf", "join_timeout=1.5", "--log-dir", dir / "logs0", "true"});
  // The other node starts once the first serves the store (else it would serve it).
  ember::distributed::TCPStore probe("127.0.0.1", {.port = port, .timeout = 10s});
  AgentProcess other({"--nproc-per-node", "1", "--nnodes", "3", "--rdzv-endpoint", endpoint, "--rdzv-id", "short",
                      "--rdzv-conf", "join_timeout=30", "--local-addr", "127.0.0.2", "--log-dir", dir / "logs1",
                      "true"});
  EXPECT_EQ(serving.wait(20s), 1) << serving.output();
  EXPECT_EQ(other.wait(20s), 1) << other.output();
  EXPECT_NE(serving.output().find("ember-run: rendezvous 'short' round 0: only 2 of at least 3 nodes joined within "
                                  "the join timeout of 1.5 s"),
            std::string::npos)
      << serving.output();
  EXPECT_NE(other.output().find("ember-run: rendezvous 'short' round 0 failed on node 127.0.0.1: only 2 of at least "
                                "3 nodes joined within the join timeout of 1.5 s"),
            std::string::npos)
      << other.output();
  EXPECT_EQ(other.output().find("TCPStore"), std::string::npos) << other.output();
}

// A signal to the serving agent during the rendezvous fails the round for
// the other node too (it exits with 1, naming the signal).
TEST(Launcher, ASignalDuringTheRendezvousReachesTheOtherNodes) {
  TempDir dir("ember_run_rdzv_signal");
  const uint16_t port = ember::testing::free_port();
  const std::string endpoint = "127.0.0.1:" + std::to_string(port);
  AgentProcess serving({"--nproc-per-node", "1", "--nnodes", "3", "--rdzv-endpoint", endpoint, "--rdzv-id", "sig",
                        "--log-dir", dir / "logs0", "true"});
  ember::distributed::TCPStore probe("127.0.0.1", {.port = port, .timeout = 10s});
  AgentProcess other({"--nproc-per-node", "1", "--nnodes", "3", "--rdzv-endpoint", endpoint, "--rdzv-id", "sig",
                      "--local-addr", "127.0.0.2", "--log-dir", dir / "logs1", "true"});
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (probe.add("ember_run/sig/round0/joined", 0) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  serving.kill(SIGTERM);
  EXPECT_EQ(serving.wait(20s), 128 + SIGTERM) << serving.output();
  EXPECT_EQ(other.wait(20s), 1) << other.output();
  EXPECT_NE(serving.output().find("ember-run: interrupted (signal 15) during the rendezvous of round 0"),
            std::string::npos)
      << serving.output();
  EXPECT_NE(other.output().find("ember-run: rendezvous 'sig' round 0 failed on node 127.0.0.1: interrupted (signal "
                                "15)"),
            std::string::npos)
      << other.output();
}

TEST(Launcher, BadFlagsExitWith2) {
  AgentProcess agent({"--nproc-per-node", "0", "true"});
  EXPECT_EQ(agent.wait(10s), 2);
  EXPECT_NE(agent.output().find("ember-run: --nproc-per-node must be an integer >= 1, got '0'"), std::string::npos)
      << agent.output();
}

// Launched by ember-run (not by the test harness): init_process_group from
// ember-run's environment, then an all_reduce across both nodes.
EMBER_DIST_WORKER(launcher_all_reduce_worker) {
  const int r = static_cast<int>(ember::testing::env_int("RANK"));
  const int n = static_cast<int>(ember::testing::env_int("WORLD_SIZE"));
  const int local = static_cast<int>(ember::testing::env_int("LOCAL_RANK"));
  const int group = static_cast<int>(ember::testing::env_int("GROUP_RANK"));
  EMBER_CHECK(n == 4 && r == group * 2 + local, "rank ", r, " of ", n, " on node ", group, " local rank ", local);
  ember::distributed::init_process_group("gloo", {.timeout = std::chrono::seconds(20)});
  ember::Tensor t = ember::testing::tensor_of({r + 1.0, 2.0 * r, -1.0}, ember::DType::Float32);
  ember::distributed::all_reduce(t);
  const std::vector<double> v = ember::testing::values_of(t);
  const std::vector<double> expected = {10, 12, -4};  // sums over ranks 0..3
  for (int k = 0; k < 3; ++k)
    EMBER_CHECK(v[k] == expected[k], "rank ", r, ": element ", k, " is ", v[k], ", expected ", expected[k]);
  ember::distributed::destroy_process_group();
  std::printf("rank %d: all_reduce ok (restart %s)\n", r, std::getenv("RESTART_COUNT"));
  // With FAIL_RANK set, that rank fails in every round (the shared budget test).
  if (const char* fail = std::getenv("FAIL_RANK"); fail && std::atoi(fail) == r) std::exit(5);
}

std::vector<std::string> node_args(int node, const std::string& endpoint, const std::string& logs) {
  std::vector<std::string> args = {"--nproc-per-node", "2", "--nnodes", "2", "--rdzv-endpoint", endpoint,
                                    "--rdzv-id", "twonodes", "--node-rank", std::to_string(node),
                                    "--local-addr", node == 0 ? "127.0.0.1" : "127.0.0.2",
                                    "--max-restarts", "1", "--log-dir", logs, "/proc/self/exe"};
  return args;
}

std::map<std::string, std::string> worker_env(const std::map<std::string, std::string>& extra = {}) {
  std::map<std::string, std::string> env = {{"EMBER_DIST_WORKER", "launcher_all_reduce_worker"},
                                            {"EMBER_DIST_RANK", "-1"},
                                            {"EMBER_DIST_WORLD_SIZE", "-1"}};
  env.insert(extra.begin(), extra.end());
  return env;
}

TEST(Launcher, TwoAgentsOnTwoLoopbackAddressesFormOneWorld) {
  TempDir dir("ember_run_two_nodes");
  const std::string endpoint = "127.0.0.1:" + std::to_string(ember::testing::free_port());
  // /proc/self/exe of the agent is ember-run; the workers need this binary.
  auto args = [&](int node) {
    auto a = node_args(node, endpoint, dir / ("node" + std::to_string(node)));
    a.back() = std::filesystem::read_symlink("/proc/self/exe").string();
    return a;
  };
  AgentProcess node1(args(1), worker_env());  // the later node may start first
  AgentProcess node0(args(0), worker_env());
  EXPECT_EQ(node0.wait(30s), 0) << node0.output();
  EXPECT_EQ(node1.wait(30s), 0) << node1.output();
  EXPECT_NE(node0.output().find("round 0: node 0 of 2 (127.0.0.1), ranks 0..1 of 4"), std::string::npos)
      << node0.output();
  EXPECT_NE(node1.output().find("round 0: node 1 of 2 (127.0.0.2), ranks 2..3 of 4"), std::string::npos)
      << node1.output();
  // (the log also holds gtest's banner: the worker is this test binary)
  EXPECT_NE(read_file(dir / "node1/round_0/rank_3.log").find("rank 3: all_reduce ok (restart 0)\n"), std::string::npos);
}

TEST(Launcher, TheRestartBudgetIsSharedByAllNodes) {
  TempDir dir("ember_run_shared_budget");
  const std::string endpoint = "127.0.0.1:" + std::to_string(ember::testing::free_port());
  auto args = [&](int node) {
    auto a = node_args(node, endpoint, dir / ("node" + std::to_string(node)));
    a.back() = std::filesystem::read_symlink("/proc/self/exe").string();
    return a;
  };
  // Rank 3 (node 1) fails in every round: node 0's workers restart with it,
  // and one restart (the budget of 1) ends the job on both nodes.
  AgentProcess node0(args(0), worker_env({{"FAIL_RANK", "3"}}));
  AgentProcess node1(args(1), worker_env({{"FAIL_RANK", "3"}}));
  EXPECT_EQ(node0.wait(30s), 1) << node0.output();
  EXPECT_EQ(node1.wait(30s), 1) << node1.output();
  for (const AgentProcess* agent : {&node0, &node1}) {
    EXPECT_NE(agent->output().find("the job failed after 1 restart (budget 1, shared by all nodes)\nfirst failure of "
                                   "round 1: rank 3 (local rank 1 on node 1, 127.0.0.2) exited with code 5"),
              std::string::npos)
        << agent->output();
  }
  EXPECT_NE(read_file(dir / "node0/round_1/rank_0.log").find("rank 0: all_reduce ok (restart 1)\n"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "node0/round_2"));
}

}  // namespace
