// Suite autograd: forward + backward, Ember's engine vs libtorch's, same ops.
//  - mlp_784-512-512-10_b128: three addmm layers, ReLU, softmax cross-entropy
//    (logsumexp - gather), fp32; the check compares the first layer's gradient.
//  - chain_1000_scalar_ops: 1,000 tiny ops on a one-element tensor, then
//    backward: per-node overhead of recording plus running the graph.
// The harness runs libtorch under InferenceMode; these workloads switch it off.
#include "bench.h"
#include "ember/ops/linalg.h"

namespace {

using ember_bench::Case;
using ember_bench::twin;

ember_bench::Workload mlp() {
  return {"autograd", "mlp_784-512-512-10_b128", [] {
            c10::InferenceMode no_inference(false);
            constexpr int64_t batch = 128;
            const int64_t sizes[] = {784, 512, 512, 10};
            std::vector<ember::Tensor> ep;
            std::vector<at::Tensor> tp;
            for (int l = 0; l < 3; ++l) {
              auto w = twin(at::randn({sizes[l], sizes[l + 1]}) / std::sqrt(double(sizes[l])));
              auto b = twin(at::randn({sizes[l + 1]}) * 0.1);
              ep.push_back(w.e.requires_grad_());
              ep.push_back(b.e.requires_grad_());
              tp.push_back(w.t.requires_grad_());
              tp.push_back(b.t.requires_grad_());
            }
            auto x = twin(at::randn({batch, sizes[0]}));
            auto target = twin(at::randint(0, sizes[3], {batch, 1}));
            auto ours = [=]() {
              for (ember::Tensor p : ep) p.mutable_grad() = ember::Tensor();
              ember::Tensor h = x.e;
              for (int l = 0; l < 3; ++l) {
                h = ember::addmm(ep[2 * l + 1], h, ep[2 * l]);
                if (l < 2) h = h.relu();
              }
              ember::Tensor loss = (h.logsumexp({1}, true) - h.gather(1, target.e)).mean();
              loss.backward();
              return ep[0].grad();
            };
            auto peer = [=]() {
              c10::InferenceMode no_inference_run(false);
              for (at::Tensor p : tp) p.mutable_grad() = at::Tensor();
              at::Tensor h = x.t;
              for (int l = 0; l < 3; ++l) {
                h = at::addmm(tp[2 * l + 1], h, tp[2 * l]);
                if (l < 2) h = h.relu();
              }
              at::Tensor loss = (h.logsumexp({1}, true) - h.gather(1, target.t)).mean();
              loss.backward();
              return tp[0].grad();
            };
            return Case{ours, peer, 0, 1e-3, 1e-5};
          }};
}

ember_bench::Workload chain() {
  constexpr int kOps = 1000;
  return {"autograd", "chain_1000_scalar_ops", [] {
            c10::InferenceMode no_inference(false);
            auto x = twin(at::ones({1}));
            ember::Tensor xe = x.e.requires_grad_();
            at::Tensor xt = x.t.requires_grad_();
            auto ours = [=]() {
              ember::Tensor leaf = xe;
              leaf.mutable_grad() = ember::Tensor();
              ember::Tensor y = leaf;
              for (int i = 0; i < kOps / 2; ++i) y = (y * 1.0001) + 0.0001;
              y.backward(ember::ones_like(y));
              return leaf.grad();
            };
            auto peer = [=]() {
              c10::InferenceMode no_inference_run(false);
              at::Tensor leaf = xt;
              leaf.mutable_grad() = at::Tensor();
              at::Tensor y = leaf;
              for (int i = 0; i < kOps / 2; ++i) y = (y * 1.0001) + 0.0001;
              y.backward(at::ones_like(y));
              return leaf.grad();
            };
            Case c{ours, peer, 0, 1e-5, 1e-6};
            c.units = kOps;
            c.unit_name = "node";
            return c;
          }};
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({mlp(), chain()});

}  // namespace
