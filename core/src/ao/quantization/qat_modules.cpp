#include "ember/ao/quantization/qat_modules.h"

#include "ember/core/error.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/linear.h"

namespace ember::ao::quantization {
namespace qat {

namespace F = nn::functional;

namespace {
std::shared_ptr<ObserverOrFakeQuantize> make_weight_fake_quant(const QConfig& qconfig, const char* who) {
  EMBER_CHECK(static_cast<bool>(qconfig.weight), who, ": the qconfig has no weight factory");
  auto fq = qconfig.weight();
  EMBER_CHECK(fq != nullptr, who, ": the qconfig's weight factory returned null");
  return fq;
}

// Rebinds `name` to `source` (the float module's tensor, shared as PyTorch's from_float does).
void share_parameter(nn::Module& m, const std::string& name, const Tensor& source) {
  if (!source.defined()) return;
  m.unregister(name);
  m.register_parameter(name, source, m.bound_member(name), source.requires_grad());
}
}  // namespace

Conv2dImpl::Conv2dImpl(const nn::Conv2dOptions& options, const QConfig& qconfig)
    : nn::Conv2dImpl(options), QatModule(qconfig) {
  EMBER_CHECK(options.padding_mode == "zeros", "qat::Conv2d: only padding_mode 'zeros' is supported, got '",
              options.padding_mode, "'");
  weight_fake_quant = register_module("weight_fake_quant", make_weight_fake_quant(qconfig, "qat::Conv2d"));
}

void Conv2dImpl::share(const nn::Conv2dImpl& conv) {
  share_parameter(*this, "weight", conv.weight);
  share_parameter(*this, "bias", conv.bias);
  train(conv.is_training());
}

Tensor Conv2dImpl::conv_forward(const Tensor& x, const Tensor& w, const Tensor& b) const {
  F::ConvFuncOptions fo{.bias = b,
                        .stride = stride,
                        .padding = options.padding.mode.empty() ? F::ConvPadding(padding) : options.padding,
                        .dilation = dilation,
                        .groups = options.groups};
  return F::conv2d(x, w, fo);
}

Tensor Conv2dImpl::forward(const Tensor& x) { return conv_forward(x, weight_fake_quant->forward(weight), bias); }

std::shared_ptr<Conv2dImpl> Conv2dImpl::from_float(const nn::Conv2dImpl& conv, const QConfig& qconfig) {
  auto m = std::make_shared<Conv2dImpl>(conv.options, qconfig);
  m->share(conv);
  return m;
}

ConvReLU2dImpl::ConvReLU2dImpl(const nn::Conv2dOptions& options, const QConfig& qconfig)
    : Conv2dImpl(options, qconfig) {
  set_name("ConvReLU2d");
}

std::shared_ptr<ConvReLU2dImpl> ConvReLU2dImpl::from_float(const ao::quantization::ConvReLU2dImpl& fused,
                                                           const QConfig& qconfig) {
  auto conv = std::dynamic_pointer_cast<nn::Conv2dImpl>(fused[0]);
  EMBER_CHECK(conv != nullptr, "qat::ConvReLU2d: element 0 of the ConvReLU2d is not a Conv2d");
  auto m = std::make_shared<ConvReLU2dImpl>(conv->options, qconfig);
  m->share(*conv);
  return m;
}

LinearImpl::LinearImpl(const nn::LinearOptions& options, const QConfig& qconfig)
    : nn::LinearImpl(options), QatModule(qconfig) {
  weight_fake_quant = register_module("weight_fake_quant", make_weight_fake_quant(qconfig, "qat::Linear"));
}

void LinearImpl::share(const nn::LinearImpl& linear) {
  share_parameter(*this, "weight", linear.weight);
  share_parameter(*this, "bias", linear.bias);
  train(linear.is_training());
}

Tensor LinearImpl::forward(const Tensor& x) { return F::linear(x, weight_fake_quant->forward(weight), bias); }

std::shared_ptr<LinearImpl> LinearImpl::from_float(const nn::LinearImpl& linear, const QConfig& qconfig) {
  auto m = std::make_shared<LinearImpl>(linear.options, qconfig);
  m->share(linear);
  return m;
}

LinearReLUImpl::LinearReLUImpl(const nn::LinearOptions& options, const QConfig& qconfig)
    : LinearImpl(options, qconfig) {
  set_name("LinearReLU");
}

std::shared_ptr<LinearReLUImpl> LinearReLUImpl::from_float(const ao::quantization::LinearReLUImpl& fused,
                                                           const QConfig& qconfig) {
  auto linear = std::dynamic_pointer_cast<nn::LinearImpl>(fused[0]);
  EMBER_CHECK(linear != nullptr, "qat::LinearReLU: element 0 of the LinearReLU is not a Linear");
  auto m = std::make_shared<LinearReLUImpl>(linear->options, qconfig);
  m->share(*linear);
  return m;
}

ConvBn2dImpl::ConvBn2dImpl(const nn::Conv2dOptions& options, nn::BatchNorm2d bn_module, const QConfig& qconfig)
    : nn::Conv2dImpl(options), QatModule(qconfig) {
  set_name("ConvBn2d");
  EMBER_CHECK(options.padding_mode == "zeros", "qat::ConvBn2d: only padding_mode 'zeros' is supported, got '",
              options.padding_mode, "'");
  EMBER_CHECK(bn_module && bn_module->options.num_features == options.out_channels && bn_module->options.affine &&
                  bn_module->options.track_running_stats,
              "qat::ConvBn2d: the BatchNorm2d must be affine, track running statistics and have out_channels (",
              options.out_channels, ") features");
  bn = register_module("bn", bn_module);
  weight_fake_quant = register_module("weight_fake_quant", make_weight_fake_quant(qconfig, "qat::ConvBn2d"));
}

std::shared_ptr<ConvBn2dImpl> ConvBn2dImpl::from_float(const ao::quantization::ConvBn2dImpl& fused,
                                                       const QConfig& qconfig) {
  auto conv = std::dynamic_pointer_cast<nn::Conv2dImpl>(fused[0]);
  auto bn = std::dynamic_pointer_cast<nn::BatchNorm2dImpl>(fused[1]);
  EMBER_CHECK(conv && bn, "qat::ConvBn2d: the ConvBn2d does not hold a Conv2d and a BatchNorm2d");
  auto m = std::make_shared<ConvBn2dImpl>(conv->options, nn::BatchNorm2d(bn), qconfig);
  share_parameter(*m, "weight", conv->weight);
  share_parameter(*m, "bias", conv->bias);
  m->train(fused.is_training());
  return m;
}

// PyTorch 1.13's _ConvBnNd._forward_approximate.
Tensor ConvBn2dImpl::conv_bn_forward(const Tensor& x) {
  const Tensor running_std = (bn->running_var + bn->options.eps).sqrt();
  const Tensor scale_factor = bn->weight / running_std;
  const Tensor scaled_weight = weight_fake_quant->forward(weight * scale_factor.reshape({-1, 1, 1, 1}));
  const Tensor zero_bias = bias.defined() ? zeros_like(bias, x.dtype()) : zeros({options.out_channels}, x.dtype());
  F::ConvFuncOptions fo{.bias = zero_bias,
                        .stride = stride,
                        .padding = options.padding.mode.empty() ? F::ConvPadding(padding) : options.padding,
                        .dilation = dilation,
                        .groups = options.groups};
  Tensor conv_orig = F::conv2d(x, scaled_weight, fo) / scale_factor.reshape({1, -1, 1, 1});
  if (bias.defined()) conv_orig = conv_orig + bias.reshape({1, -1, 1, 1});
  return bn(conv_orig);
}

Tensor ConvBn2dImpl::forward(const Tensor& x) { return conv_bn_forward(x); }

void ConvBn2dImpl::train(bool on) {
  // PyTorch: the children follow only while the BatchNorm statistics are not frozen.
  training_ = on;
  if (!freeze_bn_)
    for (const auto& child : children()) child->train(on);
}

void ConvBn2dImpl::freeze_bn_stats() {
  freeze_bn_ = true;
  bn->train(false);
}

void ConvBn2dImpl::update_bn_stats() {
  freeze_bn_ = false;
  bn->train(true);
}

ConvBnReLU2dImpl::ConvBnReLU2dImpl(const nn::Conv2dOptions& options, nn::BatchNorm2d bn, const QConfig& qconfig)
    : ConvBn2dImpl(options, std::move(bn), qconfig) {
  set_name("ConvBnReLU2d");
}

std::shared_ptr<ConvBnReLU2dImpl> ConvBnReLU2dImpl::from_float(const ao::quantization::ConvBnReLU2dImpl& fused,
                                                               const QConfig& qconfig) {
  auto conv = std::dynamic_pointer_cast<nn::Conv2dImpl>(fused[0]);
  auto bn = std::dynamic_pointer_cast<nn::BatchNorm2dImpl>(fused[1]);
  EMBER_CHECK(conv && bn, "qat::ConvBnReLU2d: the ConvBnReLU2d does not hold a Conv2d and a BatchNorm2d");
  auto m = std::make_shared<ConvBnReLU2dImpl>(conv->options, nn::BatchNorm2d(bn), qconfig);
  share_parameter(*m, "weight", conv->weight);
  share_parameter(*m, "bias", conv->bias);
  m->train(fused.is_training());
  return m;
}

}  // namespace qat

namespace {
template <class Fn>
void for_each_fake_quant(nn::Module& model, Fn fn) {
  for (const auto& m : model.modules())
    if (auto* fq = dynamic_cast<FakeQuantize*>(m.get())) fn(*fq);
}
template <class Fn>
void for_each_conv_bn(nn::Module& model, Fn fn) {
  for (const auto& m : model.modules())
    if (auto* cb = dynamic_cast<qat::ConvBn2dImpl*>(m.get())) fn(*cb);
}
}  // namespace

void enable_observer(nn::Module& model) { for_each_fake_quant(model, [](FakeQuantize& f) { f.enable_observer(); }); }
void disable_observer(nn::Module& model) { for_each_fake_quant(model, [](FakeQuantize& f) { f.disable_observer(); }); }
void enable_fake_quant(nn::Module& model) { for_each_fake_quant(model, [](FakeQuantize& f) { f.enable_fake_quant(); }); }
void disable_fake_quant(nn::Module& model) {
  for_each_fake_quant(model, [](FakeQuantize& f) { f.disable_fake_quant(); });
}
void freeze_bn_stats(nn::Module& model) { for_each_conv_bn(model, [](qat::ConvBn2dImpl& c) { c.freeze_bn_stats(); }); }
void update_bn_stats(nn::Module& model) { for_each_conv_bn(model, [](qat::ConvBn2dImpl& c) { c.update_bn_stats(); }); }

}  // namespace ember::ao::quantization
