// parallel_for on its two paths (Note [Two ways to run a loop]), Ember's
// thread pool (Note [Ember's thread pool]), the shared-cores verdict (Note
// [Shared cores]) and the OpenMP libraries' thread count (Note [OpenMP
// libraries]).
#include <gtest/gtest.h>
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ember/core/determinism.h"
#include "ember/core/error.h"
#include "ember/ember.h"
#include "ember/core/parallel.h"
#include "runtime/contention.h"
#include "runtime/openmp_calls.h"
#include "runtime/thread_pool.h"

namespace parallel_runtime_test {

using namespace ember;

// Runs the test body with the shared-cores verdict forced, and restores the
// measured verdict and the thread count after.
class ForcedCores {
 public:
  explicit ForcedCores(bool shared, int threads = 2) : saved_threads_(get_num_threads()) {
    runtime::force_contention_for_testing(shared ? 1 : 0);
    set_num_threads(threads);
  }
  ~ForcedCores() {
    runtime::force_contention_for_testing(-1);
    set_num_threads(saved_threads_);
  }

 private:
  int saved_threads_;
};

class ParallelForPaths : public ::testing::TestWithParam<bool> {};

TEST_P(ParallelForPaths, EveryIndexRunsExactlyOnceInContiguousChunks) {
  for (int threads : {1, 2, 3, 4}) {
    ForcedCores cores(GetParam(), threads);
    for (int64_t n : {1, 2, 7, 100, 1000, 12345}) {
      for (int64_t grain : {1, 3, 64, 100000}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::atomic<int64_t> calls{0};
        parallel_for(5, 5 + n, grain, [&](int64_t b, int64_t e) {
          ASSERT_LT(b, e);
          ASSERT_GE(b, 5);
          ASSERT_LE(e, 5 + n);
          calls.fetch_add(1);
          for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i - 5)].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "n " << n << " i " << i;
        // A range of at most one grain runs in one call.
        if (n <= grain) {
          EXPECT_EQ(calls.load(), 1);
        }
      }
    }
  }
}

TEST_P(ParallelForPaths, NestedLoopsRunInlineOnOneThread) {
  ForcedCores cores(GetParam());
  std::atomic<int> inner_calls{0}, wrong{0};
  parallel_for(0, 64, 1, [&](int64_t b, int64_t e) {
    if (!in_parallel_region() || get_num_threads() != 1) wrong.fetch_add(1);
    for (int64_t i = b; i < e; ++i) {
      const auto self = std::this_thread::get_id();
      parallel_for(0, 1000, 1, [&](int64_t ib, int64_t ie) {
        if (ib != 0 || ie != 1000 || std::this_thread::get_id() != self) wrong.fetch_add(1);
        inner_calls.fetch_add(1);
      });
    }
  });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(inner_calls.load(), 64);
  EXPECT_FALSE(in_parallel_region());
}

TEST_P(ParallelForPaths, TheFirstErrorReachesTheCallerAndTheLoopsGoOn) {
  ForcedCores cores(GetParam());
  for (int round = 0; round < 20; ++round) {
    EXPECT_THROW(parallel_for(0, 1000, 1,
                              [&](int64_t b, int64_t e) {
                                if (b <= 500 && 500 < e) throw std::runtime_error("chunk with 500");
                              }),
                 std::runtime_error);
  }
  std::atomic<int64_t> sum{0};
  parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) sum.fetch_add(i);
  });
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
}

INSTANTIATE_TEST_SUITE_P(QuietAndShared, ParallelForPaths, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "SharedCores" : "QuietCores"; });

// The pool's caller never waits for a helper that has not started: with the
// only helper held in another thread's loop, a loop still completes, on the
// caller alone.
TEST(ThreadPool, TheCallerRunsEveryChunkWhenNoHelperIsFree) {
  ForcedCores cores(true, 2);
  std::atomic<bool> helper_held{false}, release{false}, timed_out{false}, done_while_held{false};
  std::thread holder([&] {
    const auto holder_id = std::this_thread::get_id();
    parallel_for(0, 2, 1, [&](int64_t, int64_t) {
      if (std::this_thread::get_id() == holder_id) return;
      helper_held.store(true);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!release.load()) {
        if (std::chrono::steady_clock::now() > deadline) {
          timed_out.store(true);
          return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    });
  });
  // The holder's second chunk goes to the helper, or to the holder itself if
  // the helper came late; only the first case holds the helper.
  const auto wait_until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!helper_held.load() && std::chrono::steady_clock::now() < wait_until) std::this_thread::yield();
  if (helper_held.load()) {
    std::vector<int> seen(4096, 0);
    const auto self = std::this_thread::get_id();
    std::atomic<int> off_thread{0};
    parallel_for(0, 4096, 1, [&](int64_t b, int64_t e) {
      if (std::this_thread::get_id() != self) off_thread.fetch_add(1);
      for (int64_t i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
    });
    done_while_held.store(!release.load());
    EXPECT_EQ(off_thread.load(), 0);
    for (int v : seen) ASSERT_EQ(v, 1);
  }
  release.store(true);
  holder.join();
  EXPECT_FALSE(timed_out.load());
  if (helper_held.load()) {
    EXPECT_TRUE(done_while_held.load());
  }
}

// Loops started by several threads at once (a training loop and DataLoader
// workers) share the pool's helpers.
TEST(ThreadPool, ConcurrentCallersShareTheHelpers) {
  ForcedCores cores(true, 3);
  constexpr int kCallers = 4, kLoops = 200;
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int l = 0; l < kLoops; ++l) {
        const int64_t n = 100 + 37 * c + l;
        std::atomic<int64_t> sum{0};
        parallel_for(0, n, 2, [&](int64_t b, int64_t e) {
          int64_t s = 0;
          for (int64_t i = b; i < e; ++i) s += i;
          sum.fetch_add(s);
        });
        if (sum.load() != n * (n - 1) / 2) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GE(runtime::pool_stats().helpers, 2);
}

TEST(ThreadPool, HelpersJoinLoopsOnSharedCores) {
  ForcedCores cores(true, 2);
  const runtime::PoolStats before = runtime::pool_stats();
  for (int l = 0; l < 50; ++l) {
    parallel_for(0, 64, 1, [&](int64_t, int64_t) { std::this_thread::sleep_for(std::chrono::microseconds(200)); });
  }
  const runtime::PoolStats after = runtime::pool_stats();
  EXPECT_EQ(after.loops - before.loops, 50);
  // 64 chunks of 0.2 ms each: the helper has time to wake for most loops.
  EXPECT_GT(after.helper_joins - before.helper_joins, 0);
}

// A child made by fork() has none of the parent's helper threads: its loops
// start helpers of its own.
TEST(ThreadPool, LoopsWorkInAForkedChild) {
  ForcedCores cores(true, 2);
  parallel_for(0, 64, 1, [](int64_t, int64_t) {});  // the parent's helper exists
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::atomic<int64_t> sum{0};
    parallel_for(0, 10000, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) sum.fetch_add(i);
    });
    _exit(sum.load() == 9999 * 10000 / 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ThreadCounts, ParallelInfoTellsHowLoopsRan) {
  {
    ForcedCores cores(true, 2);
    parallel_for(0, 64, 1, [](int64_t, int64_t) {});
  }
  {
    ForcedCores cores(false, 2);
    parallel_for(0, 64, 1, [](int64_t, int64_t) {});
    const std::string info = parallel_info();
    EXPECT_NE(info.find("threads: 2"), std::string::npos) << info;
    EXPECT_NE(info.find("cores shared now: no"), std::string::npos) << info;
    EXPECT_NE(info.find("as OpenMP regions"), std::string::npos) << info;
    EXPECT_NE(info.find("on Ember's pool ("), std::string::npos) << info;
  }
}

TEST(ThreadCounts, AThreadMayHaveItsOwnCount) {
  ForcedCores cores(false, 2);
  int inside = 0, after_reset = 0;
  std::thread worker([&] {
    set_thread_local_num_threads(1);
    inside = get_num_threads();
    set_thread_local_num_threads(0);
    after_reset = get_num_threads();
  });
  worker.join();
  EXPECT_EQ(inside, 1);
  EXPECT_EQ(after_reset, 2);
  EXPECT_EQ(get_num_threads(), 2);
  EXPECT_THROW(set_thread_local_num_threads(-1), Error);
  EXPECT_THROW(set_num_threads(0), Error);
}

TEST(OpenMPLibraries, ThreadCountFollowsTheCores) {
  {
    ForcedCores cores(false, 2);
    EXPECT_EQ(runtime::prepare_openmp_library_call(), 2);
    EXPECT_EQ(omp_get_max_threads(), 2);
    // Inside a chunk, a library call stays on its thread.
    std::atomic<int> wrong{0};
    parallel_for(0, 8, 1, [&](int64_t, int64_t) {
      if (runtime::prepare_openmp_library_call() != 1 || omp_get_max_threads() != 1) wrong.fetch_add(1);
    });
    EXPECT_EQ(wrong.load(), 0);
  }
  {
    ForcedCores cores(true, 2);
    EXPECT_EQ(runtime::prepare_openmp_library_call(), 1);
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
}

// Ember's own loops give the same bits on either path; with deterministic
// algorithms on, OpenBLAS and oneDNN keep their thread count on shared cores,
// so a whole training step is bitwise the same under any load.
TEST(SharedCores, DeterministicResultsDoNotDependOnTheLoad) {
  auto train_steps = [](bool shared) {
    ForcedCores cores(shared, 2);
    manual_seed(7);
    nn::Sequential net(nn::Conv2d({.in_channels = 3, .out_channels = 16, .kernel_size = 3, .padding = 1}),
                       nn::BatchNorm2d(16), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(16 * 16 * 16, 10));
    optim::SGD opt(net->parameters(), {.lr = 0.1, .momentum = 0.9});
    Tensor x = randn({8, 3, 32, 32}), y = randint(0, 10, {8});
    Tensor loss;
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      loss = nn::functional::cross_entropy(net(x), y);
      loss.backward();
      opt.step();
    }
    std::vector<Tensor> state{loss.detach()};
    for (const Tensor& p : net->parameters()) state.push_back(p.detach().clone());
    return state;
  };
  const bool saved = are_deterministic_algorithms_enabled();
  use_deterministic_algorithms(true);
  const std::vector<Tensor> quiet = train_steps(false), shared = train_steps(true);
  use_deterministic_algorithms(saved);
  ASSERT_EQ(quiet.size(), shared.size());
  for (size_t i = 0; i < quiet.size(); ++i) EXPECT_TRUE(quiet[i].equal(shared[i])) << "tensor " << i;
}

// On shared cores a convolution's two backward passes run side by side on the
// pool (Note [Convolutions on shared cores]), each the same one-thread oneDNN
// call that a one-thread run makes: the same bits.
TEST(SharedCores, ConvolutionBackwardPassesSideBySideGiveTheOneThreadResult) {
  for (int64_t batch : {5, 4}) {
    auto results = [batch](int threads) {
      ForcedCores cores(true, threads);
      manual_seed(11);
      Tensor x = randn({batch, 8, 20, 20}).requires_grad_(true);
      Tensor w = randn({16, 8, 3, 3}).requires_grad_(true);
      Tensor b = randn({16}).requires_grad_(true);
      Tensor y = nn::functional::conv2d(x, w, {.bias = b, .padding = 1});
      (y * y).sum().backward();
      return std::vector<Tensor>{y.detach(), x.grad(), w.grad(), b.grad()};
    };
    const std::vector<Tensor> one = results(1), two = results(2);
    for (size_t i = 0; i < one.size(); ++i) {
      ASSERT_TRUE(two[i].defined()) << "batch " << batch << ", result " << i;
      EXPECT_TRUE(one[i].equal(two[i])) << "batch " << batch << ", result " << i << " (0: output)";
    }
  }
}

// The verdict from pooled scheduler samples: windows of 20 ms, a moving
// average with hysteresis (Note [Shared cores]).
TEST(SharedCores, VerdictFollowsTheShareOfTimeSpentWaiting) {
  runtime::reset_contention_state_for_testing();
  constexpr int64_t kMs = 1'000'000;
  int64_t now = 1000 * kMs;
  auto window = [&](int64_t ran, int64_t waited) {
    runtime::add_scheduler_sample(ran, waited, now);
    now += 25 * kMs;
    runtime::add_scheduler_sample(0, 0, now);  // closes the window
  };
  window(0, 0);
  for (int i = 0; i < 20; ++i) window(30 * kMs, 1 * kMs);  // alone: ~3% waiting
  EXPECT_FALSE(runtime::cores_contended());
  window(22 * kMs, 16 * kMs);  // one busy window is not enough
  EXPECT_FALSE(runtime::cores_contended());
  for (int i = 0; i < 3; ++i) window(20 * kMs, 12 * kMs);  // ~38% waiting
  EXPECT_TRUE(runtime::cores_contended());
  window(30 * kMs, 3 * kMs);  // one quieter window keeps the verdict
  EXPECT_TRUE(runtime::cores_contended());
  window(1 * kMs, 0);  // an idle window (too little CPU wanted) changes nothing
  EXPECT_TRUE(runtime::cores_contended());
  for (int i = 0; i < 10; ++i) window(30 * kMs, 1 * kMs);
  EXPECT_FALSE(runtime::cores_contended());
  runtime::reset_contention_state_for_testing();
}

// Real threads on a really busy machine: processes keeping every core busy
// make Ember's threads wait for a core, and the verdict turns to shared.
TEST(SharedCores, OtherBusyProcessesAreNoticed) {
  if (access("/proc/thread-self/schedstat", R_OK) != 0) GTEST_SKIP() << "no /proc/thread-self/schedstat";
  runtime::reset_contention_state_for_testing();
  const int saved_threads = get_num_threads();
  set_num_threads(2);
  std::vector<pid_t> busy;
  const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  for (long i = 0; i < 2 * cores; ++i) {
    const pid_t p = fork();
    if (p == 0) {
      volatile double x = 1;
      for (;;) x = x * 1.0000001 + 1e-9;
    }
    if (p > 0) busy.push_back(p);
  }
  bool noticed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!noticed && std::chrono::steady_clock::now() < deadline) {
    parallel_for(0, 256, 1, [](int64_t b, int64_t e) {
      volatile double x = 0;
      for (int64_t i = b * 2000; i < e * 2000; ++i) x = x + 1e-9 * static_cast<double>(i);
    });
    noticed = runtime::cores_contended();
  }
  for (pid_t p : busy) kill(p, SIGKILL);
  for (pid_t p : busy) waitpid(p, nullptr, 0);
  set_num_threads(saved_threads);
  runtime::reset_contention_state_for_testing();
  EXPECT_TRUE(noticed);
}

}  // namespace parallel_runtime_test
