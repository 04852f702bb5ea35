// new_group: sub-groups of the default group with their own store prefix
// and ranks; non-members get null.
#include <gtest/gtest.h>

#include <ember/distributed/init.h>
#include <ember/distributed/tcp_store.h>

#include "gloo_testing.h"
#include "multiprocess.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::Tensor;

// Every rank makes the group of the odd ranks, then of the even ranks, then
// of all (listed in reverse: ranks are sorted); each member all-reduces its
// world rank in its group and broadcasts from the group's rank 0.
EMBER_DIST_WORKER(gloo_new_group_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  std::vector<int64_t> odd, even, all;
  for (int r = 0; r < world_size; ++r) (r % 2 ? odd : even).push_back(r);
  for (int r = world_size - 1; r >= 0; --r) all.push_back(r);
  for (const auto& ranks : {odd, even, all}) {
    auto group = new_group(ranks);
    const auto member = std::find(ranks.begin(), ranks.end(), rank);
    if (member == ranks.end()) {
      EMBER_CHECK(group == nullptr, "rank ", rank, " is no member but got a group");
      continue;
    }
    EMBER_CHECK(group != nullptr, "rank ", rank, " is a member but got no group");
    std::vector<int64_t> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    const int64_t expected_rank = std::find(sorted.begin(), sorted.end(), rank) - sorted.begin();
    EMBER_CHECK(group->rank() == expected_rank && group->size() == static_cast<int64_t>(ranks.size()), "rank ", rank,
                " got group rank ", group->rank(), " of ", group->size());
    Tensor t = ember::tensor(std::vector<double>{static_cast<double>(rank)}, ember::TensorOptions(ember::DType::Float64));
    group->all_reduce(t)->wait();
    double sum = 0;
    for (int64_t r : ranks) sum += static_cast<double>(r);
    EMBER_CHECK(t.item<double>() == sum, "rank ", rank, " group sum ", t.item<double>(), ", expected ", sum);
    Tensor b = ember::tensor(std::vector<double>{static_cast<double>(rank)}, ember::TensorOptions(ember::DType::Float64));
    group->broadcast(b, {.root_rank = 0})->wait();
    EMBER_CHECK(b.item<double>() == static_cast<double>(sorted[0]), "rank ", rank, " broadcast got ", b.item<double>());
  }
  // Bad ranks raise at the call.
  bool raised = false;
  try {
    new_group({0, static_cast<int64_t>(world_size)});
  } catch (const ember::Error& e) {
    raised = std::string(e.what()).find("new_group: rank " + std::to_string(world_size) + " is outside [0, " +
                                        std::to_string(world_size) + ")") != std::string::npos;
  }
  EMBER_CHECK(raised, "an out-of-range rank must raise");
  barrier();
  destroy_process_group();
}

class GlooNewGroup : public ::testing::TestWithParam<int> {};

TEST_P(GlooNewGroup, SubGroupsReduceAmongTheirMembers) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("gloo_new_group_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

INSTANTIATE_TEST_SUITE_P(ProcessGroupGloo, GlooNewGroup, ::testing::Values(2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Ranks"; });

}  // namespace
