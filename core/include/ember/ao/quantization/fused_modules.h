#pragma once
// The fused modules of torch.ao.nn.intrinsic that fuse_modules produces:
// Sequentials of their parts (state_dict keys "0.weight", ... as PyTorch's),
// observed and later converted as one unit.
//
//   ConvReLU1d / ConvReLU2d / ConvReLU3d(conv, relu), ConvBn2d(conv, bn), ConvBnReLU2d(conv, bn, relu),
//   LinearReLU(linear, relu), LinearBn1d(linear, bn), BNReLU2d(bn, relu)
//
// ConvBn2d / ConvBnReLU2d / LinearBn1d keep the BatchNorm (fuse_modules makes
// them for models in training mode; prepare_qat turns them into their QAT
// forms). In eval mode fuse_modules folds the BatchNorm into the convolution
// instead (fuse_conv_bn_eval) and no ConvBn module remains.
#include <memory>

#include "ember/nn/container.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/normalization.h"

namespace ember::ao::quantization {

// `nn` here is ember::nn even where ember::ao::nn (the quantized modules) is
// declared: without the alias, a translation unit that includes an
// ember/ao/nn header first would resolve nn::Module to ember::ao::nn.
namespace nn = ::ember::nn;

// The base of the fused modules (PyTorch's _FusedModule): a Sequential that
// prepare() observes as one leaf.
class FusedModule : public nn::SequentialImpl {
 public:
  template <class... Parts>
  FusedModule(const std::string& name, Parts&&... parts) : nn::SequentialImpl(std::forward<Parts>(parts)...) {
    set_name(name);
  }
  void pretty_print(std::ostream& os) const override { os << name() << "()"; }
};

class ConvReLU2dImpl : public FusedModule {
 public:
  ConvReLU2dImpl(nn::Conv2d conv, nn::ReLU relu) : FusedModule("ConvReLU2d", conv, relu) {}
};
class ConvReLU1dImpl : public FusedModule {
 public:
  ConvReLU1dImpl(nn::Conv1d conv, nn::ReLU relu) : FusedModule("ConvReLU1d", conv, relu) {}
};
class ConvReLU3dImpl : public FusedModule {
 public:
  ConvReLU3dImpl(nn::Conv3d conv, nn::ReLU relu) : FusedModule("ConvReLU3d", conv, relu) {}
};
class ConvBn2dImpl : public FusedModule {
 public:
  ConvBn2dImpl(nn::Conv2d conv, nn::BatchNorm2d bn) : FusedModule("ConvBn2d", conv, bn) {}
};
class ConvBnReLU2dImpl : public FusedModule {
 public:
  ConvBnReLU2dImpl(nn::Conv2d conv, nn::BatchNorm2d bn, nn::ReLU relu) : FusedModule("ConvBnReLU2d", conv, bn, relu) {}
};
class LinearReLUImpl : public FusedModule {
 public:
  LinearReLUImpl(nn::Linear linear, nn::ReLU relu) : FusedModule("LinearReLU", linear, relu) {}
};
class LinearBn1dImpl : public FusedModule {
 public:
  LinearBn1dImpl(nn::Linear linear, nn::BatchNorm1d bn) : FusedModule("LinearBn1d", linear, bn) {}
};
class BNReLU2dImpl : public FusedModule {
 public:
  BNReLU2dImpl(nn::BatchNorm2d bn, nn::ReLU relu) : FusedModule("BNReLU2d", bn, relu) {}
};
EMBER_MODULE(ConvReLU2d);
EMBER_MODULE(ConvReLU1d);
EMBER_MODULE(ConvReLU3d);
EMBER_MODULE(ConvBn2d);
EMBER_MODULE(ConvBnReLU2d);
EMBER_MODULE(LinearReLU);
EMBER_MODULE(LinearBn1d);
EMBER_MODULE(BNReLU2d);

// torch.nn.utils.fusion.fuse_conv_bn_eval: a new Conv2d equal to bn(conv(x))
// with bn in eval mode (both must be in eval mode).
nn::Conv2d fuse_conv_bn_eval(const nn::Conv2dImpl& conv, const nn::BatchNorm2dImpl& bn);
// torch.nn.utils.fusion.fuse_linear_bn_eval: a new Linear equal to bn(linear(x)).
nn::Linear fuse_linear_bn_eval(const nn::LinearImpl& linear, const nn::BatchNorm1dImpl& bn);

}  // namespace ember::ao::quantization
