// Suite nn: recurrent layers, Ember's nn::LSTM vs libtorch's at::lstm (what
// torch.nn.LSTM runs), same weights, fp32.
//  - lstm_256x256_l2_seq100_b16_fwd: 2-layer LSTM(256, 256), input [100, 16, 256],
//    inference (Ember under NoGradGuard, libtorch under InferenceMode).
//  - lstm_256x256_l2_seq100_b16_fwdbwd: the same with autograd on, then
//    backward of out.sum(); the check compares weight_ih_l0's gradient.
#include <cmath>

#include "bench.h"

namespace {

using ember_bench::Case;
using ember_bench::twin;

constexpr int64_t kIn = 256, kHidden = 256, kLayers = 2, kSeq = 100, kBatch = 16;

struct LstmTwin {
  ember::nn::LSTM ours{nullptr};
  std::vector<at::Tensor> peer;  // w_ih, w_hh, b_ih, b_hh per layer
  ember_bench::Twin x;
};

LstmTwin make_lstm(bool requires_grad) {
  LstmTwin m;
  m.ours = ember::nn::LSTM(ember::nn::LSTMOptions{.input_size = kIn, .hidden_size = kHidden, .num_layers = kLayers});
  const double bound = 1 / std::sqrt(double(kHidden));
  auto params = m.ours->named_parameters();
  for (const auto& [name, p] : params) {
    auto w = twin((at::rand(p.sizes().vec()) * 2 - 1) * bound);
    {
      ember::NoGradGuard no_grad;
      ember::Tensor dst = p;
      dst.copy_(w.e);
    }
    m.peer.push_back(w.t.requires_grad_(requires_grad));
  }
  m.x = twin(at::randn({kSeq, kBatch, kIn}));
  return m;
}

ember_bench::Workload forward() {
  return {"nn", "lstm_256x256_l2_seq100_b16_fwd", [] {
            LstmTwin m = make_lstm(false);
            auto ours = [=]() {
              ember::NoGradGuard no_grad;
              return std::get<0>(m.ours(m.x.e));
            };
            auto peer = [=]() {
              auto h0 = at::zeros({kLayers, kBatch, kHidden});
              return std::get<0>(at::lstm(m.x.t, {h0, h0}, m.peer, true, kLayers, 0.0, false, false, false));
            };
            Case c{ours, peer, 0, 1e-4, 1e-5};
            c.units = kSeq;
            c.unit_name = "step";
            return c;
          }};
}

ember_bench::Workload forward_backward() {
  return {"nn", "lstm_256x256_l2_seq100_b16_fwdbwd", [] {
            c10::InferenceMode no_inference(false);
            LstmTwin m = make_lstm(true);
            auto ours = [=]() {
              ember::Tensor w = m.ours->named_parameters()["weight_ih_l0"];
              m.ours->zero_grad();
              std::get<0>(m.ours(m.x.e)).sum().backward();
              return w.grad();
            };
            auto peer = [=]() {
              c10::InferenceMode no_inference_run(false);
              for (at::Tensor p : m.peer) p.mutable_grad() = at::Tensor();
              auto h0 = at::zeros({kLayers, kBatch, kHidden});
              std::get<0>(at::lstm(m.x.t, {h0, h0}, m.peer, true, kLayers, 0.0, true, false, false)).sum().backward();
              return m.peer[0].grad();
            };
            Case c{ours, peer, 0, 1e-3, 1e-4};
            c.units = kSeq;
            c.unit_name = "step";
            return c;
          }};
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({forward(), forward_backward()});

}  // namespace
