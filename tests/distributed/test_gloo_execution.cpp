// How ProcessGroupGloo runs collectives: blocking calls run inline on the
// waiting thread yet keep the order of async work queued before them (Note
// [Inline collectives]), and the desync recorder's failed writes are named in
// the report instead of dropped (Note [Desync recorder]). Two ranks in one
// process (a thread each) over a shared HashStore.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include <ember/distributed/hash_store.h>
#include <ember/distributed/process_group_gloo.h>
#include <ember/ops/factories.h>

#include "gloo_testing.h"
#include "store_testing.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::DType;
using ember::Tensor;
using ember::testing::check_values;
using ember::testing::tensor_of;

// Both ranks' groups, constructed at once (the rendezvous needs both).
std::pair<std::unique_ptr<ProcessGroupGloo>, std::unique_ptr<ProcessGroupGloo>> two_ranks(
    const std::shared_ptr<Store>& store0, const std::shared_ptr<Store>& store1) {
  std::unique_ptr<ProcessGroupGloo> g0, g1;
  std::thread other([&] { g1 = std::make_unique<ProcessGroupGloo>(store1, 1, 2, ProcessGroupGlooOptions{.timeout = 20s}); });
  g0 = std::make_unique<ProcessGroupGloo>(store0, 0, 2, ProcessGroupGlooOptions{.timeout = 20s});
  other.join();
  return {std::move(g0), std::move(g1)};
}

// Per iteration: two async collectives, then two blocking ones (wait() right
// away: inline when next in line). A blocking call that overtook the queued
// work would pair with the other rank's different collective and fail, or
// return before them.
void run_mixed_sequence(ProcessGroupGloo& group, int rank) {
  for (int i = 0; i < 12; ++i) {
    if (rank == 1 && i % 3 == 0) std::this_thread::sleep_for(5ms);  // vary who comes first
    Tensor a = tensor_of({double((rank + 1) * (i + 1)), 1.0}, DType::Float32);
    auto sum = group.all_reduce(a);
    const int root = i % 2;
    Tensor b = tensor_of({rank == root ? 100.0 + i : -1.0}, DType::Int64);
    auto cast = group.broadcast(b, {.root_rank = root});
    std::vector<Tensor> gathered = {ember::empty({2}), ember::empty({2})};
    Tensor in = tensor_of({double(rank), double(i)}, DType::Float32);
    group.all_gather(gathered, in)->wait();
    EMBER_CHECK(sum->is_completed() && cast->is_completed(), "rank ", rank, " iteration ", i,
                ": a blocking call returned before the async work queued before it");
    Tensor m = tensor_of({double(10 * rank + i)}, DType::Int32);
    group.all_reduce(m, {.reduce_op = ReduceOp::MAX})->wait();
    sum->wait();
    cast->wait();
    check_values(a, {3.0 * (i + 1), 2.0}, "all_reduce");
    check_values(b, {100.0 + i}, "broadcast");
    check_values(gathered[0], {0.0, double(i)}, "all_gather[0]");
    check_values(gathered[1], {1.0, double(i)}, "all_gather[1]");
    check_values(m, {10.0 + i}, "all_reduce MAX");
  }
}

TEST(GlooExecution, BlockingCallsKeepTheOrderOfQueuedAsyncWork) {
  auto store = std::make_shared<HashStore>(20s);
  auto [g0, g1] = two_ranks(store, store);
  std::string error1;
  std::thread other([&, &g1 = g1] {
    try {
      run_mixed_sequence(*g1, 1);
    } catch (const std::exception& e) {
      error1 = e.what();
    }
  });
  std::string error0;
  try {
    run_mixed_sequence(*g0, 0);
  } catch (const std::exception& e) {
    error0 = e.what();
  }
  other.join();
  EXPECT_EQ(error0, "");
  EXPECT_EQ(error1, "");
}

// A store that counts the desync entries written through it (and its
// clones) and refuses them once `refuse` is set; with `clonable`, it clones.
class WatchedStore final : public Store {
 public:
  WatchedStore(std::shared_ptr<Store> inner, std::shared_ptr<std::atomic<bool>> refuse, bool clonable,
               std::shared_ptr<std::atomic<int>> writes = std::make_shared<std::atomic<int>>(0))
      : Store(inner->timeout()),
        inner_(std::move(inner)),
        refuse_(std::move(refuse)),
        clonable_(clonable),
        writes_(std::move(writes)) {}
  void set(const std::string& key, const std::string& value) override {
    const bool desync = key.find("ember_desync/") != std::string::npos;
    EMBER_CHECK(!(*refuse_ && desync), "the test refuses desync entries");
    inner_->set(key, value);
    if (desync) ++*writes_;
  }
  std::string get(const std::string& key) override { return inner_->get(key); }
  int64_t add(const std::string& key, int64_t delta) override { return inner_->add(key, delta); }
  std::string compare_set(const std::string& key, const std::string& expected, const std::string& desired) override {
    return inner_->compare_set(key, expected, desired);
  }
  bool check(const std::vector<std::string>& keys) override { return inner_->check(keys); }
  bool delete_key(const std::string& key) override { return inner_->delete_key(key); }
  int64_t num_keys() override { return inner_->num_keys(); }
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    inner_->wait(keys, timeout);
  }
  std::shared_ptr<Store> clone() override {
    if (!clonable_) return Store::clone();
    return std::make_shared<WatchedStore>(inner_->clone(), refuse_, true, writes_);
  }

 private:
  std::shared_ptr<Store> inner_;
  std::shared_ptr<std::atomic<bool>> refuse_;
  bool clonable_;
  std::shared_ptr<std::atomic<int>> writes_;
};

// Note [Desync recorder]: the writes are paced. 150 quick all_reduces write
// a handful of entries (not 150 per rank), and the last one still reaches
// the store.
TEST(GlooDesyncRecorderPacing, ALoopOfCollectivesWritesAFewEntriesEndingWithTheLast) {
  auto shared = std::make_shared<HashStore>(20s);
  auto refuse = std::make_shared<std::atomic<bool>>(false);
  auto writes = std::make_shared<std::atomic<int>>(0);
  auto [g0, g1] = two_ranks(std::make_shared<WatchedStore>(shared, refuse, true, writes),
                            std::make_shared<WatchedStore>(shared, refuse, true, writes));
  const auto start = std::chrono::steady_clock::now();
  std::thread other([&g1 = g1] {
    Tensor t = ember::ones({4});
    for (int i = 0; i < 150; ++i) g1->all_reduce(t)->wait();
  });
  Tensor t = ember::ones({4});
  for (int i = 0; i < 150; ++i) g0->all_reduce(t)->wait();
  other.join();
  const auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  // Per rank: one at once, then at most one per 100 ms.
  EXPECT_LE(writes->load(), 2 * (2 + elapsed_ms / 100)) << "in " << elapsed_ms << " ms";
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline &&
         !(shared->get("ember_desync/0").rfind("149 ", 0) == 0 && shared->get("ember_desync/1").rfind("149 ", 0) == 0))
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(shared->get("ember_desync/0"), "149 all_reduce (SUM, tensor [4] float32)");
  EXPECT_EQ(shared->get("ember_desync/1"), "149 all_reduce (SUM, tensor [4] float32)");
}

// With a clonable store and with one that is not (the recorder then shares
// the group's handle): entries are written, and a refused write is named in
// the next failed collective's report.
class GlooDesyncRecorder : public ::testing::TestWithParam<bool> {};

TEST_P(GlooDesyncRecorder, AFailedEntryWriteIsNamedInTheReport) {
  auto shared = std::make_shared<HashStore>(20s);
  auto refuse = std::make_shared<std::atomic<bool>>(false);
  auto [g0, g1] = two_ranks(std::make_shared<WatchedStore>(shared, refuse, GetParam()),
                            std::make_shared<WatchedStore>(shared, refuse, GetParam()));
  Tensor t0 = ember::ones({2}), t1 = ember::ones({2});
  auto w1 = g1->all_reduce(t1);
  g0->all_reduce(t0)->wait();
  w1->wait();
  // The entries are written asynchronously: both must be in before refusing.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!shared->check({"ember_desync/0", "ember_desync/1"}) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  *refuse = true;
  std::string error;
  try {
    g0->all_reduce(t0, {.timeout = 300ms})->wait();  // rank 1 never enters it
  } catch (const ember::Error& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("all_reduce (SUM, tensor [2] float32) on rank 0 of 2 (sequence number 1) failed after"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("Desync report for sequence number 1 (all_reduce): ranks [1] had not entered it: rank 1 is "
                       "at sequence number 0 (all_reduce (SUM, tensor [2] float32))"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("(rank 0's own desync entries: the test refuses desync entries)"), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(ProcessGroupGloo, GlooDesyncRecorder, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "ClonedStore" : "SharedStore"; });

}  // namespace
