// Suite nn: one training step of a small CNN (the README's train_shapes model
// without dropout): conv 3x3 1->16, BatchNorm, ReLU, 2x2 max pool, conv 3x3
// 16->32, BatchNorm, ReLU, max pool, Linear 1568->64, ReLU, Linear 64->5;
// batch 64 of 1x28x28; cross-entropy; backward; AdamW step. Ember's nn modules
// and optim vs libtorch's C++ frontend (torch::nn, torch::optim), same initial
// weights and data. The check compares the first step's loss.
#include <torch/torch.h>

#include "bench.h"

namespace {

using ember_bench::Case;
using ember_bench::twin;

constexpr int64_t kBatch = 64, kClasses = 5;

struct EmberNetImpl : ember::nn::Module {
  ember::nn::Sequential body{nullptr};
  EmberNetImpl() {
    namespace nn = ember::nn;
    body = register_module(
        "body", nn::Sequential(nn::Conv2d({.in_channels = 1, .out_channels = 16, .kernel_size = 3, .padding = 1,
                                           .bias = false}),
                               nn::BatchNorm2d(16), nn::ReLU(), nn::MaxPool2d(2),
                               nn::Conv2d({.in_channels = 16, .out_channels = 32, .kernel_size = 3, .padding = 1,
                                           .bias = false}),
                               nn::BatchNorm2d(32), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                               nn::Linear(32 * 7 * 7, 64), nn::ReLU(), nn::Linear(64, kClasses)));
  }
  ember::Tensor forward(const ember::Tensor& x) { return body(x); }
};
EMBER_MODULE(EmberNet);

torch::nn::Sequential torch_net() {
  namespace tnn = torch::nn;
  return tnn::Sequential(tnn::Conv2d(tnn::Conv2dOptions(1, 16, 3).padding(1).bias(false)), tnn::BatchNorm2d(16),
                         tnn::ReLU(), tnn::MaxPool2d(2),
                         tnn::Conv2d(tnn::Conv2dOptions(16, 32, 3).padding(1).bias(false)), tnn::BatchNorm2d(32),
                         tnn::ReLU(), tnn::MaxPool2d(2), tnn::Flatten(), tnn::Linear(32 * 7 * 7, 64), tnn::ReLU(),
                         tnn::Linear(64, kClasses));
}

ember_bench::Workload train_step() {
  return {"nn", "train_step_small_cnn_b64_28x28", [] {
            c10::InferenceMode no_inference(false);
            EmberNet ours_net;
            torch::nn::Sequential peer_net = torch_net();
            // Same initial weights: libtorch's, copied into Ember by position
            // (both list conv1.weight, bn1.weight, bn1.bias, conv2.weight, ...).
            auto ours_params = ours_net->parameters();
            auto peer_params = peer_net->parameters();
            {
              torch::NoGradGuard no_grad;
              ember::NoGradGuard ember_no_grad;
              for (size_t i = 0; i < ours_params.size(); ++i) {
                ember::Tensor dst = ours_params[i];
                dst.copy_(twin(peer_params[i].detach()).e);
              }
            }
            auto x = twin(at::randn({kBatch, 1, 28, 28}));
            auto y = twin(at::randint(0, kClasses, {kBatch}, at::kLong));
            auto ours_opt = std::make_shared<ember::optim::AdamW>(ours_params, ember::optim::AdamWOptions{.lr = 1e-3});
            auto peer_opt = std::make_shared<torch::optim::AdamW>(peer_params, torch::optim::AdamWOptions(1e-3));
            auto ours = [=]() mutable {
              ours_opt->zero_grad();
              ember::Tensor loss = ember::nn::functional::cross_entropy(ours_net(x.e), y.e);
              loss.backward();
              ours_opt->step();
              return loss.detach();
            };
            auto peer = [=]() mutable {
              c10::InferenceMode no_inference_run(false);
              peer_opt->zero_grad();
              at::Tensor loss = torch::nn::functional::cross_entropy(peer_net->forward(x.t), y.t);
              loss.backward();
              peer_opt->step();
              return loss.detach();
            };
            return Case{.ember = ours, .peer = peer, .rtol = 1e-3, .atol = 1e-4};
          }};
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({train_step()});

}  // namespace
