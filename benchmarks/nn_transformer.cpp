// Suite nn: TransformerEncoderLayer(512, 8) (dim_feedforward 2048, dropout
// 0.1, relu, sequence first as PyTorch's default), input [128, 8, 512], fp32.
// Ember's nn::TransformerEncoderLayer vs libtorch's torch::nn::TransformerEncoderLayer
// with the same weights, both in eval mode (dropout off, so the results can be
// compared; libtorch's C++ layer has no fused fast path).
//  - transformer_enc_512x8_seq128_b8_fwd: inference (Ember under NoGradGuard,
//    libtorch under InferenceMode).
//  - transformer_enc_512x8_seq128_b8_fwdbwd: autograd on, backward of
//    out.sum(); the check compares self_attn.in_proj_weight's gradient.
#include <torch/nn/modules/transformerlayer.h>

#include "bench.h"

namespace {

using ember_bench::Case;

constexpr int64_t kModel = 512, kHeads = 8, kSeq = 128, kBatch = 8;

struct EncoderTwin {
  ember::nn::TransformerEncoderLayer ours{nullptr};
  torch::nn::TransformerEncoderLayer peer{nullptr};
  ember_bench::Twin x;
};

EncoderTwin make_encoder(bool requires_grad) {
  EncoderTwin m;
  m.peer = torch::nn::TransformerEncoderLayer(torch::nn::TransformerEncoderLayerOptions(kModel, kHeads));
  m.ours = ember::nn::TransformerEncoderLayer(kModel, kHeads);
  auto peer_params = m.peer->named_parameters();
  for (const auto& [name, p] : m.ours->named_parameters()) {
    ember::NoGradGuard no_grad;
    ember::Tensor dst = p;
    dst.copy_(ember_bench::to_ember(peer_params[name].detach()));
  }
  for (auto& p : m.peer->parameters()) p.requires_grad_(requires_grad);
  m.peer->eval();
  m.ours->eval();
  m.x = ember_bench::twin(at::randn({kSeq, kBatch, kModel}));
  return m;
}

ember_bench::Workload forward() {
  return {"nn", "transformer_enc_512x8_seq128_b8_fwd", [] {
            EncoderTwin m = make_encoder(false);
            auto ours = [=]() {
              ember::NoGradGuard no_grad;
              return m.ours(m.x.e);
            };
            auto peer = [=]() { return m.peer.ptr()->forward(m.x.t); };
            return Case{ours, peer, 0, 1e-4, 1e-4, 0, ""};
          }};
}

ember_bench::Workload forward_backward() {
  return {"nn", "transformer_enc_512x8_seq128_b8_fwdbwd", [] {
            c10::InferenceMode no_inference(false);
            EncoderTwin m = make_encoder(true);
            auto ours = [=]() {
              m.ours->zero_grad();
              m.ours(m.x.e).sum().backward();
              return m.ours->self_attn->in_proj_weight.grad();
            };
            auto peer = [=]() {
              c10::InferenceMode no_inference_run(false);
              m.peer.ptr()->zero_grad();
              m.peer.ptr()->forward(m.x.t).sum().backward();
              return m.peer.ptr()->self_attn->in_proj_weight.grad();
            };
            return Case{ours, peer, 0, 1e-3, 1e-3, 0, ""};
          }};
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({forward(), forward_backward()});

}  // namespace
