// ZeroRedundancyOptimizer with overlap_with_ddp, stepped by
// hook_with_zero_step and hook_with_zero_step_interleaved inside DDP's
// backward pass, against the same network trained on the whole global batch
// in one process (float64): the first two iterations update nothing (torch
// 1.10's warm-up while DDP's buckets are rebuilt), later ones must give the
// same parameters to 1e-12; SGD with momentum and Adam; 2 and 4 ranks, one
// bucket per parameter (buckets owned round robin); the consolidated state
// equals the plain optimizer's; the errors of misuse.
#include <gtest/gtest.h>

#include <ember/autograd/grad_mode.h>
#include <ember/distributed/ddp/ddp_comm_hooks.h>
#include <ember/distributed/ddp/distributed_data_parallel.h>
#include <ember/distributed/init.h>
#include <ember/distributed/zero_redundancy_optimizer.h>
#include <ember/optim/adam.h>
#include <ember/optim/sgd.h>

#include "ddp_testing.h"
#include "gloo_testing.h"
#include "multiprocess.h"

namespace {

using namespace std::chrono_literals;
using namespace ember;
using namespace ember::distributed;
using namespace ember::distributed::ddp_comm_hooks;
using ember::testing::env_int;

constexpr int64_t kGlobalBatch = 8;
constexpr int64_t kWarmupIterations = 2;  // no update while DDP rebuilds its buckets

std::string zo_error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "(no error)";
}

// env: ZO_INTERLEAVED (0/1), ZO_ADAM (0: SGD with momentum, 1: Adam).
EMBER_DIST_WORKER(zero_overlap_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  const bool interleaved = env_int("ZO_INTERLEAVED") != 0;
  const bool adam = env_int("ZO_ADAM") != 0;
  ember::testing::DdpNet model = ember::testing::make_ddp_net(8);
  ember::testing::DdpNet reference = ember::testing::make_ddp_net(8);
  auto make_shard_optimizer = [&] {
    return adam ? zero_optimizer<optim::Adam>({.lr = 0.05}) : zero_optimizer<optim::SGD>({.lr = 0.1, .momentum = 0.9});
  };
  ZeroRedundancyOptimizer zero(model->parameters(), make_shard_optimizer(), {.overlap_with_ddp = true});
  std::unique_ptr<optim::Optimizer> ref_opt;
  if (adam)
    ref_opt = std::make_unique<optim::Adam>(reference->parameters(), optim::AdamOptions{.lr = 0.05});
  else
    ref_opt = std::make_unique<optim::SGD>(reference->parameters(), optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
  DistributedDataParallel ddp(model, {.bucket_cap_mb = 1e-7});  // a bucket per parameter
  ddp.register_comm_hook(nullptr, interleaved ? hook_with_zero_step_interleaved(allreduce_hook, ddp, zero)
                                              : hook_with_zero_step(allreduce_hook, ddp, zero));
  // Before the partition: step() does nothing; the state cannot be consolidated.
  EMBER_CHECK(!zero.step().defined(), "rank ", rank, ": step() returned a loss with overlap_with_ddp");
  const std::string early = zo_error_of([&] { zero.consolidate_state_dict(0); });
  EMBER_CHECK(early.find("consolidate_state_dict: with overlap_with_ddp the parameters are partitioned once "
                         "DistributedDataParallel has rebuilt its buckets") != std::string::npos,
              "rank ", rank, ": ", early);

  for (int64_t step = 0; step < 6; ++step) {
    const ember::testing::Batch batch = ember::testing::global_batch(step, kGlobalBatch);
    const ember::testing::Batch mine = ember::testing::shard(batch, rank, world_size);
    for (Tensor& p : model->parameters()) p.mutable_grad() = Tensor();
    ref_opt->zero_grad();
    Tensor loss = ddp.forward([&] { return nn::functional::mse_loss(model(mine.x), mine.y); });
    loss.backward();  // reduces and (from the third iteration on) steps
    nn::functional::mse_loss(reference(batch.x), batch.y).backward();
    if (step >= kWarmupIterations) ref_opt->step();
    EMBER_CHECK(zero.overlap_initialized() == (step >= kWarmupIterations), "rank ", rank, ": iteration ", step,
                " initialized ", zero.overlap_initialized());
    const double diff = ember::testing::max_parameter_diff(*model, *reference);
    EMBER_CHECK(diff <= 1e-12, "rank ", rank, ": after iteration ", step, " the overlapped ZeRO and the plain ",
                "optimizer's parameters differ by ", diff);
  }
  // Buckets round robin over the ranks: four buckets, parameters in arrival order.
  EMBER_CHECK(zero.overlap_num_buckets() == 4, "rank ", rank, ": ", zero.overlap_num_buckets(), " buckets");
  for (int64_t b = 0; b < 4; ++b) EMBER_CHECK(zero.overlap_bucket_owner(b) == b % world_size, "bucket owner");
  // The consolidated state is the plain optimizer's.
  zero.consolidate_state_dict(0);
  if (rank == 0) {
    const optim::OptimizerStateDict got = zero.state_dict(), want = ref_opt->state_dict();
    EMBER_CHECK(got.state.size() == want.state.size(), "rank 0: ", got.state.size(), " states, expected ",
                want.state.size());
    for (const auto& [index, state] : want.state)
      for (const auto& [key, value] : state) {
        if (!value.is_tensor()) continue;
        const Tensor g = got.state.at(index).at(key).to_tensor();
        const double d = ember::testing::max_abs_diff(g, value.to_tensor());
        EMBER_CHECK(d <= 1e-12, "rank 0: state '", key, "' of parameter ", index, " differs by ", d);
      }
  }
  barrier();
  destroy_process_group();
}

EMBER_DIST_WORKER(zero_overlap_errors_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  ember::testing::DdpNet model = ember::testing::make_ddp_net(8);
  DistributedDataParallel ddp(model);
  ZeroRedundancyOptimizer plain(model->parameters(), zero_optimizer<optim::SGD>({.lr = 0.1}));
  const std::string not_overlap = zo_error_of([&] { (void)hook_with_zero_step(allreduce_hook, ddp, plain); });
  EMBER_CHECK(not_overlap.find("must be constructed with overlap_with_ddp = true") != std::string::npos, not_overlap);
  std::vector<optim::ParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{model->out->weight, model->out->bias});
  groups.emplace_back(std::vector<Tensor>{model->hidden->weight, model->hidden->bias});
  const std::string two_groups = zo_error_of([&] {
    ZeroRedundancyOptimizer z(groups, zero_optimizer<optim::SGD>({.lr = 0.1}), {.overlap_with_ddp = true});
  });
  EMBER_CHECK(two_groups.find("overlap_with_ddp supports a single parameter group, got 2") != std::string::npos,
              two_groups);
  ZeroRedundancyOptimizer overlapped(model->parameters(), zero_optimizer<optim::SGD>({.lr = 0.1}),
                                     {.overlap_with_ddp = true});
  const std::string added = zo_error_of([&] { overlapped.add_param_group(optim::ParamGroup({model->scale})); });
  EMBER_CHECK(added.find("add_param_group is not allowed") != std::string::npos, added);
  const std::string owner = zo_error_of([&] { (void)overlapped.owner_rank(model->out->weight); });
  EMBER_CHECK(owner.find("owner_rank: with overlap_with_ddp") != std::string::npos, owner);
  barrier();
  destroy_process_group();
}

struct OverlapCase {
  std::string name;
  int world_size;
  bool interleaved;
  bool adam;
};

class ZeroOverlap : public ::testing::TestWithParam<OverlapCase> {};

TEST_P(ZeroOverlap, MatchesThePlainOptimizerAfterTheWarmup) {
  TCPStoreServer server;
  auto env = ember::testing::store_env(server);
  env["ZO_INTERLEAVED"] = GetParam().interleaved ? "1" : "0";
  env["ZO_ADAM"] = GetParam().adam ? "1" : "0";
  ember::testing::Ranks ranks("zero_overlap_worker", GetParam().world_size, env);
  EXPECT_TRUE(ranks.all_succeed(120s));
}

INSTANTIATE_TEST_SUITE_P(ZeroRedundancyOptimizer, ZeroOverlap,
                         ::testing::Values(OverlapCase{"TwoRanksSgd", 2, false, false},
                                           OverlapCase{"TwoRanksSgdInterleaved", 2, true, false},
                                           OverlapCase{"TwoRanksAdamInterleaved", 2, true, true},
                                           OverlapCase{"FourRanksAdam", 4, false, true}),
                         [](const auto& info) { return info.param.name; });

TEST(ZeroOverlapErrors, MisuseRaises) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("zero_overlap_errors_worker", 2, ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

}  // namespace
