#include "ember/ao/quantization/qconfig.h"

#include "ember/core/error.h"

namespace ember::ao::quantization {

namespace {
void check_backend(const std::string& backend, const char* who) {
  EMBER_CHECK(backend == "fbgemm" || backend == "x86" || backend == "onednn" || backend == "qnnpack", who,
              ": unknown backend '", backend, "' (expected \"fbgemm\", \"x86\", \"onednn\" or \"qnnpack\")");
}
}  // namespace

QConfig default_qconfig() { return {default_observer(), default_weight_observer()}; }
QConfig default_qat_qconfig() { return {default_fake_quant(), default_weight_fake_quant()}; }
QConfig default_per_channel_qconfig() { return {default_observer(), default_per_channel_weight_observer()}; }

QConfig get_default_qconfig(const std::string& backend) {
  check_backend(backend, "get_default_qconfig");
  const bool reduce = backend == "fbgemm" || backend == "x86";
  QConfig qc;
  qc.activation = observer_factory<HistogramObserver>({.reduce_range = reduce});
  qc.weight = backend == "qnnpack" ? default_weight_observer() : default_per_channel_weight_observer();
  return qc;
}

QConfig get_default_qat_qconfig(const std::string& backend, int version) {
  check_backend(backend, "get_default_qat_qconfig");
  EMBER_CHECK(version == 0 || version == 1, "get_default_qat_qconfig: version ", version,
              " is not supported (expected 0 or 1)");
  const bool reduce = backend == "fbgemm" || backend == "x86";
  const bool per_channel = backend != "qnnpack";
  const ObserverOptions act{.dtype = QDType::kQUInt8, .reduce_range = reduce, .quant_min = 0, .quant_max = 255};
  QConfig qc;
  if (version == 1) {
    qc.activation = [act] { return std::make_shared<FusedMovingAvgObsFakeQuantize>(act); };
    qc.weight = per_channel ? default_fused_per_channel_wt_fake_quant() : default_fused_wt_fake_quant();
  } else {
    qc.activation = [act] { return FakeQuantize::make<MovingAverageMinMaxObserver>(act); };
    qc.weight = per_channel ? default_per_channel_weight_fake_quant() : default_weight_fake_quant();
  }
  return qc;
}

}  // namespace ember::ao::quantization
