// DistributedDataParallel from C++: a small regression network trained on
// every rank's shard of a synthetic dataset, with gradient accumulation
// (no_sync) and uneven shards (Join). Run it under the launcher:
//
//   ember-run --nproc-per-node 2 ./ember_ddp_train
//
// It exits with 0 when the loss went down and every rank ends with the same
// parameters. docs/distributed.md ("DDP in C++") walks through it.
#include <cstdio>

#include <ember/distributed/distributed.h>
#include <ember/ember.h>

namespace dist = ember::distributed;
using ember::Tensor;

int main() {
  dist::init_process_group("gloo");  // env:// from ember-run
  const int64_t rank = dist::get_rank(), world_size = dist::get_world_size();

  ember::manual_seed(0);  // the model's initial values; DDP broadcasts rank 0's anyway
  auto model = ember::nn::Sequential(ember::nn::Linear(8, 32), ember::nn::Tanh(), ember::nn::Linear(32, 1));
  dist::DistributedDataParallel ddp(model, {.bucket_cap_mb = 25});
  ember::optim::SGD opt(model->parameters(), {.lr = 0.05});

  // This rank's data: the last rank gets fewer batches (uneven inputs).
  ember::Generator data(100 + static_cast<uint64_t>(rank));
  const Tensor w = ember::linspace(-1, 1, 8).reshape({8, 1});
  const int64_t batches = rank == world_size - 1 ? 40 : 48;
  constexpr int64_t kAccumulate = 2;  // micro-batches per optimizer step

  auto loss_of = [&](const Tensor& x) { return ember::nn::functional::mse_loss(model(x), ember::sin(x.matmul(w))); };
  const Tensor probe = ember::randn({256, 8}, {}, &data);
  const double first_loss = loss_of(probe).item<double>();

  dist::join({&ddp}, [&] {
    for (int64_t b = 0; b < batches; b += kAccumulate) {
      opt.zero_grad();
      for (int64_t micro = 0; micro < kAccumulate; ++micro) {
        const Tensor x = ember::randn({16, 8}, {}, &data);
        auto step = [&] {
          Tensor loss = ddp.forward([&] { return loss_of(x); });
          loss.backward();
        };
        if (micro + 1 < kAccumulate) {
          auto no_sync = ddp.no_sync();  // accumulate locally, no communication
          step();
        } else {
          step();  // this backward pass all-reduces the accumulated gradients
        }
      }
      opt.step();
    }
  });

  const double last_loss = loss_of(probe).item<double>();
  // Every rank holds the same parameters: their sum is the same everywhere.
  Tensor checksum = ember::zeros({1}, ember::kFloat64);
  for (const Tensor& p : model->parameters()) checksum += p.detach().to(ember::kFloat64).sum();
  Tensor low = checksum.clone(), high = checksum.clone();
  dist::all_reduce(low, dist::ReduceOp::MIN);
  dist::all_reduce(high, dist::ReduceOp::MAX);
  std::printf("rank %lld: loss %.5f -> %.5f, parameter checksum %.12f\n", static_cast<long long>(rank), first_loss,
              last_loss, checksum.item<double>());
  const bool ok = last_loss < first_loss && low.item<double>() == high.item<double>();
  dist::destroy_process_group();
  return ok ? 0 : 1;
}
