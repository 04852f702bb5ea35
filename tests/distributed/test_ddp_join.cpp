// Join with uneven inputs: the last rank has 3 fewer batches than the others.
// Nobody hangs, and every rank ends with the parameters of a float64
// reference that applies DDP's rule: while a rank has joined it contributes
// zeros, and the summed gradients are divided by the initial world size
// (divide_by_initial_world_size, the default) or by the number of ranks still
// training.
#include <gtest/gtest.h>

#include <ember/autograd/grad_mode.h>
#include <ember/distributed/ddp/distributed_data_parallel.h>
#include <ember/distributed/ddp/join.h>
#include <ember/distributed/init.h>
#include <ember/optim/sgd.h>

#include "ddp_testing.h"
#include "gloo_testing.h"
#include "multiprocess.h"

namespace {

using namespace std::chrono_literals;
using namespace ember;
using namespace ember::distributed;
using ember::testing::env_int;

constexpr int64_t kBatches = 5;
constexpr int64_t kShortBy = 3;
constexpr double kLr = 0.1;

int64_t batches_of(int rank, int world_size) { return rank == world_size - 1 ? kBatches - kShortBy : kBatches; }

// Rank r's k-th batch (4 rows).
ember::testing::Batch batch_of(int rank, int64_t k) { return ember::testing::global_batch(100 * rank + k, 4); }

EMBER_DIST_WORKER(ddp_join_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  const bool divide_by_initial = env_int("DDP_DIVIDE_BY_INITIAL_WORLD_SIZE") != 0;
  // With find_unused_parameters the network has a head nobody uses: the
  // joined ranks also shadow the all_reduce of which parameters were used.
  const bool find_unused = env_int("DDP_FIND_UNUSED") != 0;
  ember::testing::DdpNet model = ember::testing::make_ddp_net(8, find_unused);
  DistributedDataParallel ddp(model, {.bucket_cap_mb = 1e-7, .find_unused_parameters = find_unused});
  optim::SGD opt(model->parameters(), {.lr = kLr});
  join(
      {&ddp},
      [&] {
        for (int64_t k = 0; k < batches_of(rank, world_size); ++k) {
          const ember::testing::Batch b = batch_of(rank, k);
          Tensor loss = ddp.forward([&] { return nn::functional::mse_loss(model(b.x), b.y); });
          opt.zero_grad();
          loss.backward();
          opt.step();
        }
      },
      {.divide_by_initial_world_size = divide_by_initial});

  // The reference: each step sums the gradients of the ranks that still have
  // a batch and divides by the world size or by their number.
  ember::testing::DdpNet reference = ember::testing::make_ddp_net(8, find_unused);
  optim::SGD ref_opt(reference->parameters(), {.lr = kLr});
  for (int64_t k = 0; k < kBatches; ++k) {
    ref_opt.zero_grad();
    int contributing = 0;
    for (int r = 0; r < world_size; ++r) contributing += k < batches_of(r, world_size);
    const double divisor = divide_by_initial ? world_size : contributing;
    for (int r = 0; r < world_size; ++r) {
      if (k >= batches_of(r, world_size)) continue;
      const ember::testing::Batch b = batch_of(r, k);
      (nn::functional::mse_loss(reference(b.x), b.y) / divisor).backward();
    }
    ref_opt.step();
  }
  const double diff = ember::testing::max_parameter_diff(*model, *reference);
  EMBER_CHECK(diff <= 1e-12, "rank ", rank, ": after join the parameters differ from the reference by ", diff);
  barrier();
  destroy_process_group();
}

struct JoinCase {
  int world_size;
  bool divide_by_initial_world_size;
  bool find_unused_parameters = false;
};

class DdpJoin : public ::testing::TestWithParam<JoinCase> {};

TEST_P(DdpJoin, UnevenInputsNoHangAndCorrectResult) {
  TCPStoreServer server;
  auto env = ember::testing::store_env(server);
  env["DDP_DIVIDE_BY_INITIAL_WORLD_SIZE"] = GetParam().divide_by_initial_world_size ? "1" : "0";
  env["DDP_FIND_UNUSED"] = GetParam().find_unused_parameters ? "1" : "0";
  ember::testing::Ranks ranks("ddp_join_worker", GetParam().world_size, env);
  EXPECT_TRUE(ranks.all_succeed(120s));
}

INSTANTIATE_TEST_SUITE_P(DistributedDataParallel, DdpJoin,
                         ::testing::Values(JoinCase{2, true}, JoinCase{2, false}, JoinCase{3, true},
                                           JoinCase{3, false}, JoinCase{3, true, true}),
                         [](const auto& info) {
                           return std::to_string(info.param.world_size) + "Ranks" +
                                  (info.param.divide_by_initial_world_size ? "DivideByInitialWorldSize"
                                                                           : "DivideByActiveRanks") +
                                  (info.param.find_unused_parameters ? "FindUnusedParameters" : "");
                         });

}  // namespace
