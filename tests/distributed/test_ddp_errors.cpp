// DistributedDataParallel's errors: a module with nothing to synchronize,
// ranks whose models differ (the error names the rank and the parameter), a
// parameter that got no gradient without find_unused_parameters (PyTorch's
// "Expected to have finished reduction..." naming it), and comm hooks
// registered twice or late.
#include <gtest/gtest.h>

#include <ember/distributed/ddp/ddp_comm_hooks.h>
#include <ember/distributed/ddp/distributed_data_parallel.h>
#include <ember/distributed/init.h>

#include "ddp_testing.h"
#include "gloo_testing.h"
#include "multiprocess.h"

namespace {

using namespace std::chrono_literals;
using namespace ember;
using namespace ember::distributed;
using ember::testing::env_int;

// Runs fn; raises unless it raised an ember::Error containing every needle.
template <class F>
void expect_error(F&& fn, const std::vector<std::string>& needles, const std::string& what) {
  std::string message;
  try {
    fn();
  } catch (const Error& e) {
    message = e.what();
  }
  EMBER_CHECK(!message.empty(), what, ": no ember::Error was raised");
  for (const std::string& needle : needles)
    EMBER_CHECK(message.find(needle) != std::string::npos, what, ": the error lacks '", needle, "': ", message);
}

TEST(DdpErrors, ModuleWithoutTrainableParameters) {
  auto empty = std::make_shared<nn::Module>("Empty");
  expect_error([&] { DistributedDataParallel ddp(empty); },
               {"DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
                "gradient", "Empty"},
               "empty module");
  ember::testing::DdpNet frozen = ember::testing::make_ddp_net();
  for (Tensor& p : frozen->parameters()) p.requires_grad_(false);
  expect_error([&] { DistributedDataParallel ddp(frozen); }, {"doesn't have any parameter that requires a gradient"},
               "frozen module");
}

// DDP_MISMATCH 0: rank 1's hidden layer is wider; 1: rank 1 has an extra head.
EMBER_DIST_WORKER(ddp_mismatch_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  const bool extra_head = env_int("DDP_MISMATCH") == 1;
  ember::testing::DdpNet model = ember::testing::make_ddp_net(!extra_head && rank == 1 ? 9 : 8, extra_head && rank == 1);
  if (extra_head)
    expect_error([&] { DistributedDataParallel ddp(model); },
                 {"rank 1 has 6 parameters that require grad but rank 0 has 4"}, "different parameter counts");
  else
    expect_error([&] { DistributedDataParallel ddp(model); },
                 {"parameter out.weight (index 0) has shape [3, 9] (float64) on rank 1 but [3, 8] (float64) on rank 0"},
                 "different shapes");
  barrier();
  destroy_process_group();
}

class DdpMismatch : public ::testing::TestWithParam<int> {};

TEST_P(DdpMismatch, EveryRankRaisesNamingRankAndParameter) {
  TCPStoreServer server;
  auto env = ember::testing::store_env(server);
  env["DDP_MISMATCH"] = std::to_string(GetParam());
  ember::testing::Ranks ranks("ddp_mismatch_worker", 2, env);
  EXPECT_TRUE(ranks.all_succeed(60s));
}

INSTANTIATE_TEST_SUITE_P(DistributedDataParallel, DdpMismatch, ::testing::Values(0, 1),
                         [](const auto& info) { return info.param ? "ParameterCount" : "ParameterShape"; });

// The extra head gets no gradient and find_unused_parameters is off: the
// backward pass cannot reduce every bucket, and the next forward pass says so.
EMBER_DIST_WORKER(ddp_unused_error_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  ember::testing::DdpNet model = ember::testing::make_ddp_net(8, /*with_extra=*/true);
  DistributedDataParallel ddp(model);
  const ember::testing::Batch batch = ember::testing::global_batch(0, 4);
  ddp.forward([&] { return nn::functional::mse_loss(model(batch.x), batch.y); }).backward();
  expect_error([&] { ddp.forward([&] { return model(batch.x); }); },
               {"Expected to have finished reduction in the prior iteration before starting a new one",
                "find_unused_parameters",
                "Parameter indices which did not receive grad for rank " + std::to_string(rank) + ": 4 5",
                "Parameters which did not receive grad for rank " + std::to_string(rank) + ": extra.weight, extra.bias"},
               "unused parameters");
  barrier();
  destroy_process_group();
}

TEST(DdpErrors, UnusedParameterWithoutFindUnusedNamesIt) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("ddp_unused_error_worker", 2, ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

EMBER_DIST_WORKER(ddp_hook_registration_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  ember::testing::DdpNet model = ember::testing::make_ddp_net();
  DistributedDataParallel ddp(model);
  ddp.register_comm_hook(nullptr, ddp_comm_hooks::allreduce_hook);
  expect_error([&] { ddp.register_comm_hook(nullptr, ddp_comm_hooks::fp16_compress_hook); },
               {"register_comm_hook may only be called once"}, "second hook");
  DistributedDataParallel late(model);
  const ember::testing::Batch batch = ember::testing::global_batch(0, 4);
  late.forward([&] { return nn::functional::mse_loss(model(batch.x), batch.y); }).backward();
  expect_error([&] { late.register_comm_hook(nullptr, ddp_comm_hooks::allreduce_hook); },
               {"register the hook before the first forward pass"}, "late hook");
  barrier();
  destroy_process_group();
}

TEST(DdpErrors, CommHookRegisteredTwiceOrLate) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("ddp_hook_registration_worker", 2, ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

}  // namespace
