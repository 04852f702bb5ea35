#include "ember/ao/nn/quantized/modules.h"

#include <ostream>

#include "ember/core/quantizer.h"
#include "ember/nn/functional/activation.h"
#include "ember/ops/quantize.h"
#include "ao/nn/quantized/packed_calls.h"

namespace ember::ao::nn::quantized {

namespace {
void check_weight(const Tensor& w, int64_t dim, const char* who) {
  EMBER_CHECK(w.defined() && w.dtype() == kQInt8, who, ": weight must be a qint8 tensor (quantize_per_tensor or "
              "quantize_per_channel), got ", w.defined() ? dtype_name(w.dtype()) : "an undefined tensor");
  EMBER_CHECK(w.dim() == dim, who, ": weight must be ", dim, "-d, got sizes ", w.sizes());
}
}  // namespace

LinearImpl::LinearImpl(Tensor w, Tensor b, double scale, int64_t zero_point, std::string type)
    : Module(std::move(type)), weight(std::move(w)), bias(std::move(b)), scale(scale), zero_point(zero_point) {
  check_weight(weight, 2, name().c_str());
  Quantizer::per_tensor_affine(kQUInt8, scale, zero_point, name().c_str());
}

Tensor LinearImpl::forward(const Tensor& input) {
  return functional::detail::linear(input, weight, bias, scale, zero_point, relu_, &packed_);
}

void LinearImpl::pretty_print(std::ostream& os) const {
  os << name() << "(in_features=" << weight.size(1) << ", out_features=" << weight.size(0) << ", scale=" << scale
     << ", zero_point=" << zero_point << ", qscheme=" << weight.qscheme() << ")";
}

Conv2dImpl::Conv2dImpl(Tensor w, Tensor b, const Conv2dOptions& options, double scale, int64_t zero_point,
                       std::string type)
    : Module(std::move(type)), weight(std::move(w)), bias(std::move(b)), options(options), scale(scale),
      zero_point(zero_point) {
  check_weight(weight, 4, name().c_str());
  Quantizer::per_tensor_affine(kQUInt8, scale, zero_point, name().c_str());
}

Tensor Conv2dImpl::forward(const Tensor& input) {
  return functional::detail::conv2d(input, weight, bias,
                                    {.stride = options.stride, .padding = options.padding,
                                     .dilation = options.dilation, .groups = options.groups},
                                    scale, zero_point, relu_, &packed_);
}

void Conv2dImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << weight.size(1) * options.groups << ", " << weight.size(0) << ", kernel_size=("
     << weight.size(2) << ", " << weight.size(3) << "), scale=" << scale << ", zero_point=" << zero_point << ")";
}

BatchNorm2dImpl::BatchNorm2dImpl(Tensor w, Tensor b, Tensor mean, Tensor var, double eps, double scale,
                                 int64_t zero_point)
    : Module("QuantizedBatchNorm2d"), weight(std::move(w)), bias(std::move(b)), running_mean(std::move(mean)),
      running_var(std::move(var)), eps(eps), scale(scale), zero_point(zero_point) {}

Tensor BatchNorm2dImpl::forward(const Tensor& input) {
  return functional::batch_norm2d(input, weight, bias, running_mean, running_var, eps, scale, zero_point);
}

QuantizeImpl::QuantizeImpl(double scale, int64_t zero_point, DType dtype)
    : Module("Quantize"), scale(scale), zero_point(zero_point), dtype(dtype) {
  Quantizer::per_tensor_affine(dtype, scale, zero_point, "Quantize");
}

Tensor QuantizeImpl::forward(const Tensor& input) { return quantize_per_tensor(input, scale, zero_point, dtype); }

namespace dynamic {
LinearImpl::LinearImpl(Tensor w, Tensor b, bool reduce_range)
    : LinearImpl(std::move(w), std::move(b), reduce_range, "DynamicQuantizedLinear") {}

LinearImpl::LinearImpl(Tensor w, Tensor b, bool reduce_range, std::string type)
    : Module(std::move(type)), weight(std::move(w)), bias(std::move(b)), reduce_range(reduce_range) {
  // qint8, or float16 (float16_dynamic_qconfig's weights).
  if (weight.defined() && weight.dtype() == kFloat16) {
    EMBER_CHECK(weight.dim() == 2, name(), ": weight must be 2-d, got sizes ", weight.sizes());
  } else {
    check_weight(weight, 2, name().c_str());
  }
  register_buffer("weight", weight, &weight);
  if (bias.defined()) register_buffer("bias", bias, &bias);
}

Tensor LinearImpl::forward(const Tensor& input) {
  if (weight.dtype() == kFloat16) return functional::linear_dynamic_fp16(input, weight, bias, relu_);
  return functional::linear_dynamic(input, weight, bias, reduce_range, relu_);
}

void LinearImpl::pretty_print(std::ostream& os) const {
  os << name() << "(in_features=" << weight.size(1) << ", out_features=" << weight.size(0);
  if (weight.dtype() == kFloat16)
    os << ", dtype=float16)";
  else
    os << ", dtype=qint8, qscheme=" << weight.qscheme() << ")";
}
}  // namespace dynamic

}  // namespace ember::ao::nn::quantized

namespace ember::ao::nn::intrinsic::quantized {
LinearReLUImpl::LinearReLUImpl(Tensor weight, Tensor bias, double scale, int64_t zero_point)
    : LinearImpl(std::move(weight), std::move(bias), scale, zero_point, "QuantizedLinearReLU") {
  relu_ = true;
}
ConvReLU2dImpl::ConvReLU2dImpl(Tensor weight, Tensor bias, const ember::ao::nn::quantized::Conv2dOptions& options,
                               double scale, int64_t zero_point)
    : Conv2dImpl(std::move(weight), std::move(bias), options, scale, zero_point, "QuantizedConvReLU2d") {
  relu_ = true;
}
namespace dynamic {
LinearReLUImpl::LinearReLUImpl(Tensor weight, Tensor bias, bool reduce_range)
    : LinearImpl(std::move(weight), std::move(bias), reduce_range, "DynamicQuantizedLinearReLU") {
  relu_ = true;
}
}  // namespace dynamic
}  // namespace ember::ao::nn::intrinsic::quantized

namespace ember::ao::nn::quantized {
Tensor ReLUImpl::forward(const Tensor& input) {
  return input.is_quantized() ? functional::relu(input) : ember::nn::functional::relu(input);
}
Tensor HardsigmoidImpl::forward(const Tensor& input) {
  return input.is_quantized() ? functional::hardsigmoid(input) : ember::nn::functional::hardsigmoid(input);
}
void QFunctionalImpl::pretty_print(std::ostream& os) const {
  os << "QFunctional(scale=" << scale << ", zero_point=" << zero_point << ")";
}
}  // namespace ember::ao::nn::quantized
