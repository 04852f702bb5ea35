// Suite nn (quantized part): int8 convolution and linear. Ember's quantized
// modules (oneDNN's int8 primitives, the weight packed on the first run and
// kept by the module) vs libtorch's quantized ops on its onednn engine with
// prepacked weights (as torch.ao.nn.quantized modules run them), batch 1 and
// 8: the 3x3 64->64 convolution of ResNet's first stage at 56x56 (channels-last
// activations, what a quantized network passes between its convolutions) and
// a 512 -> 1000 classifier. Per-channel qint8 weights, quint8 activations with
// non-zero zero points. Both sides return the output's stored integers,
// checked within one quantum (kOneQuantum): the tests find them bit-exact,
// but Ember's calls here may run on a team size (1 while the cores are
// shared) for which oneDNN picks another kernel than torch's primitive, and
// kernels can round a value within float32 rounding of a half differently.
#include <ATen/core/dispatch/Dispatcher.h>

#include "bench.h"
#include "ember/ao/nn/quantized/modules.h"
#include "ember/ops/quantize.h"

namespace {

using ember_bench::Case;
namespace nnq = ember::ao::nn::quantized;

// A libtorch quantized op by schema name, called boxed: its prepacked weight
// is a TorchScript custom class with no installed C++ header.
c10::IValue call_torch(const char* name, const char* overload, std::vector<c10::IValue> args) {
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
  op.callBoxed(&args);
  return args.back();
}

// Per-channel symmetric qint8 weights (the onednn qconfig's), on both sides.
struct QWeight {
  ember::Tensor e;
  at::Tensor t;
};
QWeight per_channel_weight(const at::Tensor& w) {
  const at::Tensor scales = w.reshape({w.size(0), -1}).abs().amax(1).to(at::kDouble).div(127).clamp_min(1e-6);
  const at::Tensor zps = at::zeros({w.size(0)}, at::kLong);
  return {ember::quantize_per_channel(ember_bench::to_ember(w), ember_bench::to_ember(scales),
                                      ember_bench::to_ember(zps), 0, ember::kQInt8),
          at::quantize_per_channel(w, scales, zps, 0, at::kQInt8)};
}

constexpr double kXScale = 0.04, kYScale = 0.08;
constexpr int64_t kXZp = 10, kYZp = 60;
constexpr double kOneQuantum = 1;

ember_bench::Workload qconv(int64_t batch, bool relu) {
  return {"nn", std::string(relu ? "qconv2d_relu" : "qconv2d") + "_3x3_64-64_56_b" + std::to_string(batch),
          [batch, relu] {
            at::globalContext().setQEngine(at::QEngine::ONEDNN);
            const at::Tensor x = at::randn({batch, 64, 56, 56}).contiguous(at::MemoryFormat::ChannelsLast);
            const at::Tensor w = at::randn({64, 64, 3, 3}) / 24.0, b = at::randn({64}) * 0.1;
            const QWeight wq = per_channel_weight(w);
            const at::Tensor xt = at::quantize_per_tensor(x, kXScale, kXZp, at::kQUInt8);
            const ember::Tensor xe = ember::quantize_per_tensor(ember_bench::to_ember(x), kXScale, kXZp, ember::kQUInt8)
                                         .contiguous(ember::MemoryFormat::ChannelsLast);
            const nnq::Conv2dOptions o{.padding = 1};
            std::shared_ptr<nnq::Conv2dImpl> m =
                relu ? std::shared_ptr<nnq::Conv2dImpl>(
                           ember::ao::nn::intrinsic::quantized::ConvReLU2d(wq.e, ember_bench::to_ember(b), o, kYScale,
                                                                           kYZp)
                               .ptr())
                     : nnq::Conv2d(wq.e, ember_bench::to_ember(b), o, kYScale, kYZp).ptr();
            const c10::IValue packed = call_torch(
                "quantized::conv2d_prepack", "",
                {wq.t, b, std::vector<int64_t>{1, 1}, std::vector<int64_t>{1, 1}, std::vector<int64_t>{1, 1},
                 int64_t{1}});
            const char* op = relu ? "quantized::conv2d_relu" : "quantized::conv2d";
            auto ours = [=] { return m->forward(xe).int_repr(); };
            auto peer = [=] { return call_torch(op, "new", {xt, packed, kYScale, kYZp}).toTensor().int_repr(); };
            return Case{ours, peer, 0, 0, kOneQuantum};
          }};
}

ember_bench::Workload qlinear(int64_t batch) {
  return {"nn", "qlinear_512-1000_b" + std::to_string(batch), [batch] {
            at::globalContext().setQEngine(at::QEngine::ONEDNN);
            const at::Tensor x = at::randn({batch, 512});
            const at::Tensor w = at::randn({1000, 512}) / 22.0, b = at::randn({1000}) * 0.1;
            const QWeight wq = per_channel_weight(w);
            const at::Tensor xt = at::quantize_per_tensor(x, kXScale, kXZp, at::kQUInt8);
            const ember::Tensor xe =
                ember::quantize_per_tensor(ember_bench::to_ember(x), kXScale, kXZp, ember::kQUInt8);
            nnq::Linear m(wq.e, ember_bench::to_ember(b), kYScale, kYZp);
            const c10::IValue packed = call_torch("quantized::linear_prepack", "", {wq.t, b});
            auto ours = [=] { return m->forward(xe).int_repr(); };
            auto peer = [=] {
              return call_torch("quantized::linear", "", {xt, packed, kYScale, kYZp}).toTensor().int_repr();
            };
            return Case{ours, peer, 0, 0, kOneQuantum};
          }};
}

std::vector<ember_bench::Workload> all() {
  std::vector<ember_bench::Workload> v;
  for (int64_t batch : {1, 8}) {
    v.push_back(qconv(batch, false));
    v.push_back(qconv(batch, true));
    v.push_back(qlinear(batch));
  }
  return v;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(all());

}  // namespace
