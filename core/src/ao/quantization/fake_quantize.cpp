#include "ember/ao/quantization/fake_quantize.h"

#include <cmath>
#include <ostream>
#include <vector>

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
     << ", quant_max=" << quant_max() << ", dtype=" << dtype() << ", qscheme=torch." << qscheme() << ", ch_axis=" << ch_axis_
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
    : FakeQuantize(moving_average_observer(options, per_channel), "FusedMovingAvgObsFakeQuantize"),
      averaging_constant_(options.averaging_constant) {
  use_int64_flags();
  EMBER_CHECK(!per_channel || options.ch_axis == 0, name(),
              ": per-channel fused fake quantization is only supported on axis 0, got ch_axis ", options.ch_axis);
}

// Note [Fused moving-average fake quantization]
// PyTorch 1.13's fused_moving_avg_obs_fake_quant (CPU), step by step:
// - observer on: running min/max per tensor (or per row of x viewed as
//   [C, -1]) become the current min/max where they are +-inf, else
//   running + c * (current - running), in float32 with c as float;
// - fake quant on: every (min, max) gives (scale, zero_point) through
//   ChooseQuantizationParams (double arithmetic, zero point from the end
//   with the smaller error, nudged to an integer; symmetric schemes preserve
//   sparsity), written to the buffers, then fake_quantize_per_tensor/channel;
// - fake quant off: x is returned unchanged and the buffers are not touched.
std::pair<float, int64_t> choose_quantization_params(float min, float max, int64_t qmin, int64_t qmax,
                                                     bool preserve_sparsity) {
  EMBER_CHECK(min <= max, "ChooseQuantizationParams: min (", min, ") should be less than or equal to max (", max, ")");
  if (min < 0 && max > 0 && preserve_sparsity) {
    const auto symmetric_qmin = static_cast<int>(-((qmax - qmin) / 2 + 1));
    const auto symmetric_qmax = static_cast<int>((qmax - qmin) / 2);
    const double max_scale = std::max(std::fabs(min / symmetric_qmin), std::fabs(max / symmetric_qmax));
    min = static_cast<float>(max_scale * symmetric_qmin);
    max = static_cast<float>(max_scale * symmetric_qmax);
  }
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  EMBER_CHECK(qmin < qmax, "ChooseQuantizationParams: qmin (", qmin, ") should be less than qmax (", qmax, ")");
  double scale = (static_cast<double>(max) - min) / static_cast<double>(qmax - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) scale = 0.1;
  constexpr float kSmallScaleThreshold = 6.1e-5f;
  if (scale < kSmallScaleThreshold) {
    const auto org_scale = static_cast<float>(scale);
    scale = kSmallScaleThreshold;
    if (min == 0.0f) {
      max = kSmallScaleThreshold * static_cast<float>(qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallScaleThreshold * static_cast<float>(qmax - qmin);
    } else {
      const float amplifier = kSmallScaleThreshold / org_scale;
      min *= amplifier;
      max *= amplifier;
    }
  }
  const double zp_from_min = static_cast<double>(qmin) - min / scale;
  const double zp_from_max = static_cast<double>(qmax) - max / scale;
  const double zp_from_min_error = std::abs(static_cast<double>(qmin)) - std::abs(min / scale);
  const double zp_from_max_error = std::abs(static_cast<double>(qmax)) - std::abs(max / scale);
  double initial = zp_from_min_error < zp_from_max_error ? zp_from_min : zp_from_max;
  if (min < 0 && max > 0 && preserve_sparsity) initial = static_cast<double>(qmin + qmax) / 2;
  int64_t nudged = 0;
  if (initial < static_cast<double>(qmin))
    nudged = qmin;
  else if (initial > static_cast<double>(qmax))
    nudged = qmax;
  else
    nudged = static_cast<int64_t>(std::nearbyint(initial));
  return {static_cast<float>(scale), nudged};
}

Tensor FusedMovingAvgObsFakeQuantize::forward(const Tensor& x) {
  const bool per_channel = is_per_channel();
  auto* pc = dynamic_cast<PerChannelMinMaxObserver*>(activation_post_process.get());
  auto* pt = dynamic_cast<MinMaxObserver*>(activation_post_process.get());
  Tensor& running_min = per_channel ? pc->min_val : pt->min_val;
  Tensor& running_max = per_channel ? pc->max_val : pt->max_val;
  {
    NoGradGuard no_grad;
    const Tensor xd = x.detach().to(DType::Float32);
    if (per_channel) {
      EMBER_CHECK(x.dim() >= 1, name(), ": per-channel input must have at least one dimension");
      const int64_t size = x.size(0);
      if (running_min.numel() == 0) {
        running_min.set_data(full({size}, INFINITY, DType::Float32));
        running_max.set_data(full({size}, -INFINITY, DType::Float32));
        scale.set_data(empty({size}, DType::Float32));
        zero_point.set_data(empty({size}, zero_point.dtype()));
      }
    }
    if (observer_is_enabled()) {
      const Tensor rows = per_channel ? xd.reshape({x.size(0), -1}) : xd.reshape({1, -1});
      const Tensor cur_min = rows.amin({1}).contiguous(), cur_max = rows.amax({1}).contiguous();
      EMBER_CHECK(cur_min.numel() == running_min.numel(), name(), ": observed ", cur_min.numel(),
                  " channels after ", running_min.numel());
      const auto c = static_cast<float>(averaging_constant_);
      Tensor rmin = running_min.reshape({-1}).contiguous(), rmax = running_max.reshape({-1}).contiguous();
      const float* mn = cur_min.data_ptr<float>();
      const float* mx = cur_max.data_ptr<float>();
      std::vector<float> new_min(static_cast<size_t>(rmin.numel())), new_max(new_min.size());
      const float* rmn = rmin.data_ptr<float>();
      const float* rmx = rmax.data_ptr<float>();
      for (size_t i = 0; i < new_min.size(); ++i) {
        new_min[i] = std::isinf(rmn[i]) ? mn[i] : rmn[i] + c * (mn[i] - rmn[i]);
        new_max[i] = std::isinf(rmx[i]) ? mx[i] : rmx[i] + c * (mx[i] - rmx[i]);
      }
      running_min.copy_(tensor(new_min, DType::Float32).reshape(running_min.sizes()));
      running_max.copy_(tensor(new_max, DType::Float32).reshape(running_max.sizes()));
    }
  }
  if (!fake_quant_is_enabled()) return x;
  {
    NoGradGuard no_grad;
    const Tensor rmin = running_min.reshape({-1}).contiguous(), rmax = running_max.reshape({-1}).contiguous();
    const float* mn = rmin.data_ptr<float>();
    const float* mx = rmax.data_ptr<float>();
    std::vector<float> scales(static_cast<size_t>(rmin.numel()));
    std::vector<int64_t> zps(scales.size());
    for (size_t i = 0; i < scales.size(); ++i)
      std::tie(scales[i], zps[i]) =
          choose_quantization_params(mn[i], mx[i], quant_min(), quant_max(), quantization::is_symmetric(qscheme()));
    scale.copy_(tensor(scales, DType::Float32).reshape(scale.sizes()));
    zero_point.copy_(tensor(zps, DType::Int64).reshape(zero_point.sizes()));
  }
  if (per_channel) return fake_quantize_per_channel_affine(x, scale, zero_point, 0, quant_min(), quant_max());
  return fake_quantize_per_tensor_affine(x, scale, zero_point, quant_min(), quant_max());
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
