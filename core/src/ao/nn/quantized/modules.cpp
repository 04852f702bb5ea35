#include "ember/ao/nn/quantized/modules.h"

#include <algorithm>
#include <ostream>
#include <string>

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

namespace {
// The weight the kernel sees: 1-d convolutions run as 2-d ones over an
// unsqueezed weight, kept (the same view each call) so that the kernel's
// packed state is reused; remade when the module's weight is replaced.
const Tensor& kernel_weight(int spatial, const Tensor& weight, Tensor& cached, Tensor& cached_of) {
  if (spatial != 1) return weight;
  if (!cached.defined() || cached_of.impl() != weight.impl()) {
    cached = weight.unsqueeze(2);
    cached_of = weight;
  }
  return cached;
}

template <class Options>
void print_geometry(std::ostream& os, const Tensor& weight, int spatial, const Options& o, const char* op) {
  auto tuple = [&](const std::vector<int64_t>& v) {
    os << "(";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << (v.size() == 1 ? ",)" : ")");
  };
  std::vector<int64_t> k;
  for (int i = 0; i < spatial; ++i) k.push_back(weight.size(2 + i));
  os << ", kernel_size=";
  tuple(k);
  os << ", stride=";
  tuple(o.stride.expand(spatial, op, "stride"));
  const std::vector<int64_t> pad = o.padding.expand(spatial, op, "padding");
  if (std::any_of(pad.begin(), pad.end(), [](int64_t v) { return v != 0; })) {
    os << ", padding=";
    tuple(pad);
  }
}
}  // namespace

template <int D>
ConvImpl<D>::ConvImpl(Tensor w, Tensor b, const ConvOptions& options, double scale, int64_t zero_point,
                      std::string type)
    : Module(type.empty() ? "QuantizedConv" + std::to_string(D) + "d" : std::move(type)), weight(std::move(w)),
      bias(std::move(b)), options(options), scale(scale), zero_point(zero_point) {
  check_weight(weight, D + 2, name().c_str());
  Quantizer::per_tensor_affine(kQUInt8, scale, zero_point, name().c_str());
}

template <int D>
Tensor ConvImpl<D>::forward(const Tensor& input) {
  return functional::detail::conv(input, kernel_weight(D, weight, kernel_weight_, kernel_weight_of_), bias,
                                  {.stride = options.stride, .padding = options.padding,
                                   .dilation = options.dilation, .groups = options.groups},
                                  D, scale, zero_point, relu_, &packed_);
}

template <int D>
void ConvImpl<D>::pretty_print(std::ostream& os) const {
  os << name() << "(" << weight.size(1) * options.groups << ", " << weight.size(0);
  if (D == 2) {  // the former spelling, which other tests read
    os << ", kernel_size=(" << weight.size(2) << ", " << weight.size(3) << ")";
  } else {
    print_geometry(os, weight, D, options, name().c_str());
  }
  os << ", scale=" << scale << ", zero_point=" << zero_point << ")";
}

template class ConvImpl<1>;
template class ConvImpl<2>;
template class ConvImpl<3>;

template <int D>
ConvTransposeImpl<D>::ConvTransposeImpl(Tensor w, Tensor b, const ConvTransposeOptions& options, double scale,
                                        int64_t zero_point)
    : Module("QuantizedConvTranspose" + std::to_string(D) + "d"), weight(std::move(w)), bias(std::move(b)),
      options(options), scale(scale), zero_point(zero_point) {
  check_weight(weight, D + 2, name().c_str());
  EMBER_CHECK(!weight.impl()->quantizer()->is_per_channel(), name(),
              ": the weight must be quantized per tensor (torch refuses per-channel weights for transposed "
              "convolutions), got ", weight.qscheme());
  Quantizer::per_tensor_affine(kQUInt8, scale, zero_point, name().c_str());
}

template <int D>
Tensor ConvTransposeImpl<D>::forward(const Tensor& input) {
  return functional::detail::conv_transpose(input, kernel_weight(D, weight, kernel_weight_, kernel_weight_of_), bias,
                                            {.stride = options.stride, .padding = options.padding,
                                             .output_padding = options.output_padding, .groups = options.groups,
                                             .dilation = options.dilation},
                                            D, scale, zero_point, &packed_);
}

template <int D>
void ConvTransposeImpl<D>::pretty_print(std::ostream& os) const {
  os << name() << "(" << weight.size(0) << ", " << weight.size(1) * options.groups;
  print_geometry(os, weight, D, options, name().c_str());
  os << ", scale=" << scale << ", zero_point=" << zero_point << ")";
}

template class ConvTransposeImpl<1>;
template class ConvTransposeImpl<2>;
template class ConvTransposeImpl<3>;

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
template <int D>
ConvReLUImpl<D>::ConvReLUImpl(Tensor weight, Tensor bias, const ember::ao::nn::quantized::ConvOptions& options,
                              double scale, int64_t zero_point)
    : ember::ao::nn::quantized::ConvImpl<D>(std::move(weight), std::move(bias), options, scale, zero_point,
                                            "QuantizedConvReLU" + std::to_string(D) + "d") {
  this->relu_ = true;
}
template class ConvReLUImpl<1>;
template class ConvReLUImpl<2>;
template class ConvReLUImpl<3>;
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
