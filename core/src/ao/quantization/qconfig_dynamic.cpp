#include "ember/ao/quantization/qconfig_dynamic.h"

namespace ember::ao::quantization {

namespace {
ObserverFactory placeholder(QDType dtype) {
  return [dtype] { return std::make_shared<NoopObserver>(dtype); };
}
ObserverFactory float_qparams_observer(QDType dtype) {
  return observer_factory<PerChannelMinMaxObserver>(
      {.dtype = dtype, .qscheme = QScheme::kPerChannelAffineFloatQParams, .ch_axis = 0});
}
}  // namespace

QConfig default_dynamic_qconfig() { return {placeholder(QDType::kQUInt8), default_weight_observer()}; }
QConfig per_channel_dynamic_qconfig() {
  return {placeholder(QDType::kQUInt8), default_per_channel_weight_observer()};
}
QConfig float16_dynamic_qconfig() { return {placeholder(QDType::kFloat16), placeholder(QDType::kFloat16)}; }
QConfig float_qparams_weight_only_qconfig() {
  return {placeholder(QDType::kFloat32), float_qparams_observer(QDType::kQUInt8)};
}
QConfig float_qparams_weight_only_qconfig_4bit() {
  return {placeholder(QDType::kFloat32), float_qparams_observer(QDType::kQUInt4x2)};
}

}  // namespace ember::ao::quantization
