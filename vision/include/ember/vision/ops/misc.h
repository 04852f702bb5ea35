#pragma once
// Building blocks of torchvision.ops.misc that the classification models
// share: Conv2dNormActivation (convolution, normalization, activation) and
// SqueezeExcitation. Module names and children are torchvision's, so models
// built from them have torchvision's state_dict keys ("features.0.0.weight").
//
//   vision::ops::Conv2dNormActivation stem({.in_channels = 3, .out_channels = 32, .stride = 2,
//                                           .activation_layer = vision::ops::activation<nn::ReLU6>()});
//   vision::ops::SqueezeExcitation se(96, 24);       // ReLU, then Sigmoid, as torchvision's defaults
#include <cstdint>
#include <functional>
#include <optional>

#include <ember/nn/container.h>
#include <ember/nn/functional/conv.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/normalization.h>
#include <ember/nn/modules/pooling.h>
#include <ember/nn/utils/fusion.h>

namespace ember::vision::ops {

// torchvision passes layer classes (or functools.partial of them); Ember
// passes factories. An empty std::function (nullptr) is Python's None.
// norm_layer: the normalization for `num_features` channels.
using NormLayer = std::function<nn::AnyModule(int64_t num_features)>;
// activation_layer: the activation, given torchvision's `inplace` argument.
using ActivationLayer = std::function<nn::AnyModule(bool inplace)>;
// A module built without arguments (SqueezeExcitation's activations).
using ModuleFactory = std::function<nn::AnyModule()>;

// nn.BatchNorm2d, or partial(nn.BatchNorm2d, eps=..., momentum=...).
NormLayer batch_norm2d(double eps = 1e-5, std::optional<double> momentum = 0.1);

// An activation module class whose holder takes `inplace` (nn::ReLU, nn::ReLU6,
// nn::Hardswish, nn::SiLU, ...).
template <class Holder>
ActivationLayer activation() {
  return [](bool inplace) { return nn::AnyModule(Holder(inplace)); };
}

// Any default-constructible module class (nn::Sigmoid, nn::Hardsigmoid, ...),
// or one with fixed arguments: module_factory<nn::SiLU>(true).
template <class Holder, class... Args>
ModuleFactory module_factory(Args... args) {
  return [=] {
    if constexpr (sizeof...(Args) == 0)
      return nn::AnyModule(Holder());
    else
      return nn::AnyModule(Holder(args...));
  };
}

// Conv2dNormActivation's arguments, in torchvision's order and defaults.
struct Conv2dNormActivationOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  nn::functional::ExpandingInts kernel_size = 3;
  nn::functional::ExpandingInts stride = 1;
  // nullopt: (kernel_size - 1) / 2 * dilation per dim ("same" for odd kernels at stride 1).
  std::optional<nn::functional::ExpandingInts> padding = std::nullopt;
  int64_t groups = 1;
  NormLayer norm_layer = batch_norm2d();
  ActivationLayer activation_layer = activation<nn::ReLU>();
  nn::functional::ExpandingInts dilation = 1;
  // Passed to activation_layer; nullopt: the activation's own default (false).
  std::optional<bool> inplace = true;
  // nullopt: a bias only without norm_layer.
  std::optional<bool> bias = std::nullopt;
};

// A Sequential of Conv2d ("0"), the normalization ("1", unless norm_layer is
// None) and the activation (next index, unless activation_layer is None), as
// torchvision's Conv2dNormActivation (printed under that name).
//
// Inference fast path: with a BatchNorm2d in eval mode, no gradient to record
// (NoGradGuard / InferenceMode, or no tensor requiring grad), float32 and no
// hooks on the layers, forward runs one convolution with the BatchNorm folded
// into its weights (cached, nn::utils::ConvBnFoldCache) and a ReLU, ReLU6,
// Hardswish or SiLU activation as its post-op: one pass over the output
// instead of three. The result equals the layer-by-layer one to rounding.
class Conv2dNormActivationImpl : public nn::SequentialImpl {
 public:
  using Options = Conv2dNormActivationOptions;
  explicit Conv2dNormActivationImpl(const Conv2dNormActivationOptions& options);
  Tensor forward(const Tensor& x);
  // The convolution (element 0).
  std::shared_ptr<nn::Conv2dImpl> conv() const { return ptr<nn::Conv2dImpl>(0); }
  // Whether forward(x) takes the fused inference path.
  bool fused_for(const Tensor& x) const;

  int64_t out_channels;

 private:
  nn::utils::SequentialFusion fusion_;
};
EMBER_MODULE(Conv2dNormActivation);

// Squeeze-and-excitation (https://arxiv.org/abs/1709.01507, Fig. 1):
// x * scale_activation(fc2(activation(fc1(avgpool(x))))), with fc1/fc2 1x1
// convolutions with bias. Children avgpool, fc1, fc2, activation,
// scale_activation, as torchvision's.
struct SqueezeExcitationOptions {
  int64_t input_channels = 0;
  int64_t squeeze_channels = 0;
  ModuleFactory activation = module_factory<nn::ReLU>();
  ModuleFactory scale_activation = module_factory<nn::Sigmoid>();
};

class SqueezeExcitationImpl : public nn::Module {
 public:
  using Options = SqueezeExcitationOptions;
  explicit SqueezeExcitationImpl(const SqueezeExcitationOptions& options);
  SqueezeExcitationImpl(int64_t input_channels, int64_t squeeze_channels)
      : SqueezeExcitationImpl(
            SqueezeExcitationOptions{.input_channels = input_channels, .squeeze_channels = squeeze_channels}) {}
  Tensor forward(const Tensor& input);
  // The per-channel scale [N, C, 1, 1] (torchvision's _scale).
  Tensor scale(const Tensor& input);

  nn::AdaptiveAvgPool2d avgpool{nullptr};
  nn::Conv2d fc1{nullptr}, fc2{nullptr};
  std::optional<nn::AnyModule> activation, scale_activation;
};
EMBER_MODULE(SqueezeExcitation);

}  // namespace ember::vision::ops
