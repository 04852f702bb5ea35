// ProcessGroupGloo's broadcast, all_reduce and barrier on 2 and 4 rank
// processes, against values computed locally.
#include <gtest/gtest.h>

#include <thread>

#include <ember/distributed/init.h>
#include <ember/distributed/tcp_store.h>

#include "gloo_testing.h"
#include "multiprocess.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::DType;
using ember::Tensor;
using ember::testing::gloo_expected_value;
using ember::testing::gloo_input_value;
using ember::testing::init_gloo_from_test_store;
using ember::testing::store_env;
using ember::testing::is_bitwise;
using ember::testing::Ranks;
using ember::testing::tensor_of;
using ember::testing::values_of;
using ember::testing::check_values;
using ember::testing::kAllOps;

// Every dtype x op, on a contiguous [3, 5] tensor and on a transposed
// (non-contiguous) view, which must be updated in place.
EMBER_DIST_WORKER(gloo_all_reduce_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  for (DType dtype : ember::testing::gloo_reduce_dtypes()) {
    for (ReduceOp op : kAllOps) {
      if (!ember::testing::gloo_op_applies(dtype, op)) continue;
      std::vector<double> input(15), expected(15);
      for (int64_t k = 0; k < 15; ++k) {
        input[k] = gloo_input_value(rank, k, dtype, op);
        expected[k] = gloo_expected_value(world_size, k, dtype, op);
      }
      std::ostringstream what;
      what << "rank " << rank << " all_reduce " << reduce_op_name(op) << " " << dtype;
      Tensor t = tensor_of(input, dtype).reshape({3, 5});
      all_reduce(t, op);
      check_values(t, expected, what.str());
      Tensor base = tensor_of(input, dtype).reshape({5, 3});
      Tensor view = base.t();
      EMBER_CHECK(!view.is_contiguous(), "the view should be non-contiguous");
      all_reduce(view, op);
      check_values(base, expected, what.str() + " (non-contiguous)");
    }
  }
  // A tensor larger than gloo's 1 MiB segments.
  const int64_t n = 600'000;
  Tensor big = ember::arange(n, ember::TensorOptions(DType::Float32)).remainder(7).add(rank);
  all_reduce(big, ReduceOp::SUM);
  const float* p = big.data_ptr<float>();
  const double rank_sum = world_size * (world_size - 1) / 2.0;
  for (int64_t i = 0; i < n; i += 997)
    EMBER_CHECK(p[i] == world_size * (i % 7) + rank_sum, "big all_reduce: element ", i, " is ", p[i]);
  destroy_process_group();
}

EMBER_DIST_WORKER(gloo_broadcast_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  std::vector<DType> dtypes = ember::testing::gloo_reduce_dtypes();
  dtypes.push_back(DType::Bool);
  dtypes.push_back(DType::Float16);
  dtypes.push_back(DType::Complex64);
  for (DType dtype : dtypes) {
    for (int root = 0; root < world_size; ++root) {
      auto value = [&](int r, int64_t k) { return dtype == DType::Bool ? double((r + k) % 2) : double(r * 10 + k); };
      std::vector<double> input(12), expected(12);
      for (int64_t k = 0; k < 12; ++k) {
        input[k] = value(rank, k);
        expected[k] = value(root, k);
      }
      std::ostringstream what;
      what << "rank " << rank << " broadcast from " << root << " " << dtype;
      Tensor t = tensor_of(input, dtype).reshape({4, 3});
      broadcast(t, root);
      check_values(t, expected, what.str());
      Tensor base = tensor_of(input, dtype).reshape({3, 4});
      Tensor view = base.t();
      broadcast(view, root);
      check_values(base, expected, what.str() + " (non-contiguous)");
    }
  }
  destroy_process_group();
}

// Nobody leaves the barrier before everybody entered it: each rank counts
// itself in through the store, late ranks later, and reads the count after.
EMBER_DIST_WORKER(gloo_barrier_worker) {
  auto store = init_gloo_from_test_store(rank, world_size);
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(40 * ((rank + round) % world_size)));
    store->add("arrived/" + std::to_string(round), 1);
    barrier();
    const int64_t arrived = store->add("arrived/" + std::to_string(round), 0);
    EMBER_CHECK(arrived == world_size, "rank ", rank, " left barrier ", round, " when ", arrived, " had arrived");
  }
  destroy_process_group();
}

class GlooRanks : public ::testing::TestWithParam<int> {};

TEST_P(GlooRanks, AllReduceEveryOpAndDtype) {
  TCPStoreServer server;
  Ranks ranks("gloo_all_reduce_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(GlooRanks, BroadcastFromEveryRoot) {
  TCPStoreServer server;
  Ranks ranks("gloo_broadcast_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(GlooRanks, BarrierWaitsForEveryRank) {
  TCPStoreServer server;
  Ranks ranks("gloo_barrier_worker", GetParam(), store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

INSTANTIATE_TEST_SUITE_P(ProcessGroupGloo, GlooRanks, ::testing::Values(2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Ranks"; });

}  // namespace
