// DDP communication hooks on 2 ranks. Each step copies the DDP model's
// parameters into a float64 reference, which computes the gradients the hook
// should produce: the average of the ranks' gradients (allreduce_hook
// exactly; the float16 and bfloat16 hooks and wrappers within their
// rounding), and PowerSGD step by step as torch's powerSGD_hook (rank-2
// factors, warm start, error feedback, orthogonalization, plain all_reduce
// first), computed here on every rank's gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include <ember/autograd/grad_mode.h>
#include <ember/distributed/ddp/ddp_comm_hooks.h>
#include <ember/distributed/ddp/distributed_data_parallel.h>
#include <ember/distributed/init.h>
#include <ember/ops/shape.h>
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
constexpr int64_t kSteps = 5;

enum HookKind : int { kAllreduce, kFp16, kBf16, kFp16Wrapper, kBf16Wrapper, kPowerSGD };

// Every rank's gradients at the reference's current parameters:
// grads[r][v] for rank r's shard and parameter v (registration order).
std::vector<std::vector<Tensor>> rank_gradients(ember::testing::DdpNet& reference, const ember::testing::Batch& batch,
                                                int world_size) {
  std::vector<std::vector<Tensor>> grads(world_size);
  for (int r = 0; r < world_size; ++r) {
    reference->zero_grad();
    const ember::testing::Batch part = ember::testing::shard(batch, r, world_size);
    nn::functional::mse_loss(reference(part.x), part.y).backward();
    for (const Tensor& p : reference->parameters()) grads[r].push_back(p.grad().clone());
  }
  return grads;
}

// Gram-Schmidt on the columns, as the reference of the hook's orthogonalize.
Tensor gram_schmidt(Tensor m) {
  m = m.clone();
  for (int64_t i = 0; i < m.size(1); ++i) {
    Tensor col = m.narrow(1, i, 1);
    const double norm = std::sqrt((col * col).sum().item<double>());
    col.copy_(norm == 0 ? col * 0 : col / norm);
    for (int64_t j = i + 1; j < m.size(1); ++j) {
      Tensor other = m.narrow(1, j, 1);
      other.copy_(other - (col * other).sum() * col);
    }
  }
  return m;
}

// torch's powerSGD_hook on all ranks' gradients at once (float64).
struct PowerSGDReference {
  int64_t rank = 2;
  double min_compression_rate = 1;
  int64_t start_iter = 2;
  Generator rng{0};
  int64_t iter = 0;
  std::map<size_t, std::vector<Tensor>> error;     // per bucket, per rank
  std::map<size_t, std::map<size_t, Tensor>> q;    // per bucket, per parameter

  // The averaged gradients per parameter.
  std::vector<Tensor> reduce(const std::vector<std::vector<Tensor>>& grads,
                             const std::vector<std::vector<size_t>>& buckets) {
    const int world_size = static_cast<int>(grads.size());
    std::vector<Tensor> out(grads[0].size());
    if (iter++ < start_iter) {
      for (size_t v = 0; v < out.size(); ++v) {
        Tensor sum = zeros_like(grads[0][v]);
        for (int r = 0; r < world_size; ++r) sum = sum + grads[r][v];
        out[v] = sum / world_size;
      }
      return out;
    }
    for (size_t b = 0; b < buckets.size(); ++b) {
      // The bucket's input per rank: its gradients, plus last iteration's error.
      std::vector<Tensor> inputs;
      for (int r = 0; r < world_size; ++r) {
        std::vector<Tensor> parts;
        for (size_t v : buckets[b]) parts.push_back(grads[r][v].reshape({-1}));
        Tensor input = cat(parts);
        if (error.count(b)) input = input + error[b][r];
        inputs.push_back(input);
      }
      Tensor result = zeros_like(inputs[0]);
      const bool first = !q.count(b);
      int64_t at = 0;
      for (size_t v : buckets[b]) {
        const Tensor& g = grads[0][v];
        const int64_t n = g.size(0), m = g.numel() / n, len = g.numel();
        const int64_t r = std::min({n, m, rank});
        std::vector<Tensor> mats;
        for (int k = 0; k < world_size; ++k) mats.push_back(inputs[k].narrow(0, at, len).reshape({n, m}));
        if (static_cast<double>((n + m) * r) * min_compression_rate < static_cast<double>(n * m)) {
          Tensor qv = first ? randn({m, r}, TensorOptions(kFloat32), &rng).to(kFloat64) : q[b][v];
          qv = gram_schmidt(qv);
          Tensor p = zeros({n, r}, TensorOptions(kFloat64));
          for (const Tensor& mat : mats) p = p + mat.matmul(qv);
          p = gram_schmidt(p);
          Tensor qsum = zeros({m, r}, TensorOptions(kFloat64));
          for (const Tensor& mat : mats) qsum = qsum + mat.t().matmul(p);
          q[b][v] = qsum / world_size;
          result.narrow(0, at, len).copy_(p.matmul(q[b][v].t()).reshape({-1}));
        } else {
          Tensor sum = zeros({len}, TensorOptions(kFloat64));
          for (const Tensor& mat : mats) sum = sum + mat.reshape({-1});
          result.narrow(0, at, len).copy_(sum / world_size);
        }
        at += len;
      }
      error[b].resize(world_size);
      for (int k = 0; k < world_size; ++k) error[b][k] = inputs[k] - result;
      at = 0;
      for (size_t v : buckets[b]) {
        out[v] = result.narrow(0, at, grads[0][v].numel()).reshape(grads[0][v].sizes());
        at += grads[0][v].numel();
      }
    }
    return out;
  }
};

// env: DDP_HOOK (HookKind), DDP_BUCKET_CAP_MB (times 1e-7: 1 puts each
// parameter in its own bucket).
EMBER_DIST_WORKER(ddp_hook_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  const auto kind = static_cast<HookKind>(env_int("DDP_HOOK"));
  ember::testing::DdpNet model = ember::testing::make_ddp_net();
  ember::testing::DdpNet reference = ember::testing::make_ddp_net();
  DistributedDataParallel ddp(model, {.bucket_cap_mb = env_int("DDP_BUCKET_CAP_TINY") ? 1e-7 : 25.0});
  namespace hooks = ddp_comm_hooks;
  auto powersgd = std::make_shared<hooks::PowerSGDState>(hooks::PowerSGDOptions{
      .matrix_approximation_rank = 2, .start_powerSGD_iter = 2, .min_compression_rate = 1, .random_seed = 0});
  switch (kind) {
    case kAllreduce: ddp.register_comm_hook(nullptr, hooks::allreduce_hook); break;
    case kFp16: ddp.register_comm_hook(nullptr, hooks::fp16_compress_hook); break;
    case kBf16: ddp.register_comm_hook(nullptr, hooks::bf16_compress_hook); break;
    case kFp16Wrapper:
      ddp.register_comm_hook(std::shared_ptr<ProcessGroup>(), hooks::fp16_compress_wrapper(hooks::allreduce_hook));
      break;
    case kBf16Wrapper:
      ddp.register_comm_hook(std::shared_ptr<ProcessGroup>(), hooks::bf16_compress_wrapper(hooks::allreduce_hook));
      break;
    case kPowerSGD: ddp.register_comm_hook(powersgd, hooks::powerSGD_hook); break;
  }
  // float16 keeps 11 significant bits, bfloat16 8: each rank's share is
  // rounded, then every partial sum.
  const double rel = kind == kFp16 || kind == kFp16Wrapper ? std::ldexp(1.0, -11) * 2 * world_size
                     : kind == kBf16 || kind == kBf16Wrapper ? std::ldexp(1.0, -8) * 2 * world_size
                                                             : 1e-12;
  PowerSGDReference powersgd_reference;
  optim::SGD opt(model->parameters(), {.lr = 0.1});
  double worst_relative = 0;
  for (int64_t step = 0; step < kSteps; ++step) {
    {
      NoGradGuard no_grad;
      for (size_t v = 0; v < model->parameters().size(); ++v)
        reference->parameters()[v].copy_(model->parameters()[v]);
    }
    const ember::testing::Batch batch = ember::testing::global_batch(step, kGlobalBatch);
    const ember::testing::Batch mine = ember::testing::shard(batch, rank, world_size);
    Tensor loss = ddp.forward([&] { return nn::functional::mse_loss(model(mine.x), mine.y); });
    opt.zero_grad();
    loss.backward();
    const auto grads = rank_gradients(reference, batch, world_size);
    std::vector<Tensor> expected;
    if (kind == kPowerSGD) {
      expected = powersgd_reference.reduce(grads, ddp.bucket_indices());
    } else {
      for (size_t v = 0; v < grads[0].size(); ++v) {
        Tensor sum = zeros_like(grads[0][v]);
        for (int r = 0; r < world_size; ++r) sum = sum + grads[r][v];
        expected.push_back(sum / world_size);
      }
    }
    const auto params = model->parameters();
    for (size_t v = 0; v < params.size(); ++v) {
      const double scale = expected[v].abs().max().item<double>();
      const double diff = ember::testing::max_abs_diff(params[v].grad(), expected[v]);
      const double tolerance = kind == kPowerSGD ? 1e-10 : rel * scale + 1e-7 * (kind != kAllreduce);
      EMBER_CHECK(diff <= tolerance, "rank ", rank, ", step ", step, ": parameter ", ddp.parameter_names()[v],
                  "'s gradient is off by ", diff, " (tolerance ", tolerance, ")");
      worst_relative = std::max(worst_relative, diff / scale);
    }
    opt.step();
  }
  // The compressing hooks did round (they are not a plain all_reduce).
  if (kind != kAllreduce && kind != kPowerSGD)
    EMBER_CHECK(worst_relative > 1e-9, "rank ", rank, ": the compressed gradients are exact, so nothing was compressed");
  if (kind == kPowerSGD) {
    EMBER_CHECK(powersgd->iter == kSteps, "rank ", rank, ": PowerSGD counted ", powersgd->iter, " iterations");
    EMBER_CHECK(powersgd->total_numel_after_compression < powersgd->total_numel_before_compression, "rank ", rank,
                ": PowerSGD compressed nothing");
  }
  barrier();
  destroy_process_group();
}

struct HookCase {
  std::string name;
  HookKind kind;
  bool tiny_buckets;
};

class DdpCommHook : public ::testing::TestWithParam<HookCase> {};

TEST_P(DdpCommHook, GradientsMatchTheReference) {
  TCPStoreServer server;
  auto env = ember::testing::store_env(server);
  env["DDP_HOOK"] = std::to_string(GetParam().kind);
  env["DDP_BUCKET_CAP_TINY"] = GetParam().tiny_buckets ? "1" : "0";
  ember::testing::Ranks ranks("ddp_hook_worker", 2, env);
  EXPECT_TRUE(ranks.all_succeed(120s));
}

INSTANTIATE_TEST_SUITE_P(DistributedDataParallel, DdpCommHook,
                         ::testing::Values(HookCase{"Allreduce", kAllreduce, true},
                                           HookCase{"Fp16Compress", kFp16, true},
                                           HookCase{"Bf16Compress", kBf16, false},
                                           HookCase{"Fp16CompressWrapper", kFp16Wrapper, false},
                                           HookCase{"Bf16CompressWrapper", kBf16Wrapper, true},
                                           HookCase{"PowerSGDOneBucket", kPowerSGD, false},
                                           HookCase{"PowerSGDBucketPerParameter", kPowerSGD, true}),
                         [](const auto& info) { return info.param.name; });

// What a user hook with its own state sees: buckets launch while the backward
// pass still runs (the first bucket before the last gradient was
// accumulated), in bucket order, and only the last one says is_last.
struct LaunchLog {
  int accumulated = 0;                                  // gradients accumulated so far this pass
  std::vector<std::pair<int64_t, int>> launches;        // (bucket index, accumulated then)
  std::vector<bool> is_last;
};

EMBER_DIST_WORKER(ddp_overlap_worker) {
  auto store = ember::testing::init_gloo_from_test_store(rank, world_size);
  ember::testing::DdpNet model = ember::testing::make_ddp_net();
  DistributedDataParallel ddp(model, {.bucket_cap_mb = 1e-7});
  auto log = std::make_shared<LaunchLog>();
  for (const Tensor& p : model->parameters()) p.register_post_accumulate_grad_hook([log](Tensor&) { ++log->accumulated; });
  ddp.register_comm_hook(log, [](const std::shared_ptr<LaunchLog>& state, GradBucket& bucket) {
    state->launches.emplace_back(bucket.index(), state->accumulated);
    state->is_last.push_back(bucket.is_last());
    return ddp_comm_hooks::allreduce_hook(nullptr, bucket);
  });
  const ember::testing::Batch batch = ember::testing::global_batch(0, 8);
  const ember::testing::Batch mine = ember::testing::shard(batch, rank, world_size);
  // The first iteration's buckets follow reverse registration order, which
  // puts the hidden layer (registered last, its gradients come last) first:
  // nothing can launch early. The rebuilt buckets follow arrival order.
  ddp.forward([&] { return nn::functional::mse_loss(model(mine.x), mine.y); }).backward();
  *log = LaunchLog{};
  ddp.forward([&] { return nn::functional::mse_loss(model(mine.x), mine.y); }).backward();
  const size_t buckets = ddp.bucket_indices().size();
  EMBER_CHECK(log->launches.size() == buckets, "rank ", rank, ": ", log->launches.size(), " launches for ", buckets,
              " buckets");
  for (size_t b = 0; b < buckets; ++b) {
    EMBER_CHECK(log->launches[b].first == static_cast<int64_t>(b), "rank ", rank, ": launch ", b, " was bucket ",
                log->launches[b].first);
    EMBER_CHECK(log->is_last[b] == (b + 1 == buckets), "rank ", rank, ": bucket ", b, " is_last is wrong");
  }
  // DDP's hooks run before the test's (registered first): rebuilt bucket 0
  // (one parameter) is launched as soon as the first gradient arrives, while
  // the backward pass has the others still to compute.
  EMBER_CHECK(log->launches[0].second == 0, "rank ", rank, ": the first bucket was launched after ",
              log->launches[0].second, " of ", model->parameters().size(), " gradients, expected at the first");
  barrier();
  destroy_process_group();
}

TEST(DdpCommHookOverlap, BucketsLaunchDuringBackwardInOrder) {
  TCPStoreServer server;
  ember::testing::Ranks ranks("ddp_overlap_worker", 2, ember::testing::store_env(server));
  EXPECT_TRUE(ranks.all_succeed(60s));
}

}  // namespace
