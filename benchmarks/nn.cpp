// Suite nn (convolution and normalization part): conv2d forward and forward +
// backward on ResNet-50 layer shapes, batch 1 and 8, NCHW and channels-last;
// BatchNorm2d training forward and forward + backward. Ember vs libtorch
// (which runs the same oneDNN for its float32 CPU convolutions).
// The harness runs libtorch under InferenceMode; the backward workloads switch
// it off for their inputs and runs (as autograd.cpp).
#include "bench.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/normalization.h"

namespace {

using ember_bench::Case;
using ember_bench::twin;

struct ConvShape {
  const char* name;
  int64_t cin, cout, k, stride, pad, hw;
};
// ResNet-50 (224x224 input): stem, a 3x3 of each stage, a strided 1x1
// downsample and a 1x1 expansion.
constexpr ConvShape kShapes[] = {
    {"conv1_7x7s2_3-64_224", 3, 64, 7, 2, 3, 224},      {"res2_3x3_64-64_56", 64, 64, 3, 1, 1, 56},
    {"res3_1x1s2_256-512_56", 256, 512, 1, 2, 0, 56},  {"res3_3x3_128-128_28", 128, 128, 3, 1, 1, 28},
    {"res4_3x3_256-256_14", 256, 256, 3, 1, 1, 14},    {"res5_1x1_512-2048_7", 512, 2048, 1, 1, 0, 7},
};

std::string tag(int64_t batch, bool cl) { return "_b" + std::to_string(batch) + (cl ? "_cl" : "_nchw"); }

at::Tensor layout(const at::Tensor& t, bool cl) {
  return cl ? t.contiguous(at::MemoryFormat::ChannelsLast) : t.contiguous();
}

ember_bench::Workload conv_forward(const ConvShape& s, int64_t batch, bool cl) {
  return {"nn", std::string("conv2d_fwd_") + s.name + tag(batch, cl), [s, batch, cl] {
            auto x = twin(layout(at::randn({batch, s.cin, s.hw, s.hw}), cl));
            auto w = twin(layout(at::randn({s.cout, s.cin, s.k, s.k}) / std::sqrt(double(s.cin * s.k * s.k)), cl));
            auto b = twin(at::randn({s.cout}));
            auto ours = [=] {
              return ember::nn::functional::conv2d(x.e, w.e, {.bias = b.e, .stride = s.stride, .padding = s.pad});
            };
            auto peer = [=] { return at::conv2d(x.t, w.t, b.t, s.stride, s.pad); };
            return Case{ours, peer, 0, 1e-3, 1e-3};
          }};
}

ember_bench::Workload conv_backward(const ConvShape& s, int64_t batch, bool cl) {
  return {"nn", std::string("conv2d_fwdbwd_") + s.name + tag(batch, cl), [s, batch, cl] {
            c10::InferenceMode no_inference(false);
            auto x = twin(layout(at::randn({batch, s.cin, s.hw, s.hw}), cl));
            auto w = twin(layout(at::randn({s.cout, s.cin, s.k, s.k}) / std::sqrt(double(s.cin * s.k * s.k)), cl));
            auto b = twin(at::randn({s.cout}));
            const int64_t out = (s.hw + 2 * s.pad - s.k) / s.stride + 1;
            auto gy = twin(layout(at::randn({batch, s.cout, out, out}), cl));
            ember::Tensor xe = x.e.requires_grad_(), we = w.e.requires_grad_(), be = b.e.requires_grad_();
            at::Tensor xt = x.t.requires_grad_(), wt = w.t.requires_grad_(), bt = b.t.requires_grad_();
            auto ours = [=] {
              for (ember::Tensor p : {xe, we, be}) p.mutable_grad() = ember::Tensor();
              ember::Tensor y =
                  ember::nn::functional::conv2d(xe, we, {.bias = be, .stride = s.stride, .padding = s.pad});
              y.backward(gy.e);
              return we.grad();
            };
            auto peer = [=] {
              c10::InferenceMode no_inference_run(false);
              for (at::Tensor p : {xt, wt, bt}) p.mutable_grad() = at::Tensor();
              at::Tensor y = at::conv2d(xt, wt, bt, s.stride, s.pad);
              y.backward(gy.t);
              return wt.grad();
            };
            return Case{ours, peer, 0, 1e-3, 1e-2};
          }};
}

ember_bench::Workload batch_norm(bool backward, bool cl) {
  constexpr int64_t kN = 8, kC = 64, kHW = 56;
  return {"nn", std::string("batchnorm2d_train_") + (backward ? "fwdbwd" : "fwd") + "_8x64x56x56" + (cl ? "_cl" : "_nchw"),
          [backward, cl] {
            c10::InferenceMode no_inference(false);
            auto x = twin(layout(at::randn({kN, kC, kHW, kHW}), cl));
            auto w = twin(at::rand({kC}) + 0.5);
            auto b = twin(at::randn({kC}));
            auto gy = twin(layout(at::randn({kN, kC, kHW, kHW}), cl));
            ember::Tensor rme = ember::zeros({kC}), rve = ember::ones({kC});
            at::Tensor rmt = at::zeros({kC}), rvt = at::ones({kC});
            ember::Tensor xe = x.e, we = w.e, be = b.e;
            at::Tensor xt = x.t, wt = w.t, bt = b.t;
            if (backward) {
              xe.requires_grad_();
              we.requires_grad_();
              be.requires_grad_();
              xt.requires_grad_();
              wt.requires_grad_();
              bt.requires_grad_();
            }
            auto ours = [=] {
              ember::Tensor y = ember::nn::functional::batch_norm(xe, rme, rve, {.weight = we, .bias = be, .training = true});
              if (!backward) return y;
              for (ember::Tensor p : {xe, we, be}) p.mutable_grad() = ember::Tensor();
              y.backward(gy.e);
              return xe.grad();
            };
            auto peer = [=] {
              c10::InferenceMode no_inference_run(false);
              at::Tensor y = at::batch_norm(xt, wt, bt, rmt, rvt, true, 0.1, 1e-5, false);
              if (!backward) return y;
              for (at::Tensor p : {xt, wt, bt}) p.mutable_grad() = at::Tensor();
              y.backward(gy.t);
              return xt.grad();
            };
            return Case{ours, peer, 0, 1e-3, 1e-3};
          }};
}

std::vector<ember_bench::Workload> all() {
  std::vector<ember_bench::Workload> v;
  for (const ConvShape& s : kShapes)
    for (int64_t batch : {1, 8})
      for (bool cl : {false, true}) v.push_back(conv_forward(s, batch, cl));
  for (const ConvShape& s : kShapes)
    for (int64_t batch : {1, 8})
      for (bool cl : {false, true}) v.push_back(conv_backward(s, batch, cl));
  for (bool backward : {false, true})
    for (bool cl : {false, true}) v.push_back(batch_norm(backward, cl));
  return v;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(all());

}  // namespace
