#pragma once
// Observers (torch.ao.quantization.observer, PyTorch 1.13): modules that watch
// the tensors passing through them and compute the (scale, zero_point) a
// quantized model will use. Each forward records statistics and returns its
// input unchanged; calculate_qparams() turns them into parameters with
// PyTorch's formulas (Note [Observer qparams] in observer.cpp):
//
//   auto obs = std::make_shared<MinMaxObserver>(ObserverOptions{.dtype = QDType::kQInt8,
//                                                               .qscheme = QScheme::kPerTensorSymmetric});
//   obs->forward(activations);                 // as many batches as wanted
//   auto [scale, zero_point] = obs->calculate_qparams();   // float32 [1], int64 [1]
//
// state_dict keys are PyTorch's: eps, min_val, max_val (and histogram for
// HistogramObserver), so observer state moves between the two.
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "ember/ao/quantization/qscheme.h"
#include "ember/core/tensor.h"
#include "ember/nn/module.h"

namespace ember::ao::quantization {

// `nn` here is ember::nn even where ember::ao::nn (the quantized modules) is
// declared: without the alias, a translation unit that includes an
// ember/ao/nn header first would resolve nn::Module to ember::ao::nn.
namespace nn = ::ember::nn;

// The keyword arguments of PyTorch's observer constructors, in one struct
// (each observer reads the fields it has; defaults are PyTorch's).
struct ObserverOptions {
  QDType dtype = QDType::kQUInt8;
  // Unset: the observer's default (per_tensor_affine, per_channel_affine for
  // the per-channel observers).
  std::optional<QScheme> qscheme = std::nullopt;
  // Halves the range (PyTorch keeps it for fbgemm/x86's 7-bit activations).
  bool reduce_range = false;
  // A custom range: both or neither (calculate_qmin_qmax).
  std::optional<int64_t> quant_min = std::nullopt;
  std::optional<int64_t> quant_max = std::nullopt;
  // Lower bound of the scale (float32's epsilon, 2^-23).
  double eps = 1.1920928955078125e-07;
  // Moving-average observers: new = old + averaging_constant * (current - old).
  double averaging_constant = 0.01;
  // Per-channel observers: the channel dimension.
  int64_t ch_axis = 0;
  // HistogramObserver: number of bins and the upsampling used to merge histograms.
  int64_t bins = 2048;
  int64_t upsample_rate = 128;
};

// What prepare() attaches to a module's output and what a QConfig makes: an
// observer or a fake quantizer (PyTorch's ObserverOrFakeQuantize). forward
// returns the value the next module sees.
class ObserverOrFakeQuantize : public nn::Module {
 public:
  using nn::Module::Module;
  virtual Tensor forward(const Tensor& x) = 0;
  // (scale float32, zero_point int32/int64, or float32 for float qparams).
  virtual std::pair<Tensor, Tensor> calculate_qparams() = 0;
  virtual QDType dtype() const = 0;
  // False for observers that compute no parameters (NoopObserver): prepare
  // then attaches nothing ("memoryless" for PyTorch's float16 configs).
  virtual bool has_qparams() const { return true; }
};

using ObserverFactory = std::function<std::shared_ptr<ObserverOrFakeQuantize>()>;

class ObserverBase : public ObserverOrFakeQuantize {
 public:
  ObserverBase(std::string name, QDType dtype) : ObserverOrFakeQuantize(std::move(name)), dtype_(dtype) {}
  QDType dtype() const override { return dtype_; }

 protected:
  QDType dtype_;
};

// The common part of the min/max and histogram observers
// (UniformQuantizationObserverBase): the range, the scheme, eps, and
// _calculate_qparams.
class UniformQuantizationObserverBase : public ObserverBase {
 public:
  UniformQuantizationObserverBase(std::string name, const ObserverOptions& options, QScheme default_qscheme);
  QScheme qscheme() const { return qscheme_; }
  bool reduce_range() const { return reduce_range_; }
  int64_t quant_min() const { return quant_min_; }
  int64_t quant_max() const { return quant_max_; }
  // PyTorch's _calculate_qparams(min_val, max_val) for this observer's
  // scheme and range (0-d or 1-d float32 min/max; see Note [Observer qparams]).
  std::pair<Tensor, Tensor> calculate_qparams_from(const Tensor& min_val, const Tensor& max_val) const;

  Tensor eps;  // buffer "eps", float32 [1]

 protected:
  QScheme qscheme_;
  bool reduce_range_;
  bool has_customized_qrange_;
  int64_t quant_min_, quant_max_;
};

// Running minimum and maximum over everything observed (per tensor).
class MinMaxObserver : public UniformQuantizationObserverBase {
 public:
  explicit MinMaxObserver(const ObserverOptions& options = {}) : MinMaxObserver("MinMaxObserver", options) {}
  Tensor forward(const Tensor& x) override;
  std::pair<Tensor, Tensor> calculate_qparams() override { return calculate_qparams_from(min_val, max_val); }
  // Back to min_val = +inf, max_val = -inf.
  void reset_min_max_vals();
  void pretty_print(std::ostream& os) const override;

  Tensor min_val, max_val;  // buffers, float32 0-d

 protected:
  MinMaxObserver(std::string name, const ObserverOptions& options);
};

// min/max as exponential moving averages (the first batch sets them).
class MovingAverageMinMaxObserver : public MinMaxObserver {
 public:
  explicit MovingAverageMinMaxObserver(const ObserverOptions& options = {});
  Tensor forward(const Tensor& x) override;
  double averaging_constant() const { return averaging_constant_; }

 private:
  double averaging_constant_;
};

// Minimum and maximum per slice along ch_axis (default qscheme
// per_channel_affine); min_val/max_val are 1-d once something was observed.
class PerChannelMinMaxObserver : public UniformQuantizationObserverBase {
 public:
  explicit PerChannelMinMaxObserver(const ObserverOptions& options = {})
      : PerChannelMinMaxObserver("PerChannelMinMaxObserver", options) {}
  Tensor forward(const Tensor& x) override;
  std::pair<Tensor, Tensor> calculate_qparams() override { return calculate_qparams_from(min_val, max_val); }
  int64_t ch_axis() const { return ch_axis_; }
  void reset_min_max_vals();
  void pretty_print(std::ostream& os) const override;

  Tensor min_val, max_val;  // buffers, float32 [C] (empty before the first forward)

 protected:
  PerChannelMinMaxObserver(std::string name, const ObserverOptions& options);
  // x with ch_axis moved first and the rest flattened, float32.
  Tensor channel_rows(const Tensor& x) const;
  void set_min_max(const Tensor& mn, const Tensor& mx);
  int64_t ch_axis_;
};

class MovingAveragePerChannelMinMaxObserver : public PerChannelMinMaxObserver {
 public:
  explicit MovingAveragePerChannelMinMaxObserver(const ObserverOptions& options = {});
  Tensor forward(const Tensor& x) override;
  double averaging_constant() const { return averaging_constant_; }

 private:
  double averaging_constant_;
};

// A running histogram of the values (bins over [min_val, max_val], merged
// across batches by upsampling) and PyTorch 1.13's search for the clipping
// range minimising the L2 quantization error (_non_linear_param_search);
// qparams then follow as for MinMaxObserver. Per tensor only. Note
// [Histogram observer] in histogram_observer.cpp.
class HistogramObserver : public UniformQuantizationObserverBase {
 public:
  explicit HistogramObserver(const ObserverOptions& options = {});
  Tensor forward(const Tensor& x) override;
  std::pair<Tensor, Tensor> calculate_qparams() override;
  // The clipping range the L2 search picks (new_min, new_max), 0-d float32.
  std::pair<Tensor, Tensor> non_linear_param_search() const;
  int64_t bins() const { return bins_; }
  void pretty_print(std::ostream& os) const override;

  Tensor histogram;         // buffer, float32 [bins]
  Tensor min_val, max_val;  // buffers, float32 0-d

 private:
  double compute_quantization_error(int64_t next_start_bin, int64_t next_end_bin) const;
  int64_t bins_, upsample_rate_, dst_nbins_;
};

// Records nothing and computes no parameters (PyTorch's NoopObserver and, with
// a quantized dtype, its dtype-only observer for dynamic quantization):
// prepare() attaches nothing for it and convert reads only its dtype.
class NoopObserver : public ObserverBase {
 public:
  explicit NoopObserver(QDType dtype = QDType::kFloat16) : ObserverBase("NoopObserver", dtype) {}
  Tensor forward(const Tensor& x) override { return x; }
  // An error: there is nothing to compute.
  std::pair<Tensor, Tensor> calculate_qparams() override;
  bool has_qparams() const override { return false; }
};

// Factories (PyTorch's Observer.with_args(...)).
template <class Observer>
ObserverFactory observer_factory(const ObserverOptions& options = {}) {
  return [options] { return std::make_shared<Observer>(options); };
}

// PyTorch's named defaults (torch.ao.quantization.observer):
// default_observer: MinMaxObserver, quant_min 0, quant_max 127.
ObserverFactory default_observer();
// default_weight_observer: MinMaxObserver, qint8, per_tensor_symmetric.
ObserverFactory default_weight_observer();
// default_histogram_observer: HistogramObserver, quant_min 0, quant_max 127.
ObserverFactory default_histogram_observer();
// default_per_channel_weight_observer: PerChannelMinMaxObserver, qint8, per_channel_symmetric.
ObserverFactory default_per_channel_weight_observer();

}  // namespace ember::ao::quantization
