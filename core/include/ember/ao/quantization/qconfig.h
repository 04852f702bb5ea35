#pragma once
// QConfig (torch.ao.quantization.qconfig, PyTorch 1.13): how to observe a
// module's activations and weights, as two factories. prepare() calls
// `activation` once per observed module; QAT modules and convert call
// `weight` for the weight.
//
//   QConfig qc = get_default_qconfig("x86");          // PTQ: HistogramObserver + per-channel weights
//   QConfig qat = get_default_qat_qconfig("qnnpack");  // QAT: fake quantizers
#include <string>

#include "ember/ao/quantization/fake_quantize.h"
#include "ember/ao/quantization/observer.h"

namespace ember::ao::quantization {

struct QConfig {
  ObserverFactory activation;
  ObserverFactory weight;
};

// default_qconfig: default_observer / default_weight_observer.
QConfig default_qconfig();
// default_qat_qconfig: default_fake_quant / default_weight_fake_quant.
QConfig default_qat_qconfig();
// default_per_channel_qconfig: default_observer / default_per_channel_weight_observer.
QConfig default_per_channel_qconfig();

// get_default_qconfig(backend) for "fbgemm", "x86" (HistogramObserver with
// reduce_range, per-channel symmetric qint8 weights), "onednn" (the same
// without reduce_range) and "qnnpack" (HistogramObserver without
// reduce_range, per-tensor symmetric weights). Another name is an error
// (PyTorch falls back to default_qconfig silently).
QConfig get_default_qconfig(const std::string& backend);
// get_default_qat_qconfig(backend, version): version 1 (PyTorch's default)
// uses FusedMovingAvgObsFakeQuantize, version 0 FakeQuantize, both over
// MovingAverageMinMaxObserver activations in [0, 255] (reduce_range for
// fbgemm/x86) and per-channel (per-tensor for qnnpack) symmetric qint8
// weights in [-128, 127].
QConfig get_default_qat_qconfig(const std::string& backend, int version = 1);

}  // namespace ember::ao::quantization
