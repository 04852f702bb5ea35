#pragma once
// Quantization-aware training modules (torch.ao.nn.qat and
// torch.ao.nn.intrinsic.qat, PyTorch 1.13): the float layer with its weight
// passed through the qconfig's weight fake quantizer on every forward
// (child "weight_fake_quant"). prepare_qat swaps them in; each is made from
// its float module by from_float and shares that module's tensors.
//
//   qat::Conv2d, qat::Linear, qat::ConvReLU2d, qat::LinearReLU: weight fake-quantized.
//   qat::ConvBn2d, qat::ConvBnReLU2d: the BatchNorm kept and folded into the
//     weight before fake quantization (PyTorch's _forward_approximate):
//       s = bn.weight / sqrt(bn.running_var + bn.eps)
//       y = bn(conv(x, fq(w * s), 0) / s + conv_bias)      (then ReLU)
//     freeze_bn_stats() stops updating the running statistics (bn in eval
//     mode, whatever train() says afterwards); update_bn_stats() resumes.
#include "ember/ao/quantization/fused_modules.h"
#include "ember/ao/quantization/qconfig.h"

namespace ember::ao::quantization {

// The base of the QAT modules: prepare() observes each as one unit.
class QatModule {
 public:
  explicit QatModule(QConfig qconfig) : qconfig(std::move(qconfig)) {}
  virtual ~QatModule() = default;
  QConfig qconfig;
};

namespace qat {

class Conv2dImpl : public nn::Conv2dImpl, public QatModule {
 public:
  Conv2dImpl(const nn::Conv2dOptions& options, const QConfig& qconfig);
  // From a float nn::Conv2d (or the conv of a ConvReLU2d), sharing its weight and bias.
  static std::shared_ptr<Conv2dImpl> from_float(const nn::Conv2dImpl& conv, const QConfig& qconfig);
  Tensor forward(const Tensor& x);
  std::shared_ptr<ObserverOrFakeQuantize> weight_fake_quant;

 protected:
  void share(const nn::Conv2dImpl& conv);
  Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& b) const;
};
EMBER_MODULE(Conv2d);

class ConvReLU2dImpl : public Conv2dImpl {
 public:
  ConvReLU2dImpl(const nn::Conv2dOptions& options, const QConfig& qconfig);
  static std::shared_ptr<ConvReLU2dImpl> from_float(const ao::quantization::ConvReLU2dImpl& fused,
                                                    const QConfig& qconfig);
  Tensor forward(const Tensor& x) { return Conv2dImpl::forward(x).relu(); }
};
EMBER_MODULE(ConvReLU2d);

class LinearImpl : public nn::LinearImpl, public QatModule {
 public:
  LinearImpl(const nn::LinearOptions& options, const QConfig& qconfig);
  static std::shared_ptr<LinearImpl> from_float(const nn::LinearImpl& linear, const QConfig& qconfig);
  Tensor forward(const Tensor& x);
  std::shared_ptr<ObserverOrFakeQuantize> weight_fake_quant;

 protected:
  void share(const nn::LinearImpl& linear);
};
EMBER_MODULE(Linear);

class LinearReLUImpl : public LinearImpl {
 public:
  LinearReLUImpl(const nn::LinearOptions& options, const QConfig& qconfig);
  static std::shared_ptr<LinearReLUImpl> from_float(const ao::quantization::LinearReLUImpl& fused,
                                                    const QConfig& qconfig);
  Tensor forward(const Tensor& x) { return LinearImpl::forward(x).relu(); }
};
EMBER_MODULE(LinearReLU);

class ConvBn2dImpl : public nn::Conv2dImpl, public QatModule {
 public:
  // conv's options; bn is the BatchNorm2d to use (shared, not copied).
  ConvBn2dImpl(const nn::Conv2dOptions& options, nn::BatchNorm2d bn, const QConfig& qconfig);
  static std::shared_ptr<ConvBn2dImpl> from_float(const ao::quantization::ConvBn2dImpl& fused, const QConfig& qconfig);
  Tensor forward(const Tensor& x);
  void train(bool on = true) override;
  void freeze_bn_stats();
  void update_bn_stats();
  bool bn_frozen() const { return freeze_bn_; }

  nn::BatchNorm2d bn{nullptr};
  std::shared_ptr<ObserverOrFakeQuantize> weight_fake_quant;

 protected:
  Tensor conv_bn_forward(const Tensor& x);

 private:
  bool freeze_bn_ = false;
};
EMBER_MODULE(ConvBn2d);

class ConvBnReLU2dImpl : public ConvBn2dImpl {
 public:
  ConvBnReLU2dImpl(const nn::Conv2dOptions& options, nn::BatchNorm2d bn, const QConfig& qconfig);
  static std::shared_ptr<ConvBnReLU2dImpl> from_float(const ao::quantization::ConvBnReLU2dImpl& fused,
                                                      const QConfig& qconfig);
  Tensor forward(const Tensor& x) { return conv_bn_forward(x).relu(); }
};
EMBER_MODULE(ConvBnReLU2d);

}  // namespace qat

// Applied to every FakeQuantize in a model (torch.ao.quantization's
// enable_observer / disable_observer / enable_fake_quant / disable_fake_quant).
void enable_observer(nn::Module& model);
void disable_observer(nn::Module& model);
void enable_fake_quant(nn::Module& model);
void disable_fake_quant(nn::Module& model);
// Applied to every QAT ConvBn module (torch.ao.nn.intrinsic.qat.freeze_bn_stats / update_bn_stats).
void freeze_bn_stats(nn::Module& model);
void update_bn_stats(nn::Module& model);

}  // namespace ember::ao::quantization
