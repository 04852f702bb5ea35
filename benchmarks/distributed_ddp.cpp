// The DDP workloads of the distributed suite: a DDP training step against
// its parts timed alone, so that the overlap of communication with the
// backward pass shows: with full overlap, step ~ max(compute, all_reduce);
// without, step ~ compute + all_reduce. peers/distributed.py times the same
// with torch.nn.parallel.DistributedDataParallel.
#include "distributed_ddp.h"

#include <ember/distributed/distributed.h>
#include <ember/ember.h>
#include <ember/models/resnet.h>

namespace ember_bench_ddp {

namespace {

namespace dist = ember::distributed;
namespace nn = ember::nn;
using ember::Tensor;

constexpr int64_t kBatch = 32;

struct Model {
  std::string name;
  std::shared_ptr<nn::Module> module;
  std::function<Tensor(const Tensor&)> forward;
  Tensor x, y;
};

// benchmarks/nn_train.cpp's small CNN (1x28x28, 5 classes).
Model small_cnn() {
  auto net = nn::Sequential(
      nn::Conv2d({.in_channels = 1, .out_channels = 16, .kernel_size = 3, .padding = 1, .bias = false}),
      nn::BatchNorm2d(16), nn::ReLU(), nn::MaxPool2d(2),
      nn::Conv2d({.in_channels = 16, .out_channels = 32, .kernel_size = 3, .padding = 1, .bias = false}),
      nn::BatchNorm2d(32), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(32 * 7 * 7, 64), nn::ReLU(),
      nn::Linear(64, 5));
  return {"cnn", net.ptr(), [net](const Tensor& x) { return net(x); }, ember::randn({kBatch, 1, 28, 28}),
          ember::randint(0, 5, {kBatch})};
}

Model resnet18() {
  auto net = ember::models::resnet18();
  return {"resnet18", net.ptr(), [net](const Tensor& x) { return net(x); }, ember::randn({kBatch, 3, 224, 224}),
          ember::randint(0, 1000, {kBatch})};
}

}  // namespace

void run_ddp_workloads(const TimeFn& time, const RecordFn& record, const std::string& filter) {
  for (auto make : {small_cnn, resnet18}) {
    ember::manual_seed(0);
    Model m = make();
    auto wanted = [&](const std::string& name) { return filter.empty() || name.find(filter) != std::string::npos; };
    if (!wanted("ddp_step_" + m.name) && !wanted("compute_" + m.name) && !wanted("allreduce_" + m.name)) continue;
    dist::DistributedDataParallel ddp(m.module);
    ember::optim::SGD opt(m.module->parameters(), {.lr = 0.01, .momentum = 0.9});
    auto loss_of = [&] { return nn::functional::cross_entropy(m.forward(m.x), m.y); };
    if (wanted("ddp_step_" + m.name))
      record("ddp_step_" + m.name, time([&] {
               opt.zero_grad();
               Tensor loss = ddp.forward(loss_of);
               loss.backward();
               opt.step();
             }));
    // The same step on the module itself: DDP's hooks see no DDP forward
    // pass and do nothing.
    if (wanted("compute_" + m.name))
      record("compute_" + m.name, time([&] {
               opt.zero_grad();
               loss_of().backward();
               opt.step();
             }));
    if (wanted("allreduce_" + m.name)) {
      int64_t numel = 0;
      for (const Tensor& p : m.module->parameters()) numel += p.numel();
      Tensor grads = ember::zeros({numel});
      record("allreduce_" + m.name, time([&] { dist::all_reduce(grads); }));
    }
  }
}

}  // namespace ember_bench_ddp
