// The hang diagnostics of ProcessGroupGloo: the desync report of a collective
// that times out because a rank skipped it or called another op, and
// monitored_barrier naming the ranks that did not arrive. 2 and 4 ranks; the
// last rank(s) misbehave.
#include <gtest/gtest.h>

#include <ember/distributed/init.h>
#include <ember/distributed/tcp_store.h>

#include "gloo_testing.h"
#include "multiprocess.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::DType;
using ember::Tensor;
using ember::testing::init_gloo_from_test_store;
using ember::testing::Ranks;
using ember::testing::store_env;

// The message of the error work raised, or "" when it succeeded.
std::string error_of(const std::shared_ptr<Work>& work) {
  try {
    work->wait();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

void expect_contains(const std::string& text, const std::string& part, int rank) {
  EMBER_CHECK(text.find(part) != std::string::npos, "rank ", rank, ": expected \"", part, "\" in: ", text);
}

// The ranks that entered a collective wait for each other's checks before
// the misbehaving rank leaves (its exit would change their errors).
void finish_ranks(TCPStore& store, int rank, int world_size, int first_misbehaving) {
  if (rank < first_misbehaving) {
    store.set("checked/" + std::to_string(rank), "1");
  } else {
    std::vector<std::string> keys;
    for (int r = 0; r < first_misbehaving; ++r) keys.push_back("checked/" + std::to_string(r));
    store.wait(keys, 20s);
  }
  destroy_process_group();
}

// The last rank skips the all_reduce that follows a broadcast.
EMBER_DIST_WORKER(gloo_skipped_collective_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  auto group = default_process_group();
  Tensor t = ember::ones({3});
  broadcast(t, 0);
  const int last = world_size - 1;
  if (rank != last) {
    const std::string error = error_of(group->all_reduce(t, {.reduce_op = ReduceOp::SUM, .timeout = 500ms}));
    expect_contains(error, "all_reduce (SUM, tensor [3] float32) on rank " + std::to_string(rank) + " of " +
                               std::to_string(world_size) + " (sequence number 1)", rank);
    expect_contains(error, "Desync report for sequence number 1 (all_reduce): ranks [" + std::to_string(last) +
                               "] had not entered it: rank " + std::to_string(last) +
                               " is at sequence number 0 (broadcast (root 0, tensor [3] float32))", rank);
  }
  finish_ranks(*store, rank, world_size, last);
}

// The last rank calls barrier where the others call all_reduce.
EMBER_DIST_WORKER(gloo_mismatched_collective_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  auto group = default_process_group();
  Tensor t = ember::ones({2, 2}, ember::TensorOptions(DType::Int64));
  const int last = world_size - 1;
  if (rank != last) {
    const std::string error = error_of(group->all_reduce(t, {.reduce_op = ReduceOp::MAX, .timeout = 500ms}));
    expect_contains(error, "(sequence number 0)", rank);
    expect_contains(error, "ranks [" + std::to_string(last) + "] had not entered it: rank " + std::to_string(last) +
                               " entered sequence number 0 as a different collective (barrier)", rank);
  } else {
    const std::string error = error_of(group->barrier({.timeout = 500ms}));
    expect_contains(error, "barrier  on rank " + std::to_string(rank), rank);
    std::string others = "ranks [";
    for (int r = 0; r < last; ++r) others += (r ? ", " : "") + std::to_string(r);
    expect_contains(error, others + "] had not entered it: rank 0 entered sequence number 0 as a different "
                                    "collective (all_reduce (MAX, tensor [2, 2] int64))", rank);
  }
  finish_ranks(*store, rank, world_size, world_size);
}

// A monitored_barrier everybody reaches, then one that the upper half of the
// ranks skips: rank 0 names them (all with wait_all_ranks, the first without).
EMBER_DIST_WORKER(gloo_monitored_barrier_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  monitored_barrier(5s);
  const int first_missing = world_size / 2;
  for (bool wait_all : {true, false}) {
    if (rank >= first_missing) continue;
    std::string error;
    try {
      monitored_barrier(400ms, wait_all);
    } catch (const ember::Error& e) {
      error = e.what();
    }
    if (rank == 0) {
      std::string names = std::to_string(first_missing);
      if (wait_all)
        for (int r = first_missing + 1; r < world_size; ++r) names += ", " + std::to_string(r);
      expect_contains(error, std::string(wait_all ? "ranks " : "rank ") + names + " did not arrive within 400 ms (rank 0 of " +
                                 std::to_string(world_size) + ")", rank);
    } else {
      expect_contains(error, "rank " + std::to_string(rank) + " of " + std::to_string(world_size) +
                                 " was not released by rank 0 within 400 ms", rank);
    }
  }
  finish_ranks(*store, rank, world_size, first_missing);
}

class GlooDiagnostics : public ::testing::TestWithParam<int> {};

TEST_P(GlooDiagnostics, SkippedCollectiveNamesTheMissingRank) {
  TCPStoreServer server;
  Ranks ranks("gloo_skipped_collective_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(GlooDiagnostics, MismatchedCollectiveNamesTheOtherOp) {
  TCPStoreServer server;
  Ranks ranks("gloo_mismatched_collective_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(GlooDiagnostics, MonitoredBarrierNamesTheMissingRanks) {
  TCPStoreServer server;
  Ranks ranks("gloo_monitored_barrier_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

INSTANTIATE_TEST_SUITE_P(ProcessGroupGloo, GlooDiagnostics, ::testing::Values(2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Ranks"; });

}  // namespace

namespace {

// Note [Desync recorder]: rank 1's main thread blocks in wait on the very
// TCPStore object the group's store wraps, right after queuing an all_reduce.
// Its desync entry still reaches the store (the recorder writes through a
// clone: a connection of its own), so rank 0's report names the all_reduce,
// not the broadcast before it.
EMBER_DIST_WORKER(gloo_blocked_main_thread_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  auto group = default_process_group();
  Tensor t = ember::ones({3});
  broadcast(t, 0);
  if (rank == 1) {
    auto work = group->all_reduce(t, {.reduce_op = ReduceOp::SUM, .timeout = 1500ms});
    store->wait({"checked/0"}, 20s);
    expect_contains(error_of(work), "rank 0 entered sequence number 1 as a different collective (barrier)", rank);
  } else {
    const std::string error = error_of(group->barrier({.timeout = 500ms}));
    expect_contains(error, "Desync report for sequence number 1 (barrier): ranks [1] had not entered it: rank 1 "
                           "entered sequence number 1 as a different collective (all_reduce (SUM, tensor [3] "
                           "float32))", rank);
    store->set("checked/0", "1");
  }
  destroy_process_group();
}

TEST(GlooDiagnostics, AnEntryIsRecordedWhileTheMainThreadBlocksOnTheStore) {
  TCPStoreServer server;
  Ranks ranks("gloo_blocked_main_thread_worker", 2, store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

}  // namespace
