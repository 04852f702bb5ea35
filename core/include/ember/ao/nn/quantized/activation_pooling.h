#pragma once
// The quantized modules convert() puts in place of parameter-free float
// layers: ReLU6 and Dropout (PyTorch's nnq.ReLU6, nnq.Dropout), BNReLU2d
// (nniq.BNReLU2d), and the pooling layers PyTorch never swaps because its
// pooling ops dispatch on the tensor (Note [Modules PyTorch leaves to tensor
// dispatch] in core/src/ao/quantization/convert_activations.cpp). All keep
// their input's quantization parameters except BNReLU2d.
#include "ember/ao/nn/quantized/modules.h"
#include "ember/nn/container.h"
#include "ember/nn/modules/pooling.h"

namespace ember::ao::nn::quantized {

// torch.ops.quantized.relu6: clamp(q, zero_point, quantize(6)) on the stored
// integers (PyTorch's qclamp with the input's parameters). Quantized input only.
class ReLU6Impl : public ember::nn::Module {
 public:
  ReLU6Impl() : Module("QuantizedReLU6") {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(ReLU6);

// nnq.Dropout: the identity (quantized models run in eval mode).
class DropoutImpl : public ember::nn::Module {
 public:
  explicit DropoutImpl(double p = 0.5) : Module("QuantizedDropout"), p(p) {}
  Tensor forward(const Tensor& input) { return input; }
  double p;
};
EMBER_MODULE(Dropout);

// Pooling: the quantized kernel for a quantized input, the float module for a
// float one (a pooling layer after the DeQuantStub also has a qconfig).
class MaxPool2dImpl : public ember::nn::Module {
 public:
  explicit MaxPool2dImpl(const ember::nn::MaxPool2dOptions& options) : Module("QuantizedMaxPool2d"), options(options) {}
  Tensor forward(const Tensor& input);
  ember::nn::MaxPool2dOptions options;
};
EMBER_MODULE(MaxPool2d);

class AvgPool2dImpl : public ember::nn::Module {
 public:
  explicit AvgPool2dImpl(const ember::nn::AvgPool2dOptions& options) : Module("QuantizedAvgPool2d"), options(options) {}
  Tensor forward(const Tensor& input);
  ember::nn::AvgPool2dOptions options;
};
EMBER_MODULE(AvgPool2d);

class AdaptiveAvgPool2dImpl : public ember::nn::Module {
 public:
  explicit AdaptiveAvgPool2dImpl(const ember::nn::AdaptiveAvgPool2dOptions& options)
      : Module("QuantizedAdaptiveAvgPool2d"), options(options) {}
  Tensor forward(const Tensor& input);
  ember::nn::AdaptiveAvgPool2dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool2d);

}  // namespace ember::ao::nn::quantized

namespace ember::ao::nn::intrinsic::quantized {
// nniq.BNReLU2d: quantized batch norm, then relu on the integers (equal to
// clamping the requantized result at the zero point, as PyTorch's fused kernel).
class BNReLU2dImpl : public ember::ao::nn::quantized::BatchNorm2dImpl {
 public:
  BNReLU2dImpl(Tensor weight, Tensor bias, Tensor running_mean, Tensor running_var, double eps, double scale,
               int64_t zero_point);
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(BNReLU2d);
}  // namespace ember::ao::nn::intrinsic::quantized
