#pragma once
// FakeQuantize (torch.ao.quantization.fake_quantize, PyTorch 1.13): an
// observer followed by fake quantization with the parameters it computes, the
// module quantization-aware training puts on activations and weights.
//
//   auto fq = FakeQuantize::make<MovingAverageMinMaxObserver>({.quant_min = 0, .quant_max = 255});
//   Tensor y = fq->forward(x);   // observes x, updates scale/zero_point, fake-quantizes
//   fq->disable_observer();      // freeze the parameters
//
// Buffers (PyTorch's state_dict keys): fake_quant_enabled, observer_enabled
// (uint8 [1]; int64 for FusedMovingAvgObsFakeQuantize), scale (float32),
// zero_point (int32, or float32 for per_channel_affine_float_qparams), then the
// observer's under activation_post_process.
#include <memory>

#include "ember/ao/quantization/observer.h"

namespace ember::ao::quantization {

class FakeQuantize : public ObserverOrFakeQuantize {
 public:
  // Wraps an observer (its dtype, scheme and range decide the fake quantization).
  explicit FakeQuantize(std::shared_ptr<UniformQuantizationObserverBase> observer,
                        std::string name = "FakeQuantize");
  // FakeQuantize(observer=Observer, **options): a custom range given in
  // options must satisfy quant_min <= quant_max and fit the dtype.
  template <class Observer>
  static std::shared_ptr<FakeQuantize> make(const ObserverOptions& options = {}) {
    check_range_options(options, "FakeQuantize");
    return std::make_shared<FakeQuantize>(std::make_shared<Observer>(options));
  }

  Tensor forward(const Tensor& x) override;
  std::pair<Tensor, Tensor> calculate_qparams() override { return activation_post_process->calculate_qparams(); }
  QDType dtype() const override { return activation_post_process->dtype(); }
  QScheme qscheme() const { return activation_post_process->qscheme(); }
  int64_t quant_min() const { return activation_post_process->quant_min(); }
  int64_t quant_max() const { return activation_post_process->quant_max(); }
  bool is_per_channel() const { return quantization::is_per_channel(qscheme()); }
  // The channel axis of a per-channel observer, -1 otherwise.
  int64_t ch_axis() const { return ch_axis_; }

  void enable_fake_quant(bool enabled = true) { fake_quant_enabled.fill_(enabled ? 1 : 0); }
  void disable_fake_quant() { enable_fake_quant(false); }
  void enable_observer(bool enabled = true) { observer_enabled.fill_(enabled ? 1 : 0); }
  void disable_observer() { enable_observer(false); }
  bool fake_quant_is_enabled() const { return fake_quant_enabled.item<int64_t>() == 1; }
  bool observer_is_enabled() const { return observer_enabled.item<int64_t>() == 1; }
  void pretty_print(std::ostream& os) const override;

  static void check_range_options(const ObserverOptions& options, const std::string& who);

  Tensor fake_quant_enabled, observer_enabled, scale, zero_point;  // buffers
  std::shared_ptr<UniformQuantizationObserverBase> activation_post_process;

 protected:
  // FusedMovingAvgObsFakeQuantize re-registers the flags as int64.
  void use_int64_flags();

 private:
  int64_t ch_axis_ = -1;
};

// PyTorch's FusedMovingAvgObsFakeQuantize (torch.fused_moving_avg_obs_fake_quant):
// a moving-average min/max (per tensor, or per channel along axis 0) whose
// parameters come from PyTorch's C++ ChooseQuantizationParams (Note [Fused
// moving-average fake quantization] in fake_quantize.cpp) rather than the
// observer's calculate_qparams, updated only while fake quantization is on;
// int64 flags.
class FusedMovingAvgObsFakeQuantize : public FakeQuantize {
 public:
  // options.quant_min/quant_max default to [0, 255] as PyTorch's constructor.
  // per_channel: MovingAveragePerChannelMinMaxObserver, else MovingAverageMinMaxObserver.
  explicit FusedMovingAvgObsFakeQuantize(ObserverOptions options = {}, bool per_channel = false);
  Tensor forward(const Tensor& x) override;
  // What PyTorch's calculate_qparams returns: the observer's formula.
  std::pair<Tensor, Tensor> calculate_qparams() override { return activation_post_process->calculate_qparams(); }

 private:
  double averaging_constant_;
};

// PyTorch's quant_utils::ChooseQuantizationParams(min, max, qmin, qmax,
// preserve_sparsity): (scale as float, zero_point).
std::pair<float, int64_t> choose_quantization_params(float min, float max, int64_t qmin, int64_t qmax,
                                                     bool preserve_sparsity);

// The named defaults of torch.ao.quantization.fake_quantize:
// default_fake_quant: MovingAverageMinMaxObserver, [0, 255], quint8,
//   per_tensor_affine, reduce_range (so [0, 127]).
ObserverFactory default_fake_quant();
// default_weight_fake_quant: MovingAverageMinMaxObserver, [-128, 127], qint8, per_tensor_symmetric.
ObserverFactory default_weight_fake_quant();
// default_per_channel_weight_fake_quant: MovingAveragePerChannelMinMaxObserver,
//   [-128, 127], qint8, per_channel_symmetric, ch_axis 0.
ObserverFactory default_per_channel_weight_fake_quant();
// default_histogram_fake_quant: HistogramObserver, [0, 255], quint8, reduce_range.
ObserverFactory default_histogram_fake_quant();
// default_fused_act_fake_quant: FusedMovingAvgObsFakeQuantize, [0, 255], quint8.
ObserverFactory default_fused_act_fake_quant();
// default_fused_wt_fake_quant: fused, [-128, 127], qint8, per_tensor_symmetric.
ObserverFactory default_fused_wt_fake_quant();
// default_fused_per_channel_wt_fake_quant: fused per channel, [-128, 127], qint8, per_channel_symmetric.
ObserverFactory default_fused_per_channel_wt_fake_quant();

}  // namespace ember::ao::quantization
