// SyncBatchNorm on 2 and 4 rank processes against BatchNorm on the
// concatenated batch, computed on every rank (float64): forward, gradients of
// input, weight and bias, running statistics, even, uneven and empty batches;
// against PyTorch's BatchNorm2d on the whole batch (fixtures);
// convert_sync_batchnorm on a small ResNet-like model (names and tensors
// kept, outputs and gradients equal to the unconverted model's on the whole
// batch); the errors of bad input.
#include <gtest/gtest.h>

#include <sstream>

#include <ember/autograd/autograd.h>
#include <ember/core/generator.h>
#include <ember/distributed/ddp/distributed_data_parallel.h>
#include <ember/distributed/init.h>
#include <ember/distributed/sync_batch_norm.h>
#include <ember/distributed/tcp_store.h>
#include <ember/nn/container.h>
#include <ember/nn/functional/activation.h>
#include <ember/nn/functional/loss.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>
#include <ember/ops/factories.h>
#include <ember/optim/sgd.h>

#include "gloo_testing.h"
#include "multiprocess.h"
#include "npy.h"

namespace {

using namespace std::chrono_literals;
using namespace ember::distributed;
using ember::Tensor;
using ember::TensorOptions;
namespace nn = ember::nn;

const TensorOptions kSbnF64 = TensorOptions(ember::DType::Float64);

// Deterministic values, the same on every rank.
Tensor sbn_values(std::vector<int64_t> shape, double seed) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return ember::arange(n, kSbnF64).mul(0.731).add(seed).sin().mul(1.5).add(0.2).reshape(ember::IntArrayRef(shape));
}

void expect_near(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  EMBER_CHECK(got.defined() && want.defined(), what, ": undefined tensor");
  EMBER_CHECK(got.sizes() == want.sizes(), what, ": shape ", got.sizes(), ", expected ", want.sizes());
  if (got.numel() == 0) return;
  const double d = got.detach().to(ember::DType::Float64).sub(want.detach().to(ember::DType::Float64)).abs().max()
                       .item<double>();
  EMBER_CHECK(d <= tol, what, ": differs by ", d);
}

// The batch sizes of each rank in one case.
std::vector<std::vector<int64_t>> sbn_cases(int world) {
  if (world == 2) return {{3, 3}, {1, 4}, {0, 5}};
  return {{2, 2, 2, 2}, {2, 3, 0, 4}};
}

// Two training steps and one eval step of SyncBatchNorm (this rank's rows)
// and of BatchNorm (all rows) with the same weight, bias and options, for an
// input [N, 3, spatial...].
// group: the process group (null: the default one), whose rank and size rank and world are.
void sbn_compare(int rank, int world, const std::vector<int64_t>& sizes, std::vector<int64_t> spatial,
                 std::optional<double> momentum, const std::string& what,
                 std::shared_ptr<ProcessGroup> group = nullptr, ember::DType dtype = ember::DType::Float64) {
  // float32: the reference's own rounding (oneDNN) differs from the combination's.
  const double tol = dtype == ember::DType::Float64 ? 1e-12 : 2e-5;
  nn::BatchNormOptions options{.num_features = 3, .eps = 1e-3, .momentum = momentum};
  SyncBatchNorm sbn(options, group);
  sbn->to(dtype);
  nn::BatchNorm2d ref_bn2(options);
  nn::BatchNorm1d ref_bn1(options);
  nn::BatchNorm3d ref_bn3(options);
  std::shared_ptr<nn::Module> ref_module = spatial.size() == 2 ? std::shared_ptr<nn::Module>(ref_bn2.ptr())
                                           : spatial.size() == 3 ? std::shared_ptr<nn::Module>(ref_bn3.ptr())
                                                                 : std::shared_ptr<nn::Module>(ref_bn1.ptr());
  ref_module->to(dtype);
  auto ref = [&](const Tensor& x) {
    return spatial.size() == 2 ? ref_bn2(x) : spatial.size() == 3 ? ref_bn3(x) : ref_bn1(x);
  };
  {
    ember::NoGradGuard no_grad;
    for (auto* t : {&sbn->weight, &sbn->bias}) t->copy_(sbn_values({3}, t == &sbn->weight ? 0.5 : 1.5).to(dtype));
    ref_module->load_state_dict(sbn->state_dict());
  }
  auto ref_param = [&](const std::string& name) { return ref_module->named_parameters()[name]; };
  auto ref_buffer = [&](const std::string& name) { return ref_module->named_buffers()[name]; };
  int64_t total = 0, offset = 0;
  for (int r = 0; r < world; ++r) {
    if (r < rank) offset += sizes[r];
    total += sizes[r];
  }
  std::vector<int64_t> shape = {total, 3};
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  for (int step = 0; step < 3; ++step) {
    const bool train = step < 2;
    sbn->train(train);
    ref_module->train(train);
    const std::string at = what + " rank " + std::to_string(rank) + " step " + std::to_string(step);
    Tensor x_full = sbn_values(shape, 0.1 * step).mul(step + 1).to(dtype).requires_grad_();
    Tensor g_full = sbn_values(shape, 3.0 + step).to(dtype);
    Tensor x = x_full.detach().narrow(0, offset, sizes[rank]).clone().requires_grad_();
    Tensor y = sbn(x);
    Tensor y_full = ref(x_full);
    expect_near(y, y_full.narrow(0, offset, sizes[rank]), tol, at + " output");
    sbn->zero_grad();
    ref_module->zero_grad();
    y.mul(g_full.narrow(0, offset, sizes[rank])).sum().backward();
    y_full.mul(g_full).sum().backward();
    if (sizes[rank] > 0)
      expect_near(x.grad(), x_full.grad().narrow(0, offset, sizes[rank]), tol, at + " input gradient");
    else
      EMBER_CHECK(!x.grad().defined() || x.grad().numel() == 0, at, ": an empty input has no gradient");
    // Each rank holds its part of the weight and bias gradients; DDP sums them.
    for (const char* name : {"weight", "bias"}) {
      Tensor grad = sbn->named_parameters()[name].grad();
      Tensor summed = grad.defined() ? grad.clone() : ember::zeros({3}, TensorOptions(dtype));
      if (group)
        group->all_reduce(summed)->wait();
      else
        all_reduce(summed, ReduceOp::SUM);
      expect_near(summed, ref_param(name).grad(), dtype == ember::DType::Float64 ? 1e-11 : 1e-4, at + " " + name + " gradient");
    }
    for (const char* name : {"running_mean", "running_var"})
      expect_near(sbn->named_buffers()[name], ref_buffer(name), tol, at + " " + name);
    EMBER_CHECK(sbn->num_batches_tracked.item<int64_t>() == ref_buffer("num_batches_tracked").item<int64_t>(), at,
                ": num_batches_tracked");
  }
}

EMBER_DIST_WORKER(sync_bn_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  for (const auto& sizes : sbn_cases(world_size)) {
    std::ostringstream what;
    what << "batches";
    for (int64_t s : sizes) what << " " << s;
    sbn_compare(rank, world_size, sizes, {4, 5}, 0.3, what.str() + " [N, 3, 4, 5]");
    sbn_compare(rank, world_size, sizes, {}, std::nullopt, what.str() + " [N, 3], cumulative average");
    sbn_compare(rank, world_size, sizes, {6}, 0.1, what.str() + " [N, 3, 6]");
    sbn_compare(rank, world_size, sizes, {2, 3, 2}, 0.1, what.str() + " [N, 3, 2, 3, 2]");
  }
  sbn_compare(rank, world_size, sbn_cases(world_size).back(), {4, 5}, 0.1, "float32", nullptr,
              ember::DType::Float32);
  if (world_size == 4) {
    // Ranks {0, 2} and {1, 3} synchronize apart, each pair over its own group.
    auto even = new_group({0, 2});
    auto odd = new_group({1, 3});
    auto mine = rank % 2 == 0 ? even : odd;
    sbn_compare(static_cast<int>(mine->rank()), 2, rank % 2 == 0 ? std::vector<int64_t>{1, 4} : std::vector<int64_t>{3, 0},
                {4, 5}, 0.3, "sub-group batches", mine);
  }
  destroy_process_group();
}

// A ResNet-like model: stem conv + BatchNorm2d, a residual block whose
// BatchNorms are typed members, and a head with a BatchNorm1d inside a
// Sequential.
struct SbnBlockImpl : nn::Module {
  SbnBlockImpl() : nn::Module("SbnBlock") {
    conv1 = register_module("conv1", nn::Conv2d({.in_channels = 4, .out_channels = 4, .kernel_size = 3,
                                                  .padding = 1, .bias = false}));
    bn1 = register_module("bn1", nn::BatchNorm2d(4));
    conv2 = register_module("conv2", nn::Conv2d({.in_channels = 4, .out_channels = 4, .kernel_size = 3,
                                                  .padding = 1, .bias = false}));
    bn2 = register_module("bn2", nn::BatchNorm2d(4));
  }
  Tensor forward(const Tensor& x) {
    Tensor out = nn::functional::relu(bn1(conv1(x)));
    return nn::functional::relu(bn2(conv2(out)).add(x));
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
};
EMBER_MODULE(SbnBlock);

struct SbnNetImpl : nn::Module {
  SbnNetImpl() : nn::Module("SbnNet") {
    stem = register_module("stem", nn::Conv2d({.in_channels = 2, .out_channels = 4, .kernel_size = 3, .padding = 1}));
    bn = register_module("bn", nn::BatchNorm2d(4));
    block = register_module("block", SbnBlock());
    head = register_module("head", nn::Sequential(nn::Linear(4, 5), nn::BatchNorm1d(5)));
  }
  Tensor forward(const Tensor& x) {
    Tensor h = block(nn::functional::relu(bn(stem(x))));
    return head(h.mean({2, 3}));
  }
  nn::Conv2d stem{nullptr};
  nn::BatchNorm2d bn{nullptr};
  SbnBlock block{nullptr};
  nn::Sequential head{nullptr};
};
EMBER_MODULE(SbnNet);

SbnNet sbn_make_net() {
  ember::manual_seed(7);
  SbnNet net;
  net->to(ember::DType::Float64);
  return net;
}

EMBER_DIST_WORKER(convert_sync_bn_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  SbnNet net = sbn_make_net(), ref = sbn_make_net();
  const auto params_before = net->named_parameters();
  const auto buffers_before = net->named_buffers();
  const std::string printed_before = net->str();
  SbnNet converted = convert_sync_batchnorm(net);
  EMBER_CHECK(converted.ptr() == net.ptr(), "convert_sync_batchnorm returns the module");
  // Names and tensors kept.
  const auto params_after = net->named_parameters();
  const auto buffers_after = net->named_buffers();
  EMBER_CHECK(params_after.keys() == params_before.keys() && buffers_after.keys() == buffers_before.keys(),
              "names changed by the conversion");
  for (const auto& [name, t] : params_before) EMBER_CHECK(params_after.at(name).is_same(t), name, " was replaced");
  for (const auto& [name, t] : buffers_before) EMBER_CHECK(buffers_after.at(name).is_same(t), name, " was replaced");
  int converted_count = 0;
  for (const auto& [name, m] : net->named_modules()) {
    const bool batch_norm = name == "bn" || name == "block.bn1" || name == "block.bn2" || name == "head.1";
    EMBER_CHECK(is_sync_batchnorm(*m) == batch_norm, name, ": is_sync_batchnorm ", is_sync_batchnorm(*m));
    converted_count += batch_norm;
  }
  EMBER_CHECK(converted_count == 4, "4 batch norms in the model");
  std::string printed_expected = printed_before;
  for (size_t at = 0; (at = printed_expected.find("BatchNorm", at)) != std::string::npos; at += 13) {
    const size_t end = printed_expected.find('(', at);
    printed_expected.replace(at, end - at, "SyncBatchNorm");
  }
  EMBER_CHECK(net->str() == printed_expected, "printed:\n", net->str(), "\nexpected:\n", printed_expected);
  // Training steps: this rank's rows against the unconverted model on all rows.
  const std::vector<int64_t> sizes = world_size == 2 ? std::vector<int64_t>{3, 5} : std::vector<int64_t>{2, 1, 3, 2};
  int64_t total = 0, offset = 0;
  for (int r = 0; r < world_size; ++r) {
    if (r < rank) offset += sizes[r];
    total += sizes[r];
  }
  for (int step = 0; step < 3; ++step) {
    const bool train = step < 2;
    net->train(train);
    ref->train(train);
    const std::string at = "rank " + std::to_string(rank) + " step " + std::to_string(step);
    Tensor x_full = sbn_values({total, 2, 5, 4}, step);
    Tensor g_full = sbn_values({total, 5}, 2.0 + step);
    net->zero_grad();
    ref->zero_grad();
    Tensor y = net(x_full.narrow(0, offset, sizes[rank]).clone());
    Tensor y_full = ref(x_full);
    expect_near(y, y_full.narrow(0, offset, sizes[rank]), 1e-10, at + " output");
    if (!train) continue;
    y.mul(g_full.narrow(0, offset, sizes[rank])).sum().backward();
    y_full.mul(g_full).sum().backward();
    const auto ref_params = ref->named_parameters();
    for (const auto& [name, p] : net->named_parameters()) {
      Tensor grad = p.grad().clone();
      all_reduce(grad, ReduceOp::SUM);
      expect_near(grad, ref_params.at(name).grad(), 1e-10, at + " gradient of " + name);
    }
    const auto ref_buffers = ref->named_buffers();
    for (const auto& [name, b] : net->named_buffers()) expect_near(b, ref_buffers.at(name), 1e-12, at + " " + name);
  }
  destroy_process_group();
}

// DDP over the converted model, as ember-train runs it: each rank's loss is
// the mean cross entropy of its equal share of the global batch, SGD with
// momentum and weight decay; the parameters must follow those of the
// unconverted model trained on the whole batch in one process.
EMBER_DIST_WORKER(ddp_sync_bn_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  SbnNet net = sbn_make_net(), ref = sbn_make_net();
  convert_sync_batchnorm(net);
  DistributedDataParallel ddp(net, {.bucket_cap_mb = 1e-4});  // several buckets
  const ember::optim::SGDOptions sgd{.lr = 0.1, .momentum = 0.9, .weight_decay = 1e-2};
  ember::optim::SGD opt(net->parameters(), sgd), ref_opt(ref->parameters(), sgd);
  constexpr int64_t kGlobal = 8;
  const int64_t per_rank = kGlobal / world_size;
  net->train();
  ref->train();
  for (int step = 0; step < 4; ++step) {
    const std::string at = "rank " + std::to_string(rank) + " step " + std::to_string(step);
    Tensor x_full = sbn_values({kGlobal, 2, 5, 4}, step);
    Tensor labels = ember::arange(kGlobal).add(step).remainder(5);
    opt.zero_grad();
    ref_opt.zero_grad();
    Tensor loss = ddp.forward([&] {
      return nn::functional::cross_entropy(net(x_full.narrow(0, rank * per_rank, per_rank).clone()),
                                           labels.narrow(0, rank * per_rank, per_rank));
    });
    loss.backward();
    nn::functional::cross_entropy(ref(x_full), labels).backward();
    const auto ref_params = ref->named_parameters();
    for (const auto& [name, p] : net->named_parameters())
      expect_near(p.grad(), ref_params.at(name).grad(), 1e-12, at + " gradient of " + name);
    opt.step();
    ref_opt.step();
    for (const auto& [name, p] : net->named_parameters())
      expect_near(p, ref_params.at(name), 1e-12, at + " " + name);
    const auto ref_buffers = ref->named_buffers();
    for (const auto& [name, b] : net->named_buffers()) expect_near(b, ref_buffers.at(name), 1e-12, at + " " + name);
  }
  barrier();
  destroy_process_group();
}

std::string sbn_error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

void sbn_expect_error(const std::function<void()>& fn, const std::string& needle) {
  const std::string message = sbn_error_of(fn);
  EMBER_CHECK(message.find(needle) != std::string::npos, "expected an error containing '", needle, "', got '",
              message, "'");
}

EMBER_DIST_WORKER(sync_bn_errors_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  SyncBatchNorm sbn(3);
  sbn_expect_error([&] { sbn(ember::zeros({3})); }, "SyncBatchNorm: expected at least 2D input (got 1D input)");
  sbn_expect_error([&] { sbn(ember::zeros({2, 0, 4})); }, "SyncBatchNorm: number of input channels should be non-zero");
  sbn_expect_error([&] { sbn(ember::zeros({2, 4, 5})); },
                   "SyncBatchNorm: weight has shape [3], expected [4] for an input of 4 channels");
  sbn_expect_error([&] { sbn(ember::zeros({2, 3}, TensorOptions(ember::DType::Int64))); },
                   "SyncBatchNorm: expected a floating-point input");
  // One value per channel over all ranks: every rank raises (none hangs).
  sbn_expect_error([&] { sbn(ember::zeros({rank == 0 ? 1 : 0, 3})); },
                   "SyncBatchNorm: expected more than 1 value per channel when training, got 1 over the " +
                       std::to_string(world_size) + " ranks");
  // A converted BatchNorm keeps its own input checks.
  nn::BatchNorm2d bn(3);
  convert_sync_batchnorm(bn);
  sbn_expect_error([&] { bn(ember::zeros({2, 3, 4})); }, "SyncBatchNorm: expected 4D input (got 3D input)");
  sbn_expect_error([&] { convert_sync_batchnorm(std::shared_ptr<nn::Module>()); },
                   "convert_sync_batchnorm: the module is null");
  // Double backward is refused, as PyTorch's.
  Tensor x = sbn_values({4, 3}, rank).requires_grad_();
  Tensor y = sbn(x.to(ember::DType::Float32));
  sbn_expect_error(
      [&] { ember::autograd::grad({y.pow(2).sum()}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true); },
      "SyncBatchNorm: double backward (create_graph) is not supported");
  // Still in step with the peers.
  Tensor ok = sbn(ember::ones({2, 3}).mul(rank + 1));
  EMBER_CHECK(ok.size(0) == 2, "a forward after the errors");
  destroy_process_group();
}

Tensor sbn_fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("distributed/distributed_sync_batch_norm/" + name + ".npy"));
}

// The ranks hold rows 4 + 5 (2 ranks) or 2 + 3 + 0 + 4 (4 ranks) of the batch
// of 9 that scripts/fixtures/distributed_sync_batch_norm.py normalized with
// torch's BatchNorm2d: two training steps, one in eval mode.
EMBER_DIST_WORKER(sync_bn_torch_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  const std::vector<int64_t> sizes = world_size == 2 ? std::vector<int64_t>{4, 5} : std::vector<int64_t>{2, 3, 0, 4};
  int64_t offset = 0;
  for (int r = 0; r < rank; ++r) offset += sizes[r];
  const int64_t n = sizes[rank];
  SyncBatchNorm sbn({.num_features = 3, .eps = 1e-3, .momentum = 0.3});
  sbn->to(ember::DType::Float64);
  {
    ember::NoGradGuard no_grad;
    sbn->weight.copy_(sbn_fixture("weight"));
    sbn->bias.copy_(sbn_fixture("bias"));
  }
  for (int step = 0; step < 3; ++step) {
    const std::string k = std::to_string(step);
    const std::string at = "rank " + std::to_string(rank) + " step " + k;
    sbn->train(step < 2);
    sbn->zero_grad();
    Tensor x = sbn_fixture("x" + k).narrow(0, offset, n).clone().requires_grad_();
    Tensor y = sbn(x);
    expect_near(y, sbn_fixture("y" + k).narrow(0, offset, n), 1e-12, at + " output");
    if (step < 2) {
      y.mul(sbn_fixture("gout" + k).narrow(0, offset, n)).sum().backward();
      if (n > 0) expect_near(x.grad(), sbn_fixture("dx" + k).narrow(0, offset, n), 1e-12, at + " input gradient");
      for (const char* name : {"weight", "bias"}) {
        Tensor grad = sbn->named_parameters()[name].grad();
        Tensor summed = grad.defined() ? grad.clone() : ember::zeros({3}, kSbnF64);
        all_reduce(summed, ReduceOp::SUM);
        expect_near(summed, sbn_fixture(std::string("d") + name + k), 1e-11, at + " " + name + " gradient");
      }
    }
    expect_near(sbn->running_mean, sbn_fixture("running_mean" + k), 1e-12, at + " running_mean");
    expect_near(sbn->running_var, sbn_fixture("running_var" + k), 1e-12, at + " running_var");
  }
  destroy_process_group();
}

class SyncBatchNormRanks : public ::testing::TestWithParam<int> {};

TEST_P(SyncBatchNormRanks, MatchesBatchNormOnTheConcatenatedBatch) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("sync_bn_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(120s));
}

TEST_P(SyncBatchNormRanks, MatchesTorchBatchNormOnTheWholeBatch) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("sync_bn_torch_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

TEST_P(SyncBatchNormRanks, ConvertSyncBatchnormKeepsNamesAndMatchesTheModel) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("convert_sync_bn_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(120s));
}

TEST_P(SyncBatchNormRanks, DdpTrainingMatchesTheWholeBatch) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("ddp_sync_bn_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(120s));
}

TEST_P(SyncBatchNormRanks, BadInputRaises) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("sync_bn_errors_worker", GetParam(), ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

INSTANTIATE_TEST_SUITE_P(SyncBatchNorm, SyncBatchNormRanks, ::testing::Values(2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Ranks"; });

// Without a process group SyncBatchNorm in eval mode is plain batch norm
// (nothing to synchronize), as PyTorch's.
TEST(SyncBatchNorm, EvalModeIsPlainBatchNorm) {
  SyncBatchNorm sbn({.num_features = 3, .momentum = 0.2});
  nn::BatchNorm2d bn({.num_features = 3, .momentum = 0.2});
  {
    ember::NoGradGuard no_grad;
    sbn->running_mean.copy_(sbn_values({3}, 1));
    sbn->running_var.copy_(sbn_values({3}, 2).abs().add(0.5));
    bn->load_state_dict(sbn->state_dict());
  }
  sbn->eval();
  bn->eval();
  Tensor x = sbn_values({2, 3, 4, 4}, 0.5).to(ember::DType::Float32);
  expect_near(sbn(x), bn(x), 0, "eval output");
  std::ostringstream os;
  os << *sbn;
  EXPECT_EQ(os.str(), "SyncBatchNorm(3, eps=1e-05, momentum=0.2, affine=True, track_running_stats=True)");
}

}  // namespace
