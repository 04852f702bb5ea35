// Standalone timing of MobileNetV2 inference (docs/models.md, "Speed"): Ember
// against libtorch in one process, the same weights, the same thread count.
// scripts/timing/models_mobilenet_v2.sh builds and runs it. libtorch runs
// torchvision's model as TorchScript: "eager" is torch.jit.script of the eval
// model (the same layers and kernels as Python's eager mode, run by libtorch's
// interpreter), "frozen" is torch.jit.freeze of it (BatchNorm folded into the
// convolutions; optimize_for_inference's output cannot be loaded back in
// torch 1.13). Workloads alternate between the peers
// round by round, so load on the machine affects both alike; prints medians
// (ms per forward) and libtorch / Ember ratios.
#include <ATen/Parallel.h>
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/models/mobilenet_v2.h>

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <export dir> [threads]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  ember::set_num_threads(threads);
  at::set_num_threads(threads);

  auto net = ember::models::mobilenet_v2();
  net->load_state_dict(ember::serialize::load_torch_state_dict(dir + "/mobilenet_v2.pt"));
  net->eval();
  auto eager = torch::jit::load(dir + "/mobilenet_v2_eager.ts");
  eager.eval();
  auto frozen = torch::jit::load(dir + "/mobilenet_v2_frozen.ts");

  // The same logits as torchvision (and as the two TorchScript programs).
  {
    ember::NoGradGuard no_grad;
    torch::NoGradGuard torch_no_grad;
    const auto ref = ember::serialize::load_torch(dir + "/mobilenet_v2_out.pt");
    const ember::Tensor x = ref.at("input").to_tensor();
    const ember::Tensor expected = ref.at("logits").to_tensor();
    const double scale = expected.abs().max().item<double>();
    const double err = (net->forward(x) - expected).abs().max().item<double>();
    const torch::Tensor tx = torch::from_blob(x.data_ptr<float>(), {2, 3, 224, 224}).clone();
    const torch::Tensor te = torch::from_blob(expected.data_ptr<float>(), {2, 1000}).clone();
    const double err_eager = (eager.forward({tx}).toTensor() - te).abs().max().item<double>();
    const double err_frozen = (frozen.forward({tx}).toTensor() - te).abs().max().item<double>();
    std::printf("max |logit error| / max |logit|: ember %.2g, libtorch eager %.2g, frozen %.2g\n", err / scale,
                err_eager / scale, err_frozen / scale);
  }

  std::printf("threads %d\n%-24s %10s %10s %10s %8s %8s\n", threads, "workload",
              "ember_ms", "torch_ms", "frozen_ms", "eager/E", "frozen/E");
  for (int64_t batch : {1, 8}) {
    for (bool cl : {false, true}) {
      const auto fmt = cl ? ember::MemoryFormat::ChannelsLast : ember::MemoryFormat::Contiguous;
      const auto tfmt = cl ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
      net->to(fmt);
      ember::Tensor x = ember::randn({batch, 3, 224, 224}).contiguous(fmt);
      torch::Tensor tx = torch::randn({batch, 3, 224, 224}).contiguous(tfmt);
      // libtorch's eager program converts its parameters as Module.to does.
      if (cl) {
        for (auto p : eager.parameters()) {
          if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
        }
      }
      ember::NoGradGuard no_grad;
      torch::NoGradGuard torch_no_grad;
      std::vector<std::pair<std::string, std::function<void()>>> peers = {
          {"ember", [&] { net->forward(x); }},
          {"eager", [&] { eager.forward({tx}); }},
          {"frozen", [&] { frozen.forward({tx}); }},
      };
      for (auto& [name, fn] : peers)
        for (int i = 0; i < 5; ++i) fn();  // warm-up: primitive caches, allocator
      const int rounds = batch == 1 ? 60 : 20;
      std::vector<std::vector<double>> times(peers.size());
      for (int r = 0; r < rounds; ++r)
        for (size_t p = 0; p < peers.size(); ++p) {
          const double a = now_ms();
          peers[p].second();
          times[p].push_back(now_ms() - a);
        }
      const double e = median(times[0]), t = median(times[1]), f = median(times[2]);
      const std::string name = "mobilenet_v2_b" + std::to_string(batch) + (cl ? "_cl" : "_nchw");
      std::printf("%-24s %10.3f %10.3f %10.3f %7.2fx %7.2fx\n", name.c_str(), e, t, f, t / e, f / e);
    }
  }
}
