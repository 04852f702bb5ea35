// Suite nn (quantized part): the byte kernels (Note [Quantized byte
// kernels]) on a quantized ResNet's first-stage activations, [8, 64, 56, 56]
// quint8 channels-last (what quantized convolutions pass on): mul, cat with
// new output parameters, hardswish, batch_norm2d, max_pool2d, avg_pool2d and
// adaptive_avg_pool2d, vs libtorch's quantized ops on its onednn engine. Both
// sides return the stored integers; the tests find them equal to torch's, so
// the check allows nothing.
#include <ATen/core/dispatch/Dispatcher.h>

#include "bench.h"
#include "ember/ao/nn/quantized/functional.h"
#include "ember/ops/quantize.h"

namespace {

using ember_bench::Case;
namespace qf = ember::ao::nn::quantized::functional;

c10::IValue call_torch_op(const char* name, const char* overload, std::vector<c10::IValue> args) {
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
  op.callBoxed(&args);
  return args.back();
}

struct QInput {
  ember::Tensor e;
  at::Tensor t;
};

QInput activation(double scale, int64_t zp) {
  const at::Tensor x = at::randn({8, 64, 56, 56}).contiguous(at::MemoryFormat::ChannelsLast);
  return {ember::quantize_per_tensor(ember_bench::to_ember(x), scale, zp, ember::kQUInt8)
              .contiguous(ember::MemoryFormat::ChannelsLast),
          at::quantize_per_tensor(x, scale, zp, at::kQUInt8)};
}

using Make = std::function<Case(const QInput& a, const QInput& b)>;

ember_bench::Workload byte_op(const std::string& name, Make make) {
  return {"nn", "qbytes_" + name + "_8x64x56x56_cl", [make] {
            at::globalContext().setQEngine(at::QEngine::ONEDNN);
            const QInput a = activation(0.05, 128), b = activation(0.03, 100);
            Case c = make(a, b);
            c.rtol = 0;
            c.atol = 0;
            return c;
          }};
}

std::vector<ember_bench::Workload> all() {
  std::vector<ember_bench::Workload> v;
  v.push_back(byte_op("mul", [](const QInput& a, const QInput& b) {
    return Case{[=] { return qf::mul(a.e, b.e, 0.2, 90).int_repr(); },
                [=] { return call_torch_op("quantized::mul", "", {a.t, b.t, 0.2, int64_t{90}}).toTensor().int_repr(); }};
  }));
  v.push_back(byte_op("cat", [](const QInput& a, const QInput& b) {
    return Case{[=] { return qf::cat({a.e, b.e}, 1, 0.06, 110).int_repr(); },
                [=] {
                  return call_torch_op("quantized::cat", "", {c10::List<at::Tensor>({a.t, b.t}), int64_t{1}, 0.06,
                                                              int64_t{110}})
                      .toTensor()
                      .int_repr();
                }};
  }));
  v.push_back(byte_op("hardswish", [](const QInput& a, const QInput&) {
    return Case{[=] { return qf::hardswish(a.e, 0.04, 30).int_repr(); },
                [=] { return call_torch_op("quantized::hardswish", "", {a.t, 0.04, int64_t{30}}).toTensor().int_repr(); }};
  }));
  v.push_back(byte_op("batch_norm2d", [](const QInput& a, const QInput&) {
    const at::Tensor w = at::rand({64}) + 0.5, bias = at::randn({64}), mean = at::randn({64}) * 0.1,
                     var = at::rand({64}) + 0.5;
    const ember::Tensor we = ember_bench::to_ember(w), be = ember_bench::to_ember(bias),
                        me = ember_bench::to_ember(mean), ve = ember_bench::to_ember(var);
    return Case{[=] { return qf::batch_norm2d(a.e, we, be, me, ve, 1e-5, 0.06, 70).int_repr(); },
                [=] {
                  return call_torch_op("quantized::batch_norm2d", "", {a.t, w, bias, mean, var, 1e-5, 0.06, int64_t{70}})
                      .toTensor()
                      .int_repr();
                }};
  }));
  v.push_back(byte_op("max_pool2d_k3s2p1", [](const QInput& a, const QInput&) {
    return Case{[=] { return qf::max_pool2d(a.e, 3, {.stride = 2, .padding = 1}).int_repr(); },
                [=] { return at::max_pool2d(a.t, {3, 3}, {2, 2}, {1, 1}).int_repr(); }};
  }));
  v.push_back(byte_op("avg_pool2d_k3s2p1", [](const QInput& a, const QInput&) {
    return Case{[=] { return qf::avg_pool2d(a.e, 3, {.stride = 2, .padding = 1}).int_repr(); },
                [=] { return at::avg_pool2d(a.t, {3, 3}, {2, 2}, {1, 1}).int_repr(); }};
  }));
  v.push_back(byte_op("adaptive_avg_pool2d_1", [](const QInput& a, const QInput&) {
    return Case{[=] { return qf::adaptive_avg_pool2d(a.e, 1).int_repr(); },
                [=] { return at::adaptive_avg_pool2d(a.t, {1, 1}).int_repr(); }};
  }));
  return v;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads(all());

}  // namespace
