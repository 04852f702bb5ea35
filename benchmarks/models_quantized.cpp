// Suite models, quantized classifiers (issue 27): torchvision's quantizable
// ResNet-18 and MobileNetV2, batch 1 and 8 at 224 x 224, after PTQ
// (models::quantization::quantize_model with the "onednn" backend:
// per-channel qint8 weights, MinMax quint8 activations, one calibration
// batch), against
// - Ember's float model with the same weights (the in-process peer, "Ember
//   float": the ratio says how much int8 buys),
// - torchvision 0.14's quantized model in Debian's python3
//   (peers/quantized_models.py), quantized the same way from the same float
//   weights and calibration batch, on torch's onednn engine and on qnnpack
//   (per-tensor weights, torchvision's qnnpack qconfig),
// - ONNX Runtime's int8 CPU execution of torch's onednn model exported to a
//   QDQ ONNX graph (peers/ort_quantized_models.py; onnxruntime-node from
//   scripts/install_ort.sh).
// The checks compare logits within quantization error (int8 vs float, and
// qnnpack's per-tensor weights); tests/models/test_quantized_models.cpp holds
// the exact parity with torch.
#include <fstream>
#include <stdexcept>
#include <string>

#include "bench.h"
#include "ember/models/mobilenet_v2.h"
#include "ember/models/quantization/mobilenet_v2.h"
#include "ember/models/quantization/resnet.h"
#include "ember/models/resnet.h"

namespace {

using ember::Tensor;
using ember_bench::Case;
namespace mq = ember::models::quantization;

// The float state_dict for the peer: <scratch>/qmodels.<name>.w<i>.bin with
// [key, shape, dtype] entries in qmodels.<name>.weights.json.
void write_state(const std::string& name, const ember::OrderedDict<Tensor>& state) {
  const std::string base = ember_bench::scratch_dir() + "/qmodels." + name;
  std::string spec = "[";
  int64_t i = 0;
  for (const auto& [key, t] : state) {
    const char* dtype = t.dtype() == ember::kFloat32 ? "float32" : t.dtype() == ember::kInt64 ? "int64" : nullptr;
    if (!dtype) throw std::runtime_error("quantized models bench: unexpected dtype of " + key);
    ember_bench::write_raw_tensor(base + ".w" + std::to_string(i) + ".bin", t);
    spec += std::string(i ? ", " : "") + "[\"" + key + "\", " + ember_bench::shape_json(t) + ", \"" + dtype + "\"]";
    ++i;
  }
  std::ofstream(base + ".weights.json") << spec << "]\n";
}

// One calibration batch and the input, shared by every workload (the same
// generator seeds), written for the peer.
Tensor calibration_batch() {
  ember::Generator gen(2701);
  const Tensor x = ember::rand({4, 3, 224, 224}, ember::kFloat32, &gen);
  ember_bench::write_raw_tensor(ember_bench::scratch_dir() + "/qmodels.calibration.bin", x);
  return x;
}
Tensor input_batch(int64_t batch) {
  ember::Generator gen(2702 + batch);
  const Tensor x = ember::rand({batch, 3, 224, 224}, ember::kFloat32, &gen);
  ember_bench::write_raw_tensor(ember_bench::scratch_dir() + "/qmodels.input_b" + std::to_string(batch) + ".bin", x);
  return x;
}

ember_bench::ExternalPeer torchvision_peer(const std::string& model, const std::string& engine, int64_t batch) {
  return {"torchvision-" + engine,
          {ember_bench::peer_python(), ember_bench::source_dir() + "/peers/quantized_models.py",
           model + "_" + engine + "_b" + std::to_string(batch), "--dir", ember_bench::scratch_dir()}};
}

// ONNX Runtime's int8 CPU execution (onnxruntime-node from scripts/install_ort.sh)
// of torch's onednn-quantized model exported to ONNX; skips when node or the
// package is missing.
ember_bench::ExternalPeer ort_peer(const std::string& model, int64_t batch) {
  return {"onnxruntime",
          {ember_bench::peer_python(), ember_bench::source_dir() + "/peers/ort_quantized_models.py",
           model + "_ort_b" + std::to_string(batch), "--dir", ember_bench::scratch_dir()}};
}

// The quantized model (Ember int8) against the float one with its weights.
template <class QuantNet, class FloatNet>
Case quantized_case(const std::string& model, QuantNet qnet, FloatNet fnet, int64_t batch) {
  qnet->eval();
  fnet->eval();
  fnet->load_state_dict(qnet->state_dict());
  write_state(model, qnet->state_dict());
  mq::quantize_model(*qnet, "onednn", {calibration_batch()});
  const Tensor x = input_batch(batch);
  Case c;
  c.ember = [qnet, x]() mutable {
    ember::InferenceMode guard;
    return qnet(x);
  };
  c.peer = [fnet, x]() mutable {
    ember::InferenceMode guard;
    return ember_bench::to_torch(fnet(x));
  };
  c.peer_name = "Ember float";
  // int8 against float logits (and torch's qnnpack's per-tensor weights):
  // quantization error, not rounding.
  c.rtol = 0.1;
  c.atol = 0.1;
  c.external_peers = {torchvision_peer(model, "onednn", batch), torchvision_peer(model, "qnnpack", batch),
                      ort_peer(model, batch)};
  return c;
}

ember_bench::Workload qresnet18(int64_t batch) {
  return {"models", "quantized_resnet18_b" + std::to_string(batch), [batch] {
            ember::manual_seed(27);
            return quantized_case("resnet18", mq::resnet18(), ember::models::resnet18(), batch);
          }};
}

ember_bench::Workload qmobilenet_v2(int64_t batch) {
  return {"models", "quantized_mobilenet_v2_b" + std::to_string(batch), [batch] {
            ember::manual_seed(27);
            return quantized_case("mobilenet_v2", mq::mobilenet_v2(), ember::models::mobilenet_v2(), batch);
          }};
}

[[maybe_unused]] const bool kRegistered =
    ember_bench::add_workloads({qresnet18(1), qresnet18(8), qmobilenet_v2(1), qmobilenet_v2(8)});

}  // namespace
