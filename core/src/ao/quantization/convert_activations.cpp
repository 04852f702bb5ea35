// convert()'s entries for the layers without weights (PyTorch 1.13's
// Quantize / DeQuantize / BatchNorm2d / BNReLU2d / ReLU6 / Hardswish / LeakyReLU / ELU /
// Dropout / QFunctional from_float), and Ember's own entries for the layers
// PyTorch never swaps.
//
// Note [Modules PyTorch leaves to tensor dispatch]
// After torch's convert, an nn.ReLU, nn.MaxPool2d, nn.AvgPool2d,
// nn.AdaptiveAvgPool2d or nn.Hardsigmoid stays a float module and works on
// quantized tensors because torch.relu, max_pool2d, ... dispatch on the
// tensor's type. Ember's float ops refuse quantized tensors (docs/quantization.md),
// so convert swaps these layers for quantized modules that take the quantized
// kernel for a quantized input and the float op for a float one (a layer after
// the DeQuantStub has a qconfig too and must keep working on floats). Their
// results keep the input's parameters, as torch's.
#include "convert_entries.h"

#include "ember/ao/nn/quantized/activation_pooling.h"
#include "ember/ao/nn/quantized/functional_modules.h"
#include "ember/ao/nn/quantized/modules.h"
#include "ember/ao/quantization/fused_modules.h"
#include "ember/ao/quantization/quant_markers.h"
#include "ember/core/error.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/pooling.h"

namespace ember::ao::quantization::detail {

namespace nnq = ember::ao::nn::quantized;
namespace nniq = ember::ao::nn::intrinsic::quantized;
using ember::nn::AnyModule;
using ember::nn::Module;

std::pair<double, int64_t> output_qparams(ObserverOrFakeQuantize* act, const char* who) {
  EMBER_CHECK(act != nullptr, who, ": the module has no activation observer (activation_post_process): run "
              "prepare (or prepare_qat) and calibrate before convert");
  const auto [scale, zp] = act->calculate_qparams();
  return {static_cast<double>(scale.to(kFloat32).item<float>()), zp.to(kInt64).item<int64_t>()};
}

namespace {

DType quantized_dtype(QDType d, const char* who) {
  switch (d) {
    case QDType::kQUInt8: return kQUInt8;
    case QDType::kQInt8: return kQInt8;
    case QDType::kQInt32: return kQInt32;
    default: break;
  }
  EMBER_CHECK(false, who, ": the activation observer's dtype ", d,
              " is not a static quantization dtype (quint8, qint8, qint32)");
  return kQUInt8;
}

Tensor copied(const Tensor& t) { return t.defined() ? t.detach().clone() : Tensor(); }

AnyModule make_qbatch_norm(const ember::nn::BatchNorm2dImpl& bn, ObserverOrFakeQuantize* act, bool relu,
                           const char* who) {
  const auto [scale, zp] = output_qparams(act, who);
  EMBER_CHECK(bn.running_mean.defined() && bn.running_var.defined(), who,
              ": the BatchNorm2d has no running statistics (track_running_stats=false)");
  if (relu)
    return AnyModule(nniq::BNReLU2d(copied(bn.weight), copied(bn.bias), copied(bn.running_mean),
                                    copied(bn.running_var), bn.options.eps, scale, zp));
  return AnyModule(nnq::BatchNorm2d(copied(bn.weight), copied(bn.bias), copied(bn.running_mean),
                                    copied(bn.running_var), bn.options.eps, scale, zp));
}

}  // namespace

void add_activation_conversions(ConversionTable& t) {
  t.add<QuantMarkerImpl>([](Module&, ObserverOrFakeQuantize* act, const QConfig&) {
    const auto [scale, zp] = output_qparams(act, "Quantize");
    return AnyModule(nnq::Quantize(scale, zp, quantized_dtype(act->dtype(), "Quantize")));
  });
  t.add<DeQuantMarkerImpl>(
      [](Module&, ObserverOrFakeQuantize*, const QConfig&) { return AnyModule(nnq::DeQuantize()); });
  t.add<ember::nn::BatchNorm2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    return make_qbatch_norm(dynamic_cast<ember::nn::BatchNorm2dImpl&>(m), act, false, "QuantizedBatchNorm2d");
  });
  t.add<BNReLU2dImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    auto bn = std::dynamic_pointer_cast<ember::nn::BatchNorm2dImpl>(dynamic_cast<ember::nn::SequentialImpl&>(m)[0]);
    EMBER_CHECK(bn != nullptr, "QuantizedBNReLU2d: element 0 of the BNReLU2d is not a BatchNorm2d");
    return make_qbatch_norm(*bn, act, true, "QuantizedBNReLU2d");
  });
  // ReLU6 and Dropout keep the input's parameters (their observers are not read, as PyTorch's).
  t.add<ember::nn::ReLU6Impl>([](Module&, ObserverOrFakeQuantize*, const QConfig&) { return AnyModule(nnq::ReLU6()); });
  t.add<ember::nn::DropoutImpl>([](Module& m, ObserverOrFakeQuantize*, const QConfig&) {
    return AnyModule(nnq::Dropout(dynamic_cast<ember::nn::DropoutImpl&>(m).options.p));
  });
  t.add<ember::nn::HardswishImpl>([](Module&, ObserverOrFakeQuantize* act, const QConfig&) {
    const auto [scale, zp] = output_qparams(act, "QuantizedHardswish");
    return AnyModule(nnq::Hardswish(scale, zp));
  });
  // LeakyReLU and ELU (torch 1.13's static mappings): the output's parameters from their observer.
  t.add<ember::nn::LeakyReLUImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    const auto [scale, zp] = output_qparams(act, "QuantizedLeakyReLU");
    return AnyModule(nnq::LeakyReLU(scale, zp, dynamic_cast<ember::nn::LeakyReLUImpl&>(m).options.negative_slope));
  });
  t.add<ember::nn::ELUImpl>([](Module& m, ObserverOrFakeQuantize* act, const QConfig&) {
    const auto [scale, zp] = output_qparams(act, "QuantizedELU");
    return AnyModule(nnq::ELU(scale, zp, dynamic_cast<ember::nn::ELUImpl&>(m).options.alpha));
  });
  t.add<nnq::FloatFunctionalImpl>([](Module&, ObserverOrFakeQuantize* act, const QConfig&) {
    const auto [scale, zp] = output_qparams(act, "QFunctional");
    return AnyModule(nnq::QFunctional(scale, zp));
  });
  // Note [Modules PyTorch leaves to tensor dispatch].
  t.add<ember::nn::ReLUImpl>([](Module&, ObserverOrFakeQuantize*, const QConfig&) { return AnyModule(nnq::ReLU()); });
  t.add<ember::nn::HardsigmoidImpl>(
      [](Module&, ObserverOrFakeQuantize*, const QConfig&) { return AnyModule(nnq::Hardsigmoid()); });
  t.add<ember::nn::MaxPool2dImpl>([](Module& m, ObserverOrFakeQuantize*, const QConfig&) {
    return AnyModule(nnq::MaxPool2d(dynamic_cast<ember::nn::MaxPool2dImpl&>(m).options));
  });
  t.add<ember::nn::AvgPool2dImpl>([](Module& m, ObserverOrFakeQuantize*, const QConfig&) {
    return AnyModule(nnq::AvgPool2d(dynamic_cast<ember::nn::AvgPool2dImpl&>(m).options));
  });
  t.add<ember::nn::AdaptiveAvgPool2dImpl>([](Module& m, ObserverOrFakeQuantize*, const QConfig&) {
    return AnyModule(nnq::AdaptiveAvgPool2d(dynamic_cast<ember::nn::AdaptiveAvgPool2dImpl&>(m).options));
  });
}

}  // namespace ember::ao::quantization::detail
