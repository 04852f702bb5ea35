// DistributedDataParallel training vs single-process training: every rank
// trains its shard of each global batch with DDP and, next to it, the same
// network on the whole global batch in one process (float64); parameters must
// agree to 1e-12 after every step. Variants: 2 and 4 ranks, many buckets
// (bucket rebuild order checked), gradient_as_bucket_view, no_sync gradient
// accumulation, find_unused_parameters (a head no rank uses, and a head only
// rank 0 uses), static_graph, and buffers broadcast from rank 0.
#include <gtest/gtest.h>

#include <ember/autograd/grad_mode.h>
#include <ember/distributed/ddp/distributed_data_parallel.h>
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

constexpr int64_t kGlobalBatch = 8;
constexpr double kLr = 0.1;

// Which parameters get gradients. kNone: no extra head; kUnused: an extra
// head no rank uses; kRank0: an extra head only rank 0's shard uses.
enum ExtraHead : int { kNone = 0, kUnused = 1, kRank0 = 2 };

// env: DDP_RANKS_EXTRA (ExtraHead), DDP_FIND_UNUSED, DDP_BUCKET_VIEW,
// DDP_STATIC_GRAPH, DDP_MICRO_STEPS (forward/backward passes per step, all
// but the last under no_sync), DDP_STEPS.
EMBER_DIST_WORKER(ddp_train_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  const auto extra = static_cast<ExtraHead>(env_int("DDP_EXTRA"));
  const bool bucket_view = env_int("DDP_BUCKET_VIEW") != 0;
  const int64_t micro_steps = env_int("DDP_MICRO_STEPS");
  const int64_t steps = env_int("DDP_STEPS");

  ember::testing::DdpNet reference = ember::testing::make_ddp_net(8, extra != kNone);
  ember::testing::DdpNet model = ember::testing::make_ddp_net(8, extra != kNone);
  {
    // Ranks other than 0 start elsewhere: construction must broadcast rank 0's state.
    NoGradGuard no_grad;
    for (Tensor& p : model->parameters()) p.add_(0.5 * rank);
    model->scale.fill_(1.0 + rank);
    model->steps.add_(rank);
    model->table.add_(rank);
  }
  EMBER_CHECK(!model->table.is_contiguous(), "the test wants a non-contiguous buffer");
  // A bucket per parameter (the first bucket too), so that launch order is
  // visible; with gradient_as_bucket_view one bucket, so that every .grad
  // must be a view of one buffer.
  DistributedDataParallel ddp(model, {.bucket_cap_mb = bucket_view ? 25.0 : 1e-7,
                                      .find_unused_parameters = env_int("DDP_FIND_UNUSED") != 0,
                                      .gradient_as_bucket_view = bucket_view,
                                      .static_graph = env_int("DDP_STATIC_GRAPH") != 0});
  EMBER_CHECK(ember::testing::max_parameter_diff(*model, *reference) == 0, "rank ", rank,
              ": construction did not broadcast rank 0's parameters");
  auto expect_rank0_buffers = [&](const char* when) {
    EMBER_CHECK(model->scale.item<double>() == 1.0, "rank ", rank, " ", when, ": the buffer is ",
                model->scale.item<double>(), ", expected rank 0's 1");
    EMBER_CHECK(model->steps.equal(reference->steps) && model->table.equal(reference->table), "rank ", rank, " ",
                when, ": the int64 or the non-contiguous buffer differs from rank 0's");
  };
  expect_rank0_buffers("after construction");
  // Before any iteration: reverse registration order.
  const size_t num_params = ddp.parameter_names().size();
  std::vector<size_t> reverse_registration;
  for (size_t v = num_params; v-- > 0;) reverse_registration.push_back(v);
  if (bucket_view) {
    EMBER_CHECK(ddp.bucket_indices() == std::vector<std::vector<size_t>>{reverse_registration}, "rank ", rank,
                ": expected one bucket in reverse registration order");
  } else {
    for (size_t b = 0; b < num_params; ++b)
      EMBER_CHECK(ddp.bucket_indices()[b] == std::vector<size_t>{reverse_registration[b]}, "rank ", rank,
                  ": bucket ", b, " is not parameter ", reverse_registration[b]);
  }

  optim::SGD ddp_opt(model->parameters(), {.lr = kLr});
  optim::SGD ref_opt(reference->parameters(), {.lr = kLr});
  std::vector<const void*> grad_addresses;
  for (int64_t step = 0; step < steps; ++step) {
    // Bucket views survive zero_grad(set_to_none = false).
    ddp_opt.zero_grad(/*set_to_none=*/!bucket_view);
    ref_opt.zero_grad();
    for (int64_t micro = 0; micro < micro_steps; ++micro) {
      const ember::testing::Batch batch = ember::testing::global_batch(step * micro_steps + micro, kGlobalBatch);
      const ember::testing::Batch mine = ember::testing::shard(batch, rank, world_size);
      if (rank != 0) {  // every synchronized forward pass broadcasts rank 0's buffers again
        NoGradGuard no_grad;
        model->scale.fill_(2.0);
        model->table.fill_(-1.0);
      }
      auto run = [&] {
        Tensor loss = ddp.forward([&] { return nn::functional::mse_loss(model(mine.x, extra == kRank0 && rank == 0), mine.y); });
        loss.backward();
      };
      if (micro + 1 < micro_steps) {
        auto guard = ddp.no_sync();
        run();
      } else {
        run();
      }
      if (extra == kRank0) {
        // Rank-dependent graphs: the reference averages the shards' gradients.
        for (int r = 0; r < world_size; ++r) {
          const ember::testing::Batch part = ember::testing::shard(batch, r, world_size);
          (nn::functional::mse_loss(reference(part.x, r == 0), part.y) / world_size).backward();
        }
      } else {
        nn::functional::mse_loss(reference(batch.x), batch.y).backward();
      }
    }
    expect_rank0_buffers("after a forward pass");
    if (extra == kUnused)
      for (const Tensor& p : {model->extra->weight, model->extra->bias})
        EMBER_CHECK(!p.grad().defined(), "rank ", rank, ": a parameter no rank used got a gradient");
    if (bucket_view) {
      // Every gradient is a slice of the one bucket's buffer.
      std::vector<const void*> addresses;
      const StorageImpl* bucket = nullptr;
      int64_t total = 0;
      for (const Tensor& p : model->parameters()) {
        total += p.numel();
        if (!p.grad().defined()) continue;
        if (!bucket) bucket = p.grad().storage().get();
        EMBER_CHECK(p.grad().storage().get() == bucket, "rank ", rank,
                    ": with gradient_as_bucket_view every .grad must view the bucket's buffer");
        addresses.push_back(p.grad().data_ptr());
      }
      EMBER_CHECK(bucket && bucket->nbytes() == static_cast<size_t>(total) * sizeof(double), "rank ", rank,
                  ": the gradients' storage is not the bucket of all parameters");
      // Buckets are rebuilt at step 1's forward pass; from then on the views stay.
      if (step >= 2)
        EMBER_CHECK(addresses == grad_addresses, "rank ", rank, ": the bucket views moved at step ", step);
      grad_addresses = addresses;
    }
    ddp_opt.step();
    ref_opt.step();
    const double diff = ember::testing::max_parameter_diff(*model, *reference);
    EMBER_CHECK(diff <= 1e-12, "rank ", rank, ": after step ", step, " DDP and single-process parameters differ by ",
                diff);
    if (step == 1 && extra == kNone) {
      // Rebuilt in the order gradients arrived: the output layer (parameters 0
      // and 1, registered first, nearest the loss) before the hidden layer.
      std::vector<size_t> order;
      for (const auto& bucket : ddp.bucket_indices()) order.insert(order.end(), bucket.begin(), bucket.end());
      EMBER_CHECK(order.size() == 4 && order[0] <= 1 && order[1] <= 1 && order[2] >= 2 && order[3] >= 2, "rank ", rank,
                  ": rebuilt buckets are not in arrival order: ", order[0], " ", order[1], " ", order[2], " ",
                  order[3]);
    }
  }
  barrier();
  destroy_process_group();
}

struct TrainCase {
  std::string name;
  int world_size;
  std::map<std::string, std::string> env;
};

std::map<std::string, std::string> train_env(ExtraHead extra = kNone, bool find_unused = false,
                                             bool bucket_view = false, bool static_graph = false,
                                             int micro_steps = 1, int steps = 4) {
  return {{"DDP_EXTRA", std::to_string(extra)},
          {"DDP_FIND_UNUSED", find_unused ? "1" : "0"},
          {"DDP_BUCKET_VIEW", bucket_view ? "1" : "0"},
          {"DDP_STATIC_GRAPH", static_graph ? "1" : "0"},
          {"DDP_MICRO_STEPS", std::to_string(micro_steps)},
          {"DDP_STEPS", std::to_string(steps)}};
}

class DdpTraining : public ::testing::TestWithParam<TrainCase> {};

TEST_P(DdpTraining, MatchesSingleProcessTraining) {
  TCPStoreServer server;
  auto env = ember::testing::store_env(server);
  env.insert(GetParam().env.begin(), GetParam().env.end());
  ember::testing::Ranks ranks("ddp_train_worker", GetParam().world_size, env);
  EXPECT_TRUE(ranks.all_succeed(120s));
}

INSTANTIATE_TEST_SUITE_P(
    DistributedDataParallel, DdpTraining,
    ::testing::Values(TrainCase{"TwoRanks", 2, train_env()}, TrainCase{"FourRanks", 4, train_env()},
                      TrainCase{"GradientAsBucketView", 2, train_env(kNone, false, true)},
                      TrainCase{"NoSyncAccumulation", 2, train_env(kNone, false, false, false, 3)},
                      TrainCase{"NoSyncWithBucketView", 2, train_env(kNone, false, true, false, 2)},
                      TrainCase{"FindUnusedParameters", 2, train_env(kUnused, true)},
                      TrainCase{"FindUnusedLocallyUnused", 2, train_env(kRank0, true)},
                      TrainCase{"FindUnusedLocallyUnusedFourRanks", 4, train_env(kRank0, true, true)},
                      TrainCase{"StaticGraph", 2, train_env(kUnused, false, false, true)},
                      TrainCase{"StaticGraphFindUnused", 2, train_env(kUnused, true, false, true)}),
    [](const auto& info) { return info.param.name; });

}  // namespace
