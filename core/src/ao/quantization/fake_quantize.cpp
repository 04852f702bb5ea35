#include "ember/ao/quantization/fake_quantize.h"

#include <ostream>

#include "ember/ao/quantization/fake_quantize_ops.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/ops/factories.h"

namespace ember::ao::quantization {

void FakeQuantize::check_range_options(const ObserverOptions& options, const std::string& who) {
  if (!(options.quant_min && options.quant_max)) return;
  EMBER_CHECK(*options.quant_min <= *options.quant_max, who, ": quant_min (", *options.quant_min,
              ") must be less than or equal to quant_max (", *options.quant_max, ")");
  if (!is_quantized(options.dtype)) return;
  const auto [lo, hi] = qdtype_range(options.dtype);
  EMBER_CHECK(lo <= *options.quant_min, who, ": quant_min ", *options.quant_min, " is out of bound for ",
              options.dtype, " (minimum ", lo, ")");
  EMBER_CHECK(*options.quant_max <= hi, who, ": quant_max ", *options.quant_max, " is out of bound for ",
              options.dtype, " (maximum ", hi, ")");
}

FakeQuantize::FakeQuantize(std::shared_ptr<UniformQuantizationObserverBase> observer, std::string name)
    : ObserverOrFakeQuantize(std::move(name)) {
  EMBER_CHECK(observer != nullptr, this->name(), ": the observer is null");
  register_buffer("fake_quant_enabled", full({1}, 1, DType::UInt8), &fake_quant_enabled);
  register_buffer("observer_enabled", full({1}, 1, DType::UInt8), &observer_enabled);
  activation_post_process = register_module("activation_post_process", observer);
  const DType zp_dtype = is_float_qparams(observer->qscheme()) ? DType::Float32 : DType::Int32;
  register_buffer("scale", full({1}, 1.0, DType::Float32), &scale);
  register_buffer("zero_point", full({1}, 0, zp_dtype), &zero_point);
  if (auto* pc = dynamic_cast<PerChannelMinMaxObserver*>(observer.get())) ch_axis_ = pc->ch_axis();
}

void FakeQuantize::use_int64_flags() {
  fake_quant_enabled.set_data(fake_quant_enabled.to(DType::Int64));
  observer_enabled.set_data(observer_enabled.to(DType::Int64));
}

Tensor FakeQuantize::forward(const Tensor& x) {
  if (observer_is_enabled()) {
    activation_post_process->forward(x.detach());
    auto [s, zp] = calculate_qparams();
    NoGradGuard no_grad;
    if (!scale.sizes().equals(s.sizes())) {
      scale.set_data(empty(s.sizes(), DType::Float32));
      zero_point.set_data(empty(zp.sizes(), zero_point.dtype()));
    }
    scale.copy_(s);
    zero_point.copy_(zp);
  }
  if (!fake_quant_is_enabled()) return x;
  if (is_per_channel())
    return fake_quantize_per_channel_affine(x, scale, zero_point, ch_axis_ < 0 ? ch_axis_ + x.dim() : ch_axis_,
                                            quant_min(), quant_max());
  return fake_quantize_per_tensor_affine(x, scale, zero_point, quant_min(), quant_max());
}

void FakeQuantize::pretty_print(std::ostream& os) const {
  os << name() << "(fake_quant_enabled=" << fake_quant_enabled.item<int64_t>()
     << ", observer_enabled=" << observer_enabled.item<int64_t>() << ", quant_min=" << quant_min()
     << ", quant_max=" << quant_max() << ", dtype=" << dtype() << ", qscheme=" << qscheme() << ", ch_axis=" << ch_axis_
     << ")";
}

namespace {
std::shared_ptr<UniformQuantizationObserverBase> moving_average_observer(ObserverOptions options, bool per_channel) {
  if (!options.quant_min && !options.quant_max) {
    options.quant_min = 0;
    options.quant_max = 255;
  }
  FakeQuantize::check_range_options(options, "FusedMovingAvgObsFakeQuantize");
  if (per_channel) return std::make_shared<MovingAveragePerChannelMinMaxObserver>(options);
  return std::make_shared<MovingAverageMinMaxObserver>(options);
}
}  // namespace

FusedMovingAvgObsFakeQuantize::FusedMovingAvgObsFakeQuantize(ObserverOptions options, bool per_channel)
    : FakeQuantize(moving_average_observer(options, per_channel), "FusedMovingAvgObsFakeQuantize") {
  use_int64_flags();
}

ObserverFactory default_fake_quant() {
  return [] {
    return FakeQuantize::make<MovingAverageMinMaxObserver>({.dtype = QDType::kQUInt8,
                                                            .qscheme = QScheme::kPerTensorAffine,
                                                            .reduce_range = true,
                                                            .quant_min = 0,
                                                            .quant_max = 255});
  };
}
ObserverFactory default_weight_fake_quant() {
  return [] {
    return FakeQuantize::make<MovingAverageMinMaxObserver>(
        {.dtype = QDType::kQInt8, .qscheme = QScheme::kPerTensorSymmetric, .quant_min = -128, .quant_max = 127});
  };
}
ObserverFactory default_per_channel_weight_fake_quant() {
  return [] {
    return FakeQuantize::make<MovingAveragePerChannelMinMaxObserver>({.dtype = QDType::kQInt8,
                                                                      .qscheme = QScheme::kPerChannelSymmetric,
                                                                      .quant_min = -128,
                                                                      .quant_max = 127,
                                                                      .ch_axis = 0});
  };
}
ObserverFactory default_histogram_fake_quant() {
  return [] {
    return FakeQuantize::make<HistogramObserver>({.dtype = QDType::kQUInt8,
                                                  .qscheme = QScheme::kPerTensorAffine,
                                                  .reduce_range = true,
                                                  .quant_min = 0,
                                                  .quant_max = 255});
  };
}
ObserverFactory default_fused_act_fake_quant() {
  return [] {
    return std::make_shared<FusedMovingAvgObsFakeQuantize>(
        ObserverOptions{.dtype = QDType::kQUInt8, .quant_min = 0, .quant_max = 255});
  };
}
ObserverFactory default_fused_wt_fake_quant() {
  return [] {
    return std::make_shared<FusedMovingAvgObsFakeQuantize>(ObserverOptions{
        .dtype = QDType::kQInt8, .qscheme = QScheme::kPerTensorSymmetric, .quant_min = -128, .quant_max = 127});
  };
}
ObserverFactory default_fused_per_channel_wt_fake_quant() {
  return [] {
    return std::make_shared<FusedMovingAvgObsFakeQuantize>(
        ObserverOptions{
            .dtype = QDType::kQInt8, .qscheme = QScheme::kPerChannelSymmetric, .quant_min = -128, .quant_max = 127},
        /*per_channel=*/true);
  };
}

}  // namespace ember::ao::quantization
