#include "ember/ao/nn/quantized/activation_pooling.h"

#include "ember/core/error.h"
#include "ember/nn/functional/pooling.h"
#include "ember/ops/factories.h"
#include "ember/ops/quantize.h"

namespace ember::ao::nn::quantized {

namespace F = ember::nn::functional;

Tensor ReLU6Impl::forward(const Tensor& input) {
  EMBER_CHECK(input.is_quantized() && input.qscheme() == kPerTensorAffine,
              "QuantizedReLU6: expected a per-tensor quantized input, got ",
              input.is_quantized() ? "a per-channel quantized tensor" : dtype_name(input.dtype()));
  const double scale = input.q_scale();
  const int64_t zp = input.q_zero_point();
  // The upper bound is 6 quantized with the input's parameters (PyTorch's quantize_val).
  const int64_t six = quantize_per_tensor(ones({1}, kFloat32) * 6.0, scale, zp, input.dtype()).int_repr()
                          .to(kInt64).item<int64_t>();
  const Tensor ints = input.int_repr();
  return _make_per_tensor_quantized_tensor(ints.clamp(Scalar(zp), Scalar(six)).to(ints.dtype()), scale, zp);
}

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  const F::MaxPoolFuncOptions fo{.stride = options.stride, .padding = options.padding, .dilation = options.dilation,
                                 .ceil_mode = options.ceil_mode};
  return input.is_quantized() ? functional::max_pool2d(input, options.kernel_size, fo)
                              : F::max_pool2d(input, options.kernel_size, fo);
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  const F::AvgPoolFuncOptions fo{.stride = options.stride, .padding = options.padding, .ceil_mode = options.ceil_mode,
                                 .count_include_pad = options.count_include_pad,
                                 .divisor_override = options.divisor_override};
  return input.is_quantized() ? functional::avg_pool2d(input, options.kernel_size, fo)
                              : F::avg_pool2d(input, options.kernel_size, fo);
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  // PyTorch's None keeps the input's size in that dim.
  const auto& out = options.output_size;
  EMBER_CHECK(input.dim() >= 2 && (out.size() == 1 || out.size() == 2),
              "QuantizedAdaptiveAvgPool2d: expected an input of at least 2 dims and 1 or 2 output sizes, got sizes ",
              input.sizes());
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < 2; ++i) {
    const std::optional<int64_t>& v = out[out.size() == 1 ? 0 : i];
    sizes.push_back(v ? *v : input.size(input.dim() - 2 + static_cast<int64_t>(i)));
  }
  return input.is_quantized() ? functional::adaptive_avg_pool2d(input, sizes) : F::adaptive_avg_pool2d(input, sizes);
}

}  // namespace ember::ao::nn::quantized

namespace ember::ao::nn::intrinsic::quantized {

BNReLU2dImpl::BNReLU2dImpl(Tensor weight, Tensor bias, Tensor running_mean, Tensor running_var, double eps,
                           double scale, int64_t zero_point)
    : BatchNorm2dImpl(std::move(weight), std::move(bias), std::move(running_mean), std::move(running_var), eps, scale,
                      zero_point) {
  set_name("QuantizedBNReLU2d");
}

Tensor BNReLU2dImpl::forward(const Tensor& input) {
  return ember::ao::nn::quantized::functional::relu(BatchNorm2dImpl::forward(input));
}

}  // namespace ember::ao::nn::intrinsic::quantized
