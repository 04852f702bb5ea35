// ZeroRedundancyOptimizer on 2 and 4 rank processes: float64 trajectories of
// SGD with momentum and of Adam (several parameter groups, uneven parameter
// sizes, bucket views or not) equal to the unsharded optimizer's, the greedy
// partition, consolidate_state_dict / state_dict against the plain
// optimizer's state_dict, load_state_dict round trips (also into another
// world size) and the errors of bad input.
#include <gtest/gtest.h>

#include <cmath>

#include <ember/autograd/autograd.h>
#include <ember/distributed/init.h>
#include <ember/distributed/tcp_store.h>
#include <ember/distributed/zero_redundancy_optimizer.h>
#include <ember/nn/functional/loss.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>
#include <ember/optim/adam.h>
#include <ember/optim/sgd.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/safetensors.h>

#include "gloo_testing.h"
#include "multiprocess.h"
#include "temp_dir.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::Tensor;
using ember::TensorOptions;
namespace optim = ember::optim;

const TensorOptions kF64 = TensorOptions(ember::DType::Float64);

// Deterministic values (the same on every rank) without a generator.
Tensor zero_values(std::vector<int64_t> shape, double seed) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return ember::arange(n, kF64).mul(0.37).add(seed).sin().mul(0.5).reshape(ember::IntArrayRef(shape));
}

// A two-layer perceptron as loose parameters of uneven sizes (24, 6, 18, 3)
// plus an extra [5] and a 0-d one, so that the partition is uneven.
std::vector<Tensor> zero_model_params() {
  std::vector<std::vector<int64_t>> shapes = {{6, 4}, {6}, {3, 6}, {3}, {5}, {}};
  std::vector<Tensor> params;
  for (size_t i = 0; i < shapes.size(); ++i)
    params.push_back(zero_values(shapes[i], 0.3 * static_cast<double>(i)).requires_grad_());
  return params;
}

std::vector<Tensor> clone_params(const std::vector<Tensor>& params) {
  std::vector<Tensor> out;
  for (const Tensor& p : params) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

// The loss of rows [begin, end) of step s's global batch of 8.
Tensor zero_loss(const std::vector<Tensor>& p, int step, int64_t begin, int64_t end) {
  Tensor x = zero_values({8, 4}, 1.0 + step).narrow(0, begin, end - begin);
  Tensor y = zero_values({8, 3}, 2.0 + step).narrow(0, begin, end - begin);
  Tensor h = x.matmul(p[0].t()).add(p[1]).tanh();
  Tensor out = h.matmul(p[2].t()).add(p[3]);
  return ember::nn::functional::mse_loss(out, y) + p[4].pow(2).mul(0.1).sum() + p[5].mul(p[5]).mul(0.3);
}

// Gradients of this rank's slice of the batch, averaged over the ranks of
// group (null: the default group; rank and world are in it): what DDP gives.
void zero_distributed_grads(const std::vector<Tensor>& params, int step, int rank, int world,
                            const std::shared_ptr<ProcessGroup>& group = nullptr) {
  const int64_t rows = 8 / world;
  zero_loss(params, step, rank * rows, (rank + 1) * rows).backward();
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (group)
      group->all_reduce(g, {.reduce_op = ReduceOp::AVG})->wait();
    else
      all_reduce(g, ReduceOp::AVG);
  }
}

void zero_full_grads(const std::vector<Tensor>& params, int step) { zero_loss(params, step, 0, 8).backward(); }

double max_diff(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, a[i].detach().sub(b[i].detach()).abs().max().item<double>());
  return worst;
}

void expect_close(const std::vector<Tensor>& got, const std::vector<Tensor>& want, const std::string& what) {
  const double d = max_diff(got, want);
  EMBER_CHECK(d <= 1e-12, what, ": parameters differ by ", d);
}

void expect_same_state(const optim::OptimizerStateDict& got, const optim::OptimizerStateDict& want,
                       const std::string& what) {
  EMBER_CHECK(got.param_groups.size() == want.param_groups.size(), what, ": group counts differ");
  for (size_t g = 0; g < got.param_groups.size(); ++g) {
    EMBER_CHECK(got.param_groups[g].params == want.param_groups[g].params, what, ": group ", g, " indices differ");
    EMBER_CHECK(got.param_groups[g].options == want.param_groups[g].options, what, ": group ", g, " options differ");
  }
  EMBER_CHECK(got.state.size() == want.state.size(), what, ": ", got.state.size(), " states, expected ",
              want.state.size());
  for (const auto& [index, state] : want.state) {
    auto it = got.state.find(index);
    EMBER_CHECK(it != got.state.end(), what, ": no state for parameter ", index);
    EMBER_CHECK(it->second.size() == state.size(), what, ": parameter ", index, " has other state keys");
    for (const auto& [key, value] : state) {
      const auto& other = it->second.at(key);
      if (!value.is_tensor()) {
        EMBER_CHECK(other == value, what, ": parameter ", index, " '", key, "' differs");
        continue;
      }
      const Tensor a = value.to_tensor(), b = other.to_tensor();
      EMBER_CHECK(a.dtype() == b.dtype() && a.sizes() == b.sizes(), what, ": parameter ", index, " '", key,
                  "' dtype or shape differs");
      const double d = a.to(ember::DType::Float64).sub(b.to(ember::DType::Float64)).abs().max().item<double>();
      EMBER_CHECK(d <= 1e-12, what, ": parameter ", index, " '", key, "' differs by ", d);
    }
  }
}

std::vector<optim::ParamGroup> zero_groups(const std::vector<Tensor>& p, bool adam) {
  std::vector<optim::ParamGroup> groups;
  if (adam) {
    groups.emplace_back(std::vector<Tensor>{p[0], p[3], p[5]}, optim::AdamOptions{.lr = 0.02});
    groups.emplace_back(std::vector<Tensor>{p[1], p[2]},
                        optim::AdamOptions{.lr = 0.05, .betas = {0.8, 0.99}, .weight_decay = 0.01, .amsgrad = true});
  } else {
    groups.emplace_back(std::vector<Tensor>{p[0], p[1], p[2], p[3], p[5]});
  }
  return groups;
}

// Five steps of ZeRO (distributed gradients) against the plain optimizer
// (full-batch gradients) on copies of the same parameters; then a new group
// (p[4]) is added to both and three more steps run.
// The learning rate of group 0 changes before step 3 (as a scheduler's would).
void zero_trajectory(int rank, int world, bool adam, bool bucket_view,
                     const std::shared_ptr<ProcessGroup>& group = nullptr) {
  std::vector<Tensor> p = zero_model_params(), q = clone_params(p);
  ShardOptimizer shard = adam ? zero_optimizer<optim::Adam>({.lr = 0.01})
                              : zero_optimizer<optim::SGD>({.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01});
  ZeroRedundancyOptimizer zero(zero_groups(p, adam), shard,
                               {.process_group = group, .parameters_as_bucket_view = bucket_view});
  std::unique_ptr<optim::Optimizer> plain;
  if (adam)
    plain = std::make_unique<optim::Adam>(zero_groups(q, adam), optim::AdamOptions{.lr = 0.01});
  else
    plain = std::make_unique<optim::SGD>(zero_groups(q, adam),
                                         optim::SGDOptions{.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01});
  const std::string what = std::string(adam ? "Adam" : "SGD") + (bucket_view ? " (bucket view)" : "") + " rank " +
                           std::to_string(rank);
  for (int step = 0; step < 8; ++step) {
    if (step == 3) {
      zero.param_groups()[0].set_lr(zero.param_groups()[0].lr() * 0.5);
      plain->param_groups()[0].set_lr(plain->param_groups()[0].lr() * 0.5);
    }
    if (step == 4 && bucket_view) {
      // New data for a parameter (as Module::to gives): step() re-buckets it.
      ember::NoGradGuard no_grad;
      p[2].set_data(p[2].detach().clone());
    }
    if (step == 5) {
      zero.add_param_group(optim::ParamGroup({p[4]}, {{"lr", optim::Value(0.03)}}));
      plain->add_param_group(optim::ParamGroup({q[4]}, {{"lr", optim::Value(0.03)}}));
    }
    zero.zero_grad();
    plain->zero_grad();
    zero_distributed_grads(p, step, rank, world, group);
    zero_full_grads(q, step);
    zero.step();
    plain->step();
    expect_close(p, q, what + " step " + std::to_string(step));
  }
  // Each rank holds the state of its own shard only.
  size_t mine = 0;
  for (const auto& group : zero.shard(rank)) mine += group.size();
  EMBER_CHECK(zero.local_optimizer().state_size() == mine, what, ": the local optimizer holds ",
              zero.local_optimizer().state_size(), " states, its shard has ", mine, " parameters");
}

EMBER_DIST_WORKER(zero_trajectory_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  for (bool adam : {false, true})
    for (bool bucket_view : {false, true}) zero_trajectory(rank, world_size, adam, bucket_view);
  if (world_size == 4) {
    // Ranks {0, 1} and {2, 3} shard over their own groups.
    auto low = new_group({0, 1});
    auto high = new_group({2, 3});
    auto mine = rank < 2 ? low : high;
    zero_trajectory(static_cast<int>(mine->rank()), 2, true, true, mine);
  }
  destroy_process_group();
}

// Frozen parameters are left out of the broadcasts (torch 1.10): p[4] is
// frozen and holds a value of each rank's own, which survives three steps (a
// broadcast from its owner would overwrite it on the other ranks), while the
// trainable parameters follow the plain optimizer; with and without bucket views.
EMBER_DIST_WORKER(zero_frozen_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  for (bool bucket_view : {false, true}) {
    std::vector<Tensor> params = zero_model_params();
    std::vector<Tensor> plain = clone_params(params);
    for (Tensor p : {params[4], plain[4]}) {  // handles: the same tensors
      p.requires_grad_(false);
      p.fill_(1.0 + rank);
    }
    ZeroRedundancyOptimizer zero(params, zero_optimizer<optim::SGD>({.lr = 0.1, .momentum = 0.9}),
                                 {.parameters_as_bucket_view = bucket_view});
    optim::SGD ref(plain, {.lr = 0.1, .momentum = 0.9});
    for (int step = 0; step < 3; ++step) {
      zero.zero_grad();
      const int64_t rows = 8 / world_size;
      zero_loss(params, step, rank * rows, (rank + 1) * rows).backward();
      for (const Tensor& p : params)
        if (p.requires_grad()) {
          Tensor g = p.grad();
          all_reduce(g, ReduceOp::AVG);
        }
      zero.step();
      ref.zero_grad();
      zero_full_grads(plain, step);
      ref.step();
    }
    const std::string what = bucket_view ? "frozen, bucket views" : "frozen";
    expect_close(params, plain, what);
    EMBER_CHECK(params[4].eq(1.0 + rank).all().item<bool>(), what, ": rank ", rank,
                "'s frozen parameter was overwritten");
  }
  destroy_process_group();
}

// torch's sorted-greedy assignment, worked out by hand for the sizes
// 24 (p0), 6 (p1), 18 (p2), 3 (p3), 5 (p4), 1 (p5) in one group.
EMBER_DIST_WORKER(zero_partition_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  std::vector<Tensor> p = zero_model_params();
  ZeroRedundancyOptimizer zero(p, zero_optimizer<optim::SGD>({.lr = 0.1}));
  // Largest first: p0 24, p2 18, p1 6, p4 5, p3 3, p5 1, each to the least loaded rank.
  // 2 ranks: p0->r0 (24, 0), p2->r1 (24, 18), p1->r1 (24, 24), p4->r0 (tie: the lower rank; 29, 24),
  //          p3->r1 (29, 27), p5->r1 (29, 28).
  // 4 ranks: p0->r0, p2->r1, p1->r2, p4->r3 (24, 18, 6, 5), p3->r3 (.., 6, 8), p5->r2 (.., 7, 8).
  const std::vector<std::vector<int>> expected =
      world_size == 2 ? std::vector<std::vector<int>>{{0, 4}, {2, 1, 3, 5}}
                      : std::vector<std::vector<int>>{{0}, {2}, {1, 5}, {4, 3}};
  for (int r = 0; r < world_size; ++r) {
    const auto shard = zero.shard(r);
    EMBER_CHECK(shard.size() == 1 && shard[0].size() == expected[r].size(), "rank ", r, " has ", shard[0].size(),
                " parameters, expected ", expected[r].size());
    for (size_t k = 0; k < expected[r].size(); ++k) {
      EMBER_CHECK(shard[0][k].is_same(p[expected[r][k]]), "rank ", r, " parameter ", k, " is not p",
                  expected[r][k]);
      EMBER_CHECK(zero.owner_rank(p[expected[r][k]]) == r, "owner of p", expected[r][k]);
    }
  }
  destroy_process_group();
}

// consolidate_state_dict on the last rank equals the plain optimizer's
// state_dict; the state is saved and a fresh ZeroRedundancyOptimizer (and a
// plain optimizer) load it and go on identically.
void zero_state_round_trip(int rank, int world, bool adam, const std::string& dir) {
  std::vector<Tensor> p = zero_model_params(), q = clone_params(p);
  ShardOptimizer shard = adam ? zero_optimizer<optim::Adam>({.lr = 0.01})
                              : zero_optimizer<optim::SGD>({.lr = 0.1, .momentum = 0.9, .nesterov = true});
  std::unique_ptr<ZeroRedundancyOptimizer> zero =
      std::make_unique<ZeroRedundancyOptimizer>(zero_groups(p, adam), shard);
  std::unique_ptr<optim::Optimizer> plain;
  if (adam)
    plain = std::make_unique<optim::Adam>(zero_groups(q, adam), optim::AdamOptions{.lr = 0.01});
  else
    plain = std::make_unique<optim::SGD>(zero_groups(q, adam),
                                         optim::SGDOptions{.lr = 0.1, .momentum = 0.9, .nesterov = true});
  for (int step = 0; step < 3; ++step) {
    zero->zero_grad();
    plain->zero_grad();
    zero_distributed_grads(p, step, rank, world);
    zero_full_grads(q, step);
    zero->step();
    plain->step();
  }
  zero->param_groups()[0].set_lr(0.004);  // a scheduler's change shows in the consolidated groups
  plain->param_groups()[0].set_lr(0.004);
  const int64_t to = world - 1;
  zero->consolidate_state_dict(to);
  const std::string name = std::string(adam ? "adam" : "sgd");
  if (rank == to) {
    const optim::OptimizerStateDict sd = zero->state_dict();
    expect_same_state(sd, plain->state_dict(), name + " consolidated state");
    ember::save(dir + "/" + name + ".safetensors", sd);
    ember::save(dir + "/" + name + "_params.safetensors", p);
  } else {
    bool raised = false;
    try {
      zero->state_dict();
    } catch (const ember::Error& e) {
      raised = std::string(e.what()).find("has not been consolidated on rank " + std::to_string(rank)) !=
               std::string::npos;
    }
    EMBER_CHECK(raised, "state_dict() on a rank that did not consolidate must raise");
  }
  barrier();
  // A fresh optimizer over fresh parameter objects loads the file.
  std::vector<Tensor> p2 = clone_params(p);
  zero = std::make_unique<ZeroRedundancyOptimizer>(zero_groups(p2, adam), shard);
  zero->load_state_dict(optim::load_optimizer_state_dict(dir + "/" + name + ".safetensors"));
  EMBER_CHECK(zero->param_groups()[0].lr() == 0.004, "the loaded group options");
  for (int step = 3; step < 6; ++step) {
    zero->zero_grad();
    plain->zero_grad();
    zero_distributed_grads(p2, step, rank, world);
    zero_full_grads(q, step);
    zero->step();
    plain->step();
    expect_close(p2, q, name + " after load_state_dict, step " + std::to_string(step));
  }
  barrier();
}

EMBER_DIST_WORKER(zero_state_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  const std::string dir = ember::testing::env_string("ZERO_DIR");
  zero_state_round_trip(rank, world_size, false, dir);
  zero_state_round_trip(rank, world_size, true, dir);
  destroy_process_group();
}

// Loads what zero_state_worker saved under another world size and goes on
// as the plain optimizer that loads the same state.
EMBER_DIST_WORKER(zero_reshard_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  const std::string dir = ember::testing::env_string("ZERO_DIR");
  std::vector<Tensor> saved = ember::load_tensor_list(dir + "/adam_params.safetensors");
  std::vector<Tensor> p = clone_params(saved), q = clone_params(saved);
  ZeroRedundancyOptimizer zero(zero_groups(p, true), zero_optimizer<optim::Adam>({.lr = 0.01}));
  optim::Adam plain(zero_groups(q, true), {.lr = 0.01});
  const optim::OptimizerStateDict sd = optim::load_optimizer_state_dict(dir + "/adam.safetensors");
  zero.load_state_dict(sd);
  plain.load_state_dict(sd);
  for (int step = 3; step < 6; ++step) {
    zero.zero_grad();
    plain.zero_grad();
    zero_distributed_grads(p, step, rank, world_size);
    zero_full_grads(q, step);
    zero.step();
    plain.step();
    expect_close(p, q, "re-sharded Adam, step " + std::to_string(step));
  }
  zero.consolidate_state_dict(0);
  if (rank == 0) expect_same_state(zero.state_dict(), plain.state_dict(), "re-sharded state");
  destroy_process_group();
}

std::string zero_error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::function<void()>& fn, const std::string& needle) {
  const std::string message = zero_error_of(fn);
  EMBER_CHECK(message.find(needle) != std::string::npos, "expected an error containing '", needle, "', got '",
              message, "'");
}

EMBER_DIST_WORKER(zero_errors_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  std::vector<Tensor> p = zero_model_params();
  ZeroRedundancyOptimizer zero(zero_groups(p, true), zero_optimizer<optim::Adam>({.lr = 0.01}));
  zero_distributed_grads(p, 0, rank, world_size);
  zero.step();
  // The state of another model: other group sizes, then other shapes.
  std::vector<Tensor> other = {ember::zeros({2, 2}, kF64).requires_grad_(), ember::zeros({3}, kF64).requires_grad_()};
  optim::Adam other_opt(other, {.lr = 0.01});
  other[0].set_grad(ember::ones({2, 2}, kF64));
  other[1].set_grad(ember::ones({3}, kF64));
  other_opt.step();
  expect_error([&] { zero.load_state_dict(other_opt.state_dict()); },
               "loaded state dict has a different number of parameter groups (1 saved, 2 in the optimizer)");
  // The same group sizes as zero_groups(p, true), but its first parameter is [4, 6], not [6, 4].
  auto param = [](std::vector<int64_t> shape) { return ember::zeros(ember::IntArrayRef(shape), kF64).requires_grad_(); };
  std::vector<optim::ParamGroup> shaped_groups;
  shaped_groups.emplace_back(std::vector<Tensor>{param({4, 6}), param({3}), param({})});
  shaped_groups.emplace_back(std::vector<Tensor>{param({6}), param({3, 6})});
  optim::Adam shaped_opt(shaped_groups, {.lr = 0.01});
  for (Tensor& t : shaped_opt.parameters()) t.set_grad(ember::ones_like(t));
  shaped_opt.step();
  expect_error([&] { zero.load_state_dict(shaped_opt.state_dict()); },
               "loaded state 'exp_avg' of parameter 0 has shape [4, 6], the parameter has shape [6, 4]");
  expect_error([&] { zero.consolidate_state_dict(world_size); },
               "consolidate_state_dict: to = " + std::to_string(world_size) +
                   " is not a rank of the process group (size " + std::to_string(world_size) + ")");
  expect_error([&] { zero.consolidate_state_dict(-1); }, "to = -1 is not a rank");
  expect_error([&] { zero.state_dict(); }, "has not been consolidated");
  expect_error([&] { (void)ZeroRedundancyOptimizer(std::vector<Tensor>{}, zero_optimizer<optim::SGD>({.lr = 0.1})); },
               "did not receive any parameters");
  expect_error([&] { (void)ZeroRedundancyOptimizer(p, zero_optimizer<optim::SGD>({.lr = 0.1, .momentum = -1})); },
               "SGD: invalid momentum value: -1");
  std::vector<Tensor> mixed = {ember::zeros({3}, kF64).requires_grad_(),
                               ember::zeros({3}, TensorOptions(ember::DType::Float32)).requires_grad_()};
  expect_error(
      [&] {
        (void)ZeroRedundancyOptimizer(mixed, zero_optimizer<optim::SGD>({.lr = 0.1}), {.parameters_as_bucket_view = true});
      },
      "parameters_as_bucket_view needs every parameter to have one dtype and device");
  // Still usable after the failed calls, on every rank alike.
  zero.consolidate_state_dict(0);
  destroy_process_group();
}

class ZeroRanks : public ::testing::TestWithParam<int> {};

TEST_P(ZeroRanks, TrajectoriesEqualThePlainOptimizer) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("zero_trajectory_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(120s));
}

TEST_P(ZeroRanks, FrozenParametersAreNotBroadcast) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("zero_frozen_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(ZeroRanks, PartitionIsSortedGreedy) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("zero_partition_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(ZeroRanks, ConsolidatedStateDictRoundTrip) {
  TCPStoreServer server;
  ember::testing::TempDir dir("ember_zero");
  auto env = ember::testing::store_env(server);
  env["ZERO_DIR"] = dir.path().string();
  ember::testing::Ranks ranks("zero_state_worker", GetParam(), env);
  EXPECT_TRUE(ranks.all_succeed(120s));
}

TEST_P(ZeroRanks, BadInputRaises) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("zero_errors_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

INSTANTIATE_TEST_SUITE_P(ZeroRedundancyOptimizer, ZeroRanks, ::testing::Values(2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Ranks"; });

// A state saved under 2 ranks loads into 4, and one saved under 4 into 2.
TEST(ZeroRedundancyOptimizer, LoadStateDictReshardsIntoAnotherWorldSize) {
  for (auto [save_world, load_world] : {std::pair{2, 4}, std::pair{4, 2}}) {
    ember::testing::TempDir dir("ember_zero");
    {
      TCPStoreServer server;
      auto env = ember::testing::store_env(server);
      env["ZERO_DIR"] = dir.path().string();
      ember::testing::Ranks ranks("zero_state_worker", save_world, env);
      ASSERT_TRUE(ranks.all_succeed(120s));
    }
    TCPStoreServer server;
    auto env = ember::testing::store_env(server);
    env["ZERO_DIR"] = dir.path().string();
    ember::testing::Ranks ranks("zero_reshard_worker", load_world, env);
    EXPECT_TRUE(ranks.all_succeed(120s)) << save_world << " -> " << load_world << " ranks";
  }
}

}  // namespace
