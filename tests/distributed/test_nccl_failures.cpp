// ProcessGroupNCCL's failure handling (Note [NCCL watchdog]): a collective
// past its timeout, a communicator whose init cannot complete because a rank
// never started, and (with two GPUs) a rank that skipped a collective. Each
// case runs in a rank process of its own: an aborted communicator may leave
// the CUDA context unusable, which must not reach the other tests. Skipped
// without a GPU (or with fewer GPUs than ranks).
#include <gtest/gtest.h>

#include <thread>

#include "cuda/spin_kernel.h"
#include "gloo_testing.h"
#include "multiprocess.h"
#include "nccl_testing.h"

namespace ember::distributed {
namespace {

using namespace std::chrono_literals;
using ember::testing::env_int;
using ember::testing::nccl_error_of;
using ember::testing::Ranks;
using ember::testing::require_contains;
using ember::testing::store_env;
using Clock = std::chrono::steady_clock;

int64_t elapsed_ms(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// World size 1: the caller's stream spins for 3 s, so the all_reduce (whose
// NCCL stream waits for it) cannot finish within its 300 ms timeout.
EMBER_DIST_WORKER(nccl_watchdog_timeout_worker) {
  auto store = std::make_shared<HashStore>();
  ProcessGroupNCCL group(store, 0, 1, {.timeout = 60s, .watchdog_interval = 20ms});
  const Device gpu(DeviceType::CUDA, 0);
  Tensor t = ember::ones({4}, TensorOptions(kFloat32).device(gpu));
  group.all_reduce(t)->wait();  // the communicator exists before the clock starts
  const cuda::CUDAStream stream = cuda::stream_from_pool(false, 0);
  cuda::CUDAStreamGuard guard(stream);
  cuda::testing::spin_on_stream(stream.handle(), 3000);
  const auto start = Clock::now();
  auto work = group.all_reduce(t, {.reduce_op = ReduceOp::MAX, .timeout = 300ms});
  const std::string error = nccl_error_of([&] { work->wait(10s); });
  const int64_t ms = elapsed_ms(start);
  require_contains(error, "ProcessGroupNCCL: rank 0 of 1: all_reduce (MAX, tensor [4] float32) on cuda:0 (sequence "
                          "number 1) ran for ", "the watchdog's error");
  require_contains(error, "ms, past its timeout of 300 ms; the watchdog aborted the group's NCCL communicators.",
                   "the watchdog's error");
  require_contains(error, "Desync report for sequence number 1 (all_reduce): every rank entered it",
                   "the watchdog's error");
  EMBER_CHECK(ms >= 300 && ms < 2500, "the watchdog failed the all_reduce after ", ms, " ms (timeout 300 ms)");
  EMBER_CHECK(work->is_completed() && !work->is_success(), "the timed-out work is not marked failed");
  require_contains(group.abort_reason(), "past its timeout of 300 ms", "abort_reason()");
  // Later use raises the first error.
  const std::string later = nccl_error_of([&] { group.all_reduce(t); });
  require_contains(later, "ProcessGroupNCCL::all_reduce: rank 0 of 1: the group was aborted and cannot be used any "
                          "more (destroy it and create a new one). It failed with: ProcessGroupNCCL: rank 0 of 1: "
                          "all_reduce (MAX", "the call after the abort");
  std::cout << "watchdog error after " << ms << " ms: " << error << std::endl;
}

TEST(NcclFailures, WatchdogAbortsACollectivePastItsTimeout) {
  EMBER_NCCL_REQUIRE_GPUS(1);
  Ranks ranks("nccl_watchdog_timeout_worker", 1);
  EXPECT_TRUE(ranks.all_succeed(60s));
}

// Rank 0 of a 2-rank group whose rank 1 never starts: NCCL's init waits for
// rank 1 until the group's timeout, then the communicator is aborted. And
// rank 1 of a group whose rank 0 never starts: the unique id never comes.
EMBER_DIST_WORKER(nccl_init_timeout_worker) {
  const Device gpu(DeviceType::CUDA, 0);
  Tensor t = ember::ones({4}, TensorOptions(kFloat32).device(gpu));
  {
    ProcessGroupNCCL group(std::make_shared<HashStore>(), 0, 2, {.timeout = 1500ms, .watchdog_interval = 20ms});
    const auto start = Clock::now();
    const std::string error = nccl_error_of([&] { group.all_reduce(t); });
    const int64_t ms = elapsed_ms(start);
    require_contains(error, "ProcessGroupNCCL: rank 0 of 2: creating the NCCL communicator cuda:0 "
                            "(ncclCommInitRankConfig) for all_reduce (SUM, tensor [4] float32) on cuda:0 (sequence "
                            "number 0) did not complete before its timeout", "rank 0's init error");
    require_contains(error, "the group's NCCL communicators were aborted. Desync report for sequence number 0 "
                            "(all_reduce): ranks [1] had not entered it: rank 1 has not entered any collective",
                     "rank 0's init error");
    EMBER_CHECK(ms >= 1400 && ms < 8000, "the init failed after ", ms, " ms (timeout 1500 ms)");
    require_contains(nccl_error_of([&] { group.barrier(); }), "the group was aborted", "a barrier after the abort");
    std::cout << "init error after " << ms << " ms: " << error << std::endl;
  }
  {
    ProcessGroupNCCL group(std::make_shared<HashStore>(), 1, 2, {.timeout = 500ms});
    const std::string error = nccl_error_of([&] { group.all_reduce(t); });
    require_contains(error, "ProcessGroupNCCL: rank 1 of 2: creating the NCCL communicator cuda:0 for all_reduce "
                            "(SUM, tensor [4] float32) on cuda:0 (sequence number 0) timed out: the communicator's "
                            "first rank did not publish its NCCL unique id within 500 ms", "rank 1's init error");
    require_contains(error, "ranks [0] had not entered it", "rank 1's init error");
  }
}

TEST(NcclFailures, InitTimesOutWhenARankNeverStarts) {
  EMBER_NCCL_REQUIRE_GPUS(1);
  Ranks ranks("nccl_init_timeout_worker", 1);
  EXPECT_TRUE(ranks.all_succeed(90s));
}

// Two ranks on two GPUs; rank 1 skips the second all_reduce.
EMBER_DIST_WORKER(nccl_desync_worker) {
  auto store = std::make_shared<TCPStore>(
      "127.0.0.1", TCPStoreOptions{.port = static_cast<uint16_t>(env_int("STORE_PORT")), .timeout = 20s});
  ProcessGroupNCCL group(store, rank, world_size, {.timeout = 20s, .watchdog_interval = 20ms});
  const Device gpu(DeviceType::CUDA, static_cast<int16_t>(rank));
  Tensor t = ember::ones({3}, TensorOptions(kFloat32).device(gpu));
  group.all_reduce(t)->wait();
  ember::testing::check_values(t.cpu(), {2, 2, 2}, "the first all_reduce");
  if (rank == 1) {
    store->set("rank1_done", "1");
    store->wait({"rank0_done"}, 30s);
    return;
  }
  auto work = group.all_reduce(t, {.timeout = 500ms});
  const std::string error = nccl_error_of([&] { work->wait(15s); });
  require_contains(error, "ProcessGroupNCCL: rank 0 of 2: all_reduce (SUM, tensor [3] float32) on cuda:0 (sequence "
                          "number 1) ran for ", "rank 0's error");
  require_contains(error, "Desync report for sequence number 1 (all_reduce): ranks [1] had not entered it: rank 1 is "
                          "at sequence number 0 (all_reduce (SUM, tensor [3] float32))", "rank 0's error");
  store->set("rank0_done", "1");
}

TEST(NcclFailures, DesyncReportNamesTheRankThatSkippedACollective) {
  EMBER_NCCL_REQUIRE_GPUS(2);
  TCPStoreServer server;
  Ranks ranks("nccl_desync_worker", 2, store_env(server));
  EXPECT_TRUE(ranks.all_succeed(90s));
}

}  // namespace
}  // namespace ember::distributed
