// convert()'s entries for the weighted layers (PyTorch 1.13's
// _ConvNd.from_float / get_qconv and Linear.from_float): the weight observer
// runs on the (for ConvBn: BatchNorm-folded) float weight at convert time, its
// qparams quantize the weight to qint8 (_quantize_weight, with
// _clamp_weights for a range narrower than qint8's), and the output's scale
// and zero point come from the module's activation observer.
#include "convert_entries.h"

#include "ember/ao/nn/quantized/modules.h"
#include "ember/ao/quantization/fused_modules.h"
#include "ember/ao/quantization/qat_modules.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/nn/utils/fusion.h"
#include "ember/ops/quantize.h"

namespace ember::ao::quantization::detail {

namespace nnq = ember::ao::nn::quantized;
namespace nniq = ember::ao::nn::intrinsic::quantized;

namespace {

// The observer that decides the weight's scheme: the one under a fake
// quantizer (PyTorch's _get_weight_observer), else the observer itself.
const UniformQuantizationObserverBase& weight_observer(ObserverOrFakeQuantize& wpp, const char* who) {
  if (auto* fq = dynamic_cast<FakeQuantize*>(&wpp)) return *fq->activation_post_process;
  auto* obs = dynamic_cast<UniformQuantizationObserverBase*>(&wpp);
  EMBER_CHECK(obs != nullptr, who, ": the weight observer ", wpp.name(),
              " computes no per-tensor or per-channel parameters");
  return *obs;
}

// PyTorch's _quantize_weight(float_wt, observer) after weight_post_process(weight).
Tensor quantize_weight(const Tensor& weight, ObserverOrFakeQuantize& wpp, const char* who) {
  NoGradGuard no_grad;
  const Tensor w = weight.detach().to(kFloat32);
  wpp.forward(w);
  EMBER_CHECK(wpp.dtype() == QDType::kQInt8, who, ": the weight observer must have dtype torch.qint8, got ",
              wpp.dtype());
  const UniformQuantizationObserverBase& obs = weight_observer(wpp, who);
  auto [scale, zp] = wpp.calculate_qparams();
  const QScheme scheme = obs.qscheme();
  Tensor q;
  int64_t axis = 0;
  if (is_per_tensor(scheme)) {
    q = quantize_per_tensor(w, static_cast<double>(scale.item<float>()), zp.to(kInt64).item<int64_t>(), kQInt8);
  } else {
    EMBER_CHECK(is_per_channel(scheme) && !is_float_qparams(scheme), who, ": unsupported weight qscheme ", scheme);
    const auto* pc = dynamic_cast<const PerChannelMinMaxObserver*>(&obs);
    EMBER_CHECK(pc != nullptr, who, ": a per-channel weight scheme needs a per-channel observer, got ", obs.name());
    axis = pc->ch_axis();
    q = quantize_per_channel(w, scale.to(kFloat64), zp.to(kInt64), axis, kQInt8);
  }
  // _clamp_weights: a custom range narrower than qint8's clamps the integers.
  if (obs.quant_min() > -128 || obs.quant_max() < 127) {
    const Tensor ints = q.int_repr().clamp(Scalar(obs.quant_min()), Scalar(obs.quant_max())).to(kInt8);
    q = is_per_tensor(scheme) ? _make_per_tensor_quantized_tensor(ints, q.q_scale(), q.q_zero_point())
                              : _make_per_channel_quantized_tensor(ints, q.q_per_channel_scales(),
                                                                   q.q_per_channel_zero_points(), axis);
  }
  return q;
}

std::shared_ptr<ObserverOrFakeQuantize> new_weight_observer(const QConfig& qc, const char* who);

Tensor float_bias(const Tensor& b) { return b.defined() ? b.detach().to(kFloat32).clone() : Tensor(); }

template <size_t D>
nnq::ConvOptions conv_options(const ember::nn::ConvImpl<D>& conv, const char* who) {
  EMBER_CHECK(conv.options.padding_mode == "zeros", who, ": only padding_mode 'zeros' has a quantized form, got '",
              conv.options.padding_mode, "'");
  EMBER_CHECK(conv.options.padding.mode != "same", who,
              ": padding='same' has no quantized form (give the padding as numbers)");
  std::vector<int64_t> padding = conv.padding;
  if (padding.empty()) padding.assign(D, 0);  // "valid"
  return {.stride = conv.stride, .padding = padding, .dilation = conv.dilation, .groups = conv.options.groups};
}

// A Conv<D>d (or ConvReLU<D>d when relu) from the float or QAT convolution
// `conv`, with weight/bias given (the folded ones for ConvBn).
template <size_t D>
ember::nn::AnyModule make_qconv(const ember::nn::ConvImpl<D>& conv, const Tensor& weight, const Tensor& bias,
                                ObserverOrFakeQuantize& wpp, ObserverOrFakeQuantize* act, bool relu,
                                const char* who) {
  const nnq::ConvOptions options = conv_options(conv, who);
  const Tensor qw = quantize_weight(weight, wpp, who);
  const auto [scale, zp] = output_qparams(act, who);
  constexpr int d = static_cast<int>(D);
  if (relu) return ember::nn::AnyModule(std::make_shared<nniq::ConvReLUImpl<d>>(qw, float_bias(bias), options, scale, zp));
  return ember::nn::AnyModule(std::make_shared<nnq::ConvImpl<d>>(qw, float_bias(bias), options, scale, zp));
}

// torch's _ConvTransposeNd.from_float: a per-tensor weight observer only.
template <size_t D>
ember::nn::AnyModule make_qconv_transpose(const ember::nn::ConvTransposeImpl<D>& conv, const QConfig& qc,
                                          ObserverOrFakeQuantize* act, const char* who) {
  EMBER_CHECK(conv.options.padding_mode == "zeros", who, ": only padding_mode 'zeros' has a quantized form, got '",
              conv.options.padding_mode, "'");
  auto wpp = new_weight_observer(qc, who);
  EMBER_CHECK(is_per_tensor(weight_observer(*wpp, who).qscheme()), who,
              ": Per channel weight observer is not supported yet for ConvTranspose{n}d (give the qconfig a "
              "per-tensor weight observer, as torch)");
  const Tensor qw = quantize_weight(conv.weight, *wpp, who);
  const auto [scale, zp] = output_qparams(act, who);
  const nnq::ConvTransposeOptions options{.stride = conv.stride, .padding = conv.padding,
                                          .output_padding = conv.output_padding, .groups = conv.options.groups,
                                          .dilation = conv.dilation};
  return ember::nn::AnyModule(
      std::make_shared<nnq::ConvTransposeImpl<static_cast<int>(D)>>(qw, float_bias(conv.bias), options, scale, zp));
}

ember::nn::AnyModule make_qlinear(const ember::nn::LinearImpl& linear, ObserverOrFakeQuantize& wpp,
                                  ObserverOrFakeQuantize* act, bool relu, const char* who) {
  const Tensor qw = quantize_weight(linear.weight, wpp, who);
  const auto [scale, zp] = output_qparams(act, who);
  if (relu) return ember::nn::AnyModule(nniq::LinearReLU(qw, float_bias(linear.bias), scale, zp));
  return ember::nn::AnyModule(nnq::Linear(qw, float_bias(linear.bias), scale, zp));
}

std::shared_ptr<ObserverOrFakeQuantize> new_weight_observer(const QConfig& qc, const char* who) {
  EMBER_CHECK(static_cast<bool>(qc.weight), who, ": the qconfig has no weight factory");
  auto obs = qc.weight();
  EMBER_CHECK(obs != nullptr, who, ": the qconfig's weight factory returned null");
  return obs;
}

template <class Impl>
std::shared_ptr<Impl> element(ember::nn::Module& fused, size_t i, const char* who) {
  auto p = std::dynamic_pointer_cast<Impl>(dynamic_cast<ember::nn::SequentialImpl&>(fused)[i]);
  EMBER_CHECK(p != nullptr, who, ": element ", i, " of the fused module has an unexpected type");
  return p;
}

// The QAT ConvBn's BatchNorm folded into its weight (fuse_conv_bn_weights on
// the running statistics, as PyTorch's from_float before get_qconv).
std::pair<Tensor, Tensor> folded(const qat::ConvBn2dImpl& m) {
  NoGradGuard no_grad;
  const auto& bn = *m.bn;
  return ember::nn::utils::fuse_conv_bn_weights(m.weight.detach(), m.bias.defined() ? m.bias.detach() : Tensor(),
                                                bn.running_mean, bn.running_var, bn.options.eps,
                                                bn.weight.defined() ? bn.weight.detach() : Tensor(),
                                                bn.bias.defined() ? bn.bias.detach() : Tensor());
}

}  // namespace

void add_weighted_conversions(ConversionTable& t) {
  using ember::nn::AnyModule;
  using ember::nn::Module;
  // Float modules: a fresh weight observer from the qconfig.
  t.add<ember::nn::Conv2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    auto& conv = dynamic_cast<ember::nn::Conv2dImpl&>(m);
    auto wpp = new_weight_observer(qc, "QuantizedConv2d");
    return make_qconv(conv, conv.weight, conv.bias, *wpp, act, false, "QuantizedConv2d");
  });
  t.add<ConvReLU2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    auto conv = element<ember::nn::Conv2dImpl>(m, 0, "QuantizedConvReLU2d");
    auto wpp = new_weight_observer(qc, "QuantizedConvReLU2d");
    return make_qconv(*conv, conv->weight, conv->bias, *wpp, act, true, "QuantizedConvReLU2d");
  });
  t.add<ember::nn::Conv1dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    auto& conv = dynamic_cast<ember::nn::Conv1dImpl&>(m);
    auto wpp = new_weight_observer(qc, "QuantizedConv1d");
    return make_qconv(conv, conv.weight, conv.bias, *wpp, act, false, "QuantizedConv1d");
  });
  t.add<ember::nn::Conv3dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    auto& conv = dynamic_cast<ember::nn::Conv3dImpl&>(m);
    auto wpp = new_weight_observer(qc, "QuantizedConv3d");
    return make_qconv(conv, conv.weight, conv.bias, *wpp, act, false, "QuantizedConv3d");
  });
  t.add<ConvReLU1dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    auto conv = element<ember::nn::Conv1dImpl>(m, 0, "QuantizedConvReLU1d");
    auto wpp = new_weight_observer(qc, "QuantizedConvReLU1d");
    return make_qconv(*conv, conv->weight, conv->bias, *wpp, act, true, "QuantizedConvReLU1d");
  });
  t.add<ConvReLU3dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    auto conv = element<ember::nn::Conv3dImpl>(m, 0, "QuantizedConvReLU3d");
    auto wpp = new_weight_observer(qc, "QuantizedConvReLU3d");
    return make_qconv(*conv, conv->weight, conv->bias, *wpp, act, true, "QuantizedConvReLU3d");
  });
  t.add<ember::nn::ConvTranspose1dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    return make_qconv_transpose(dynamic_cast<ember::nn::ConvTranspose1dImpl&>(m), qc, act,
                                "QuantizedConvTranspose1d");
  });
  t.add<ember::nn::ConvTranspose2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    return make_qconv_transpose(dynamic_cast<ember::nn::ConvTranspose2dImpl&>(m), qc, act,
                                "QuantizedConvTranspose2d");
  });
  t.add<ember::nn::ConvTranspose3dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    return make_qconv_transpose(dynamic_cast<ember::nn::ConvTranspose3dImpl&>(m), qc, act,
                                "QuantizedConvTranspose3d");
  });
  t.add<ember::nn::LinearImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    auto wpp = new_weight_observer(qc, "QuantizedLinear");
    return make_qlinear(dynamic_cast<ember::nn::LinearImpl&>(m), *wpp, act, false, "QuantizedLinear");
  });
  t.add<LinearReLUImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig& qc) {
    auto linear = element<ember::nn::LinearImpl>(m, 0, "QuantizedLinearReLU");
    auto wpp = new_weight_observer(qc, "QuantizedLinearReLU");
    return make_qlinear(*linear, *wpp, act, true, "QuantizedLinearReLU");
  });
  // QAT modules: their own weight fake quantizer, run once more on the weight.
  t.add<qat::Conv2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    auto& conv = dynamic_cast<qat::Conv2dImpl&>(m);
    return make_qconv(conv, conv.weight, conv.bias, *conv.weight_fake_quant, act, false, "QuantizedConv2d");
  });
  t.add<qat::ConvReLU2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    auto& conv = dynamic_cast<qat::ConvReLU2dImpl&>(m);
    return make_qconv(conv, conv.weight, conv.bias, *conv.weight_fake_quant, act, true, "QuantizedConvReLU2d");
  });
  t.add<qat::ConvBn2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    auto& conv = dynamic_cast<qat::ConvBn2dImpl&>(m);
    const auto [w, b] = folded(conv);
    return make_qconv(conv, w, b, *conv.weight_fake_quant, act, false, "QuantizedConv2d");
  });
  t.add<qat::ConvBnReLU2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    auto& conv = dynamic_cast<qat::ConvBnReLU2dImpl&>(m);
    const auto [w, b] = folded(conv);
    return make_qconv(conv, w, b, *conv.weight_fake_quant, act, true, "QuantizedConvReLU2d");
  });
  t.add<qat::LinearImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    auto& linear = dynamic_cast<qat::LinearImpl&>(m);
    return make_qlinear(linear, *linear.weight_fake_quant, act, false, "QuantizedLinear");
  });
  t.add<qat::LinearReLUImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    auto& linear = dynamic_cast<qat::LinearReLUImpl&>(m);
    return make_qlinear(linear, *linear.weight_fake_quant, act, true, "QuantizedLinearReLU");
  });
}

}  // namespace ember::ao::quantization::detail
