#pragma once
// ResNet, ResNeXt and Wide ResNet (torchvision.models.resnet, torchvision 0.14):
// the same modules, parameter and buffer names (state_dict keys), shapes and
// weight initialisation, so a torchvision checkpoint loads strictly.
//
//   auto net = models::resnet50({.num_classes = 10, .zero_init_residual = true});
//   net->load_state_dict(serialize::load_torch_state_dict("resnet50.pth"));
//   Tensor logits = net(images);                                  // [N, 3, H, W] -> [N, 10]
//
//   // A variant from the building blocks (torchvision's ResNet(block, layers, ...)):
//   models::ResNet tiny(models::ResNetBlock::basic(), {1, 1, 1, 1}, {.num_classes = 5});
//
// The blocks (BasicBlock, Bottleneck) and the conv3x3 / conv1x1 helpers are
// public so that other variants can be put together (see ResNetBlock).
#include <functional>
#include <memory>
#include <vector>

#include <ember/nn/container.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/pooling.h>

#include "ember/models/classifier.h"

namespace ember::models {

// Makes the normalization layer for `num_features` channels (torchvision's
// norm_layer). Empty: nn::BatchNorm2d(num_features).
using NormLayer = std::function<nn::AnyModule(int64_t num_features)>;
// The default norm layer: nn::BatchNorm2d(num_features).
nn::AnyModule batch_norm_2d(int64_t num_features);

// 3x3 convolution with padding = dilation, no bias (torchvision's conv3x3).
nn::Conv2d conv3x3(int64_t in_planes, int64_t out_planes, int64_t stride = 1, int64_t groups = 1,
                   int64_t dilation = 1);
// 1x1 convolution, no bias (torchvision's conv1x1).
nn::Conv2d conv1x1(int64_t in_planes, int64_t out_planes, int64_t stride = 1);

// The arguments torchvision passes to a block's constructor.
struct BlockOptions {
  int64_t inplanes = 0;
  int64_t planes = 0;
  int64_t stride = 1;
  // Applied to the block's input before the residual addition; empty: none.
  nn::Sequential downsample = nullptr;
  int64_t groups = 1;
  int64_t base_width = 64;
  int64_t dilation = 1;
  NormLayer norm_layer = {};
};

// Two 3x3 convolutions (ResNet-18/34). Children: conv1, bn1, relu, conv2, bn2,
// downsample (when given). groups must be 1 and base_width 64, dilation 1,
// as torchvision.
class BasicBlockImpl : public nn::Module {
 public:
  static constexpr int64_t expansion = 1;
  explicit BasicBlockImpl(const BlockOptions& options);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override { os << "BasicBlock()"; }

  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::AnyModule bn1, bn2;
  nn::ReLU relu{nullptr};
  nn::Sequential downsample{nullptr};
  int64_t stride = 1;
};
EMBER_MODULE(BasicBlock);

// 1x1 -> 3x3 (stride, groups, dilation) -> 1x1 expanding by 4 (ResNet-50 and
// up; the stride sits on the 3x3 convolution, "ResNet V1.5"). Children:
// conv1, bn1, conv2, bn2, conv3, bn3, relu, downsample (when given).
// width = int(planes * base_width / 64) * groups.
class BottleneckImpl : public nn::Module {
 public:
  static constexpr int64_t expansion = 4;
  explicit BottleneckImpl(const BlockOptions& options);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override { os << "Bottleneck()"; }

  nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  nn::AnyModule bn1, bn2, bn3;
  nn::ReLU relu{nullptr};
  nn::Sequential downsample{nullptr};
  int64_t stride = 1;
};
EMBER_MODULE(Bottleneck);

// The block type a ResNet stacks (torchvision passes the class): its channel
// expansion and how to make one.
struct ResNetBlock {
  int64_t expansion = 1;
  std::function<nn::AnyModule(const BlockOptions&)> make;
  // After the network's weight init with zero_init_residual: zero the weight
  // of the block's last norm layer (torchvision does it for its own two
  // blocks only). May be empty.
  std::function<void(nn::Module& block)> zero_init_residual = {};

  static ResNetBlock basic();       // BasicBlock
  static ResNetBlock bottleneck();  // Bottleneck
};

// torchvision's ResNet keyword arguments (after block and layers).
struct ResNetOptions {
  int64_t num_classes = 1000;
  // Zero-initialise the last BN of each residual branch, so that every block
  // starts as the identity (https://arxiv.org/abs/1706.02677).
  bool zero_init_residual = false;
  int64_t groups = 1;
  int64_t width_per_group = 64;
  // One flag per layer2..layer4: replace the stride-2 by a dilation.
  std::vector<bool> replace_stride_with_dilation = {false, false, false};
  NormLayer norm_layer = {};
};

// Children (torchvision's names): conv1, bn1, relu, maxpool, layer1..layer4
// (Sequentials of blocks "0", "1", ...), avgpool, fc. Weights: convolutions
// kaiming_normal_(fan_out, relu); norm layers weight 1, bias 0; fc PyTorch's
// Linear default.
class ResNetImpl : public ImageClassifierImpl {
 public:
  ResNetImpl(const ResNetBlock& block, const std::vector<int64_t>& layers, const ResNetOptions& options = {});
  Tensor forward(const Tensor& x) override;
  // Everything before avgpool: [N, C, H/32, W/32] (less with dilation).
  Tensor forward_features(const Tensor& x);
  void pretty_print(std::ostream& os) const override { os << "ResNet()"; }

  nn::Conv2d conv1{nullptr};
  nn::AnyModule bn1;
  nn::ReLU relu{nullptr};
  nn::MaxPool2d maxpool{nullptr};
  nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  nn::AdaptiveAvgPool2d avgpool{nullptr};
  nn::Linear fc{nullptr};

 private:
  nn::Sequential make_layer(const ResNetBlock& block, int64_t planes, int64_t blocks, int64_t stride, bool dilate);
  NormLayer norm_layer_;
  int64_t inplanes_ = 64, dilation_ = 1, groups_ = 1, base_width_ = 64;
};
class ResNet : public nn::ModuleHolder<ResNetImpl> {
 public:
  using nn::ModuleHolder<ResNetImpl>::ModuleHolder;
  ResNet(const ResNetBlock& block, const std::vector<int64_t>& layers, const ResNetOptions& options = {})
      : ModuleHolder(std::make_shared<ResNetImpl>(block, layers, options)) {}
};

// The torchvision builders. The ResNeXt / Wide variants set groups and
// width_per_group themselves (overriding the options', as torchvision).
ResNet resnet18(const ResNetOptions& options = {});
ResNet resnet34(const ResNetOptions& options = {});
ResNet resnet50(const ResNetOptions& options = {});
ResNet resnet101(const ResNetOptions& options = {});
ResNet resnet152(const ResNetOptions& options = {});
ResNet resnext50_32x4d(const ResNetOptions& options = {});
ResNet resnext101_32x8d(const ResNetOptions& options = {});
ResNet resnext101_64x4d(const ResNetOptions& options = {});
ResNet wide_resnet50_2(const ResNetOptions& options = {});
ResNet wide_resnet101_2(const ResNetOptions& options = {});

}  // namespace ember::models
