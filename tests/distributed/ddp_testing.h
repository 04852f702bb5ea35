#pragma once
// Helpers of the DistributedDataParallel tests: a small float64 network whose
// output layer is registered before its hidden layer (so the order gradients
// arrive in differs from reverse registration order), deterministic batches,
// and parameter comparisons. Every rank builds the reference (single-process)
// training next to its DDP one and checks itself.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <ember/core/generator.h>
#include <ember/core/tensor.h>
#include <ember/nn/functional/loss.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/module.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>

namespace ember::testing {

inline constexpr uint64_t kDdpModelSeed = 1234;

class DdpNetImpl : public nn::Module {
 public:
  // hidden: the hidden width; with_extra: an `extra` head that forward uses
  // only when asked.
  explicit DdpNetImpl(int64_t hidden_width = 8, bool with_extra = false) : Module("DdpNet") {
    out = register_module("out", nn::Linear(hidden_width, 3));
    hidden = register_module("hidden", nn::Linear(4, hidden_width));
    if (with_extra) extra = register_module("extra", nn::Linear(hidden_width, 3));
    scale = register_buffer("scale", ones({1}));
    to(kFloat64);
    // Buffers forward does not read, of other dtypes and layouts: DDP packs
    // every buffer into one broadcast (Note [Coalesced broadcasts]).
    steps = register_buffer("steps", tensor(std::vector<int64_t>{3, 4}, TensorOptions(kInt64)));
    table = register_buffer("table", arange(0, 6, 1, TensorOptions(kFloat64)).reshape({2, 3}).t());
  }
  Tensor forward(const Tensor& x, bool use_extra = false) {
    Tensor h = tanh(hidden(x));
    Tensor y = out(h);
    if (use_extra) y = y + extra(h);
    return y * scale;
  }
  nn::Linear out{nullptr}, hidden{nullptr}, extra{nullptr};
  Tensor scale, steps, table;
};
EMBER_MODULE(DdpNet);

// The same initial parameters on every call (the seed is fixed).
inline DdpNet make_ddp_net(int64_t hidden_width = 8, bool with_extra = false) {
  Generator saved = default_generator();
  manual_seed(kDdpModelSeed);
  DdpNet net(hidden_width, with_extra);
  default_generator() = saved;
  return net;
}

// Rows [first, first + count) of the global batch number `step` (inputs [B, 4], targets [B, 3]).
struct Batch {
  Tensor x, y;
};
inline Batch global_batch(int64_t step, int64_t rows) {
  Generator g(1000 + static_cast<uint64_t>(step));
  Tensor x = randn({rows, 4}, TensorOptions(kFloat64), &g);
  Tensor y = randn({rows, 3}, TensorOptions(kFloat64), &g);
  return {x, y};
}
inline Batch shard(const Batch& batch, int rank, int world_size) {
  const int64_t per_rank = batch.x.size(0) / world_size;
  return {batch.x.narrow(0, rank * per_rank, per_rank), batch.y.narrow(0, rank * per_rank, per_rank)};
}

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  return (a.to(kFloat64) - b.to(kFloat64)).abs().max().item<double>();
}

// The largest difference between the two modules' parameters.
inline double max_parameter_diff(const nn::Module& a, const nn::Module& b) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  EMBER_CHECK(pa.size() == pb.size(), "the modules have ", pa.size(), " and ", pb.size(), " parameters");
  double worst = 0;
  for (size_t i = 0; i < pa.size(); ++i) worst = std::max(worst, max_abs_diff(pa.item(i).second, pb.item(i).second));
  return worst;
}

}  // namespace ember::testing
