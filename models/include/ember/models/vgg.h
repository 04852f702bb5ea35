#pragma once
// VGG-11/13/16/19, with and without batch norm (torchvision.models.vgg,
// torchvision 0.14): the same modules, state_dict keys, shapes and weight
// initialisation, so a torchvision checkpoint loads strictly.
//
//   auto net = models::vgg16_bn({.num_classes = 10});
//   Tensor logits = net(images);                 // [N, 3, H, W], H, W >= 32 -> [N, 10]
//
//   // Other layer configurations (torchvision's VGG(make_layers(cfg), ...)):
//   models::VGG custom(models::make_vgg_layers({64, models::kVggMaxPool, 128, models::kVggMaxPool}, true),
//                      {.num_classes = 10});
//
// The classifier always reads 512 x 7 x 7 features (the adaptive average
// pool makes 7 x 7 of any input size), so `features` must end with 512
// channels.
#include <vector>

#include <ember/nn/container.h>
#include <ember/nn/modules/pooling.h>

#include "ember/models/classifier.h"

namespace ember::models {

// In a layer configuration, a 2x2 max pool with stride 2 (torchvision's "M").
inline constexpr int64_t kVggMaxPool = 0;

// torchvision's cfgs: 'A' (VGG-11), 'B' (VGG-13), 'D' (VGG-16), 'E' (VGG-19).
const std::vector<int64_t>& vgg_cfg(char name);

// torchvision's make_layers: for each number v, Conv2d(in, v, 3, padding=1)
// [+ BatchNorm2d(v)] + ReLU(inplace); kVggMaxPool adds MaxPool2d(2, 2).
// The input has 3 channels.
nn::Sequential make_vgg_layers(const std::vector<int64_t>& cfg, bool batch_norm = false);

struct VGGOptions {
  int64_t num_classes = 1000;
  // torchvision's init (kaiming_normal_(fan_out, relu) convolutions with zero
  // bias, BN weight 1 bias 0, Linear N(0, 0.01) with zero bias); false keeps
  // the layers' own default init.
  bool init_weights = true;
  // Dropout probability of the two classifier Dropout layers.
  double dropout = 0.5;
};

// Children: features (the given Sequential), avgpool (AdaptiveAvgPool2d(7)),
// classifier (Sequential: Linear(25088, 4096), ReLU, Dropout, Linear(4096,
// 4096), ReLU, Dropout, Linear(4096, num_classes)).
class VGGImpl : public ImageClassifierImpl {
 public:
  explicit VGGImpl(nn::Sequential features, const VGGOptions& options = {});
  Tensor forward(const Tensor& x) override;
  void pretty_print(std::ostream& os) const override { os << "VGG()"; }

  nn::Sequential features{nullptr};
  nn::AdaptiveAvgPool2d avgpool{nullptr};
  nn::Sequential classifier{nullptr};
};
EMBER_MODULE(VGG);

// The torchvision builders.
VGG vgg11(const VGGOptions& options = {});
VGG vgg11_bn(const VGGOptions& options = {});
VGG vgg13(const VGGOptions& options = {});
VGG vgg13_bn(const VGGOptions& options = {});
VGG vgg16(const VGGOptions& options = {});
VGG vgg16_bn(const VGGOptions& options = {});
VGG vgg19(const VGGOptions& options = {});
VGG vgg19_bn(const VGGOptions& options = {});

}  // namespace ember::models
