#include "ember/ao/quantization/observer.h"

#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/warning.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"

namespace ember::ao::quantization {

// Note [Observer qparams]
// PyTorch 1.13's UniformQuantizationObserverBase._calculate_qparams, step by
// step in float32 tensor arithmetic (Python floats enter float32 ops as
// wrapped numbers, so every step rounds to float32 as there):
//   min_neg = min(min_val, 0), max_pos = max(max_val, 0)
//   symmetric: scale = max(-min_neg, max_pos) / ((quant_max - quant_min) / 2),
//              scale = max(scale, eps); zero_point 0 (int64), or for quint8
//              128, or (quant_min + quant_max) // 2 with a custom range
//   affine:    scale = max((max_pos - min_neg) / (quant_max - quant_min), eps)
//              zero_point = clamp(quant_min - round(min_neg / scale), quant_min,
//              quant_max) (int32; round half to even)
//   float qparams: scale = (max_val - min_val) / (quant_max - quant_min),
//              scale = scale > eps ? scale : 1; zero_point = -min_val / scale (float32)
// A 0-d result becomes shape [1]. Nothing observed yet (min_val = +inf and
// max_val = -inf, or empty per-channel buffers) gives scale [1.0] and
// zero_point [0] with a warning; min_val > max_val anywhere is an error.

namespace {
Tensor scalar_buffer(float v) { return full({}, v, DType::Float32); }

// The error PyTorch raises for observer arguments outside what it supports.
void check_supported(QDType dtype, QScheme qscheme, const std::string& who) {
  EMBER_CHECK(dtype == QDType::kQInt8 || dtype == QDType::kQUInt8 || dtype == QDType::kQInt32 ||
                  dtype == QDType::kQUInt4x2,
              who, ": dtype ", dtype, " is not supported (expected torch.qint8, torch.quint8, torch.qint32 or torch.quint4x2)");
  (void)qscheme;
}
}  // namespace

UniformQuantizationObserverBase::UniformQuantizationObserverBase(std::string name, const ObserverOptions& options,
                                                                 QScheme default_qscheme)
    : ObserverBase(std::move(name), options.dtype),
      qscheme_(options.qscheme.value_or(default_qscheme)),
      reduce_range_(options.reduce_range),
      has_customized_qrange_(options.quant_min.has_value() && options.quant_max.has_value()) {
  check_supported(dtype_, qscheme_, this->name());
  register_buffer("eps", full({1}, options.eps, DType::Float32), &eps);
  std::tie(quant_min_, quant_max_) =
      calculate_qmin_qmax(options.quant_min, options.quant_max, dtype_, reduce_range_, this->name());
  if (is_symmetric(qscheme_))
    EMBER_CHECK(!(reduce_range_ && dtype_ == QDType::kQUInt8), this->name(),
                ": cannot reduce range for symmetric quantization for quint8");
}

std::pair<Tensor, Tensor> UniformQuantizationObserverBase::calculate_qparams_from(const Tensor& min_val,
                                                                                   const Tensor& max_val) const {
  NoGradGuard no_grad;
  const auto defaults = [] { return std::pair{full({1}, 1.0, DType::Float32), full({1}, 0, DType::Int64)}; };
  if (min_val.numel() == 0 || max_val.numel() == 0) {
    EMBER_WARN(name(), ": must run observer before calling calculate_qparams; returning scale 1 and zero_point 0");
    return defaults();
  }
  if (min_val.dim() == 0 && min_val.item<float>() == INFINITY && max_val.item<float>() == -INFINITY) {
    EMBER_WARN(name(), ": must run observer before calling calculate_qparams; returning scale 1 and zero_point 0");
    return defaults();
  }
  EMBER_CHECK((min_val <= max_val).all().item<bool>(), name(), ": min_val (", min_val,
              ") should be less than or equal to max_val (", max_val, ")");
  const Tensor zero = zeros_like(min_val);
  const Tensor min_neg = minimum(min_val, zero);
  Tensor max_pos = maximum(max_val, zero);
  const double range = static_cast<double>(quant_max_ - quant_min_);
  Tensor scale, zero_point;
  if (is_symmetric(qscheme_)) {
    max_pos = maximum(-min_neg, max_pos);
    scale = maximum(max_pos / (range / 2), eps);
    int64_t zp = 0;
    if (dtype_ == QDType::kQUInt8) {
      const int64_t sum = quant_min_ + quant_max_;
      zp = has_customized_qrange_ ? (sum >= 0 ? sum / 2 : -((-sum + 1) / 2)) : 128;
    }
    zero_point = full(min_neg.sizes(), zp, DType::Int64);
  } else if (is_float_qparams(qscheme_)) {
    scale = (max_val - min_val) / range;
    scale = where(scale > eps, scale, ones_like(scale));
    zero_point = (min_val * -1.0) / scale;
  } else {
    scale = maximum((max_pos - min_neg) / range, eps);
    // quant_min - round(...) in int32, as PyTorch (float32 would lose qint32's low bits).
    zero_point = (min_neg / scale).round().to(DType::Int32).neg() + quant_min_;
    zero_point = zero_point.clamp(quant_min_, quant_max_);
  }
  if (scale.dim() == 0) scale = scale.reshape({1});
  if (zero_point.dim() == 0) zero_point = zero_point.reshape({1});
  return {scale, zero_point};
}

// ---- MinMaxObserver ----

MinMaxObserver::MinMaxObserver(std::string name, const ObserverOptions& options)
    : UniformQuantizationObserverBase(std::move(name), options, QScheme::kPerTensorAffine) {
  EMBER_CHECK(is_per_tensor(qscheme_), this->name(), ": qscheme ", qscheme_,
              " is per channel; use PerChannelMinMaxObserver (this observer supports torch.per_tensor_affine and "
              "torch.per_tensor_symmetric)");
  register_buffer("min_val", scalar_buffer(INFINITY), &min_val);
  register_buffer("max_val", scalar_buffer(-INFINITY), &max_val);
}

Tensor MinMaxObserver::forward(const Tensor& x_orig) {
  if (x_orig.numel() == 0) return x_orig;
  NoGradGuard no_grad;
  const Tensor x = x_orig.detach().to(DType::Float32);
  min_val.copy_(minimum(x.amin(), min_val));
  max_val.copy_(maximum(x.amax(), max_val));
  return x_orig;
}

void MinMaxObserver::reset_min_max_vals() {
  min_val.fill_(INFINITY);
  max_val.fill_(-INFINITY);
}

void MinMaxObserver::pretty_print(std::ostream& os) const {
  os << name() << "(min_val=" << min_val.item<float>() << ", max_val=" << max_val.item<float>() << ")";
}

MovingAverageMinMaxObserver::MovingAverageMinMaxObserver(const ObserverOptions& options)
    : MinMaxObserver("MovingAverageMinMaxObserver", options), averaging_constant_(options.averaging_constant) {}

Tensor MovingAverageMinMaxObserver::forward(const Tensor& x_orig) {
  if (x_orig.numel() == 0) return x_orig;
  NoGradGuard no_grad;
  const Tensor x = x_orig.detach().to(DType::Float32);
  const Tensor cur_min = x.amin(), cur_max = x.amax();
  if (min_val.item<float>() == INFINITY && max_val.item<float>() == -INFINITY) {
    min_val.copy_(cur_min);
    max_val.copy_(cur_max);
  } else {
    min_val.copy_(min_val + (cur_min - min_val) * averaging_constant_);
    max_val.copy_(max_val + (cur_max - max_val) * averaging_constant_);
  }
  return x_orig;
}

// ---- per channel ----

PerChannelMinMaxObserver::PerChannelMinMaxObserver(std::string name, const ObserverOptions& options)
    : UniformQuantizationObserverBase(std::move(name), options, QScheme::kPerChannelAffine),
      ch_axis_(options.ch_axis) {
  EMBER_CHECK(is_per_channel(qscheme_), this->name(), ": qscheme ", qscheme_,
              " is per tensor (this observer supports torch.per_channel_affine, torch.per_channel_symmetric and "
              "torch.per_channel_affine_float_qparams)");
  register_buffer("min_val", empty({0}, DType::Float32), &min_val);
  register_buffer("max_val", empty({0}, DType::Float32), &max_val);
}

Tensor PerChannelMinMaxObserver::channel_rows(const Tensor& x) const {
  const int64_t dim = x.dim();
  EMBER_CHECK(ch_axis_ >= -dim && ch_axis_ < dim && dim > 0, name(), ": ch_axis ", ch_axis_,
              " is out of range for a ", dim, "-d input");
  const int64_t axis = ch_axis_ < 0 ? ch_axis_ + dim : ch_axis_;
  std::vector<int64_t> order(static_cast<size_t>(dim));
  for (int64_t i = 0; i < dim; ++i) order[static_cast<size_t>(i)] = i;
  std::swap(order[0], order[static_cast<size_t>(axis)]);
  return x.detach().permute(order).to(DType::Float32).flatten(1);
}

void PerChannelMinMaxObserver::set_min_max(const Tensor& mn, const Tensor& mx) {
  // PyTorch resizes the buffers in place; set_data keeps every handle to them.
  min_val.set_data(mn.contiguous().clone());
  max_val.set_data(mx.contiguous().clone());
}

Tensor PerChannelMinMaxObserver::forward(const Tensor& x_orig) {
  if (x_orig.numel() == 0) return x_orig;
  NoGradGuard no_grad;
  const Tensor y = channel_rows(x_orig);
  Tensor mn = y.amin({1}), mx = y.amax({1});
  if (min_val.numel() != 0 && max_val.numel() != 0) {
    EMBER_CHECK(min_val.numel() == mn.numel(), name(), ": observed ", mn.numel(), " channels along ch_axis ",
                ch_axis_, " after ", min_val.numel(), " before");
    mn = minimum(mn, min_val);
    mx = maximum(mx, max_val);
  }
  set_min_max(mn, mx);
  return x_orig;
}

void PerChannelMinMaxObserver::reset_min_max_vals() {
  min_val.set_data(empty({0}, DType::Float32));
  max_val.set_data(empty({0}, DType::Float32));
}

void PerChannelMinMaxObserver::pretty_print(std::ostream& os) const {
  os << name() << "(min_val=" << min_val << ", max_val=" << max_val << ")";
}

MovingAveragePerChannelMinMaxObserver::MovingAveragePerChannelMinMaxObserver(const ObserverOptions& options)
    : PerChannelMinMaxObserver("MovingAveragePerChannelMinMaxObserver", options),
      averaging_constant_(options.averaging_constant) {}

Tensor MovingAveragePerChannelMinMaxObserver::forward(const Tensor& x_orig) {
  if (x_orig.numel() == 0) return x_orig;
  NoGradGuard no_grad;
  const Tensor y = channel_rows(x_orig);
  Tensor mn = y.amin({1}), mx = y.amax({1});
  if (min_val.numel() != 0 && max_val.numel() != 0) {
    EMBER_CHECK(min_val.numel() == mn.numel(), name(), ": observed ", mn.numel(), " channels along ch_axis ",
                ch_axis_, " after ", min_val.numel(), " before");
    mn = min_val + (mn - min_val) * averaging_constant_;
    mx = max_val + (mx - max_val) * averaging_constant_;
  }
  set_min_max(mn, mx);
  return x_orig;
}

std::pair<Tensor, Tensor> NoopObserver::calculate_qparams() {
  EMBER_CHECK(false, "NoopObserver: calculate_qparams should not be called (it observes nothing; dtype ", dtype_, ")");
  return {};
}

ObserverFactory default_observer() {
  return observer_factory<MinMaxObserver>({.quant_min = 0, .quant_max = 127});
}
ObserverFactory default_weight_observer() {
  return observer_factory<MinMaxObserver>({.dtype = QDType::kQInt8, .qscheme = QScheme::kPerTensorSymmetric});
}
ObserverFactory default_histogram_observer() {
  return observer_factory<HistogramObserver>({.quant_min = 0, .quant_max = 127});
}
ObserverFactory default_per_channel_weight_observer() {
  return observer_factory<PerChannelMinMaxObserver>(
      {.dtype = QDType::kQInt8, .qscheme = QScheme::kPerChannelSymmetric});
}

}  // namespace ember::ao::quantization
