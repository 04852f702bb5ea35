#pragma once
// torchvision.models._utils.IntermediateLayerGetter and
// torchvision.models.detection.backbone_utils: a ResNet cut after its last
// returned layer, with a FeaturePyramidNetwork on top. Module names are
// torchvision's ("body.layer1.0.conv1.weight", "fpn.inner_blocks.0.0.weight"),
// so detection state_dicts load strictly.
//
//   auto backbone = detection::resnet_fpn_backbone("resnet50", {.trainable_layers = 3,
//                                                               .returned_layers = {2, 3, 4}});
//   OrderedDict<Tensor> features = backbone->forward(images);   // {"0", "1", "2", "pool"}
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/models/resnet.h>
#include <ember/nn/container.h>
#include <ember/vision/ops/feature_pyramid_network.h>

namespace ember::models::detection {

// Runs `layers` (name, module) in order and returns the outputs of those
// named in return_layers under their new names (torchvision's
// IntermediateLayerGetter, a ModuleDict of the layers up to the last
// returned one; later layers are not kept, so their parameters are not in
// the state_dict). A returned name that is not a layer is an error
// ("return_layers are not present in model").
class IntermediateLayerGetterImpl : public nn::Module {
 public:
  IntermediateLayerGetterImpl(const std::vector<std::pair<std::string, nn::AnyModule>>& layers,
                              std::vector<std::pair<std::string, std::string>> return_layers);
  OrderedDict<Tensor> forward(const Tensor& x) const;

  const std::vector<std::pair<std::string, std::string>>& return_layers() const { return return_layers_; }

 private:
  std::vector<std::pair<std::string, nn::AnyModule>> layers_;
  std::vector<std::pair<std::string, std::string>> return_layers_;
};
EMBER_MODULE(IntermediateLayerGetter);

// A ResNet's children in torchvision's order (conv1, bn1, relu, maxpool,
// layer1..layer4, avgpool, fc), the layers IntermediateLayerGetter walks.
std::vector<std::pair<std::string, nn::AnyModule>> resnet_children(const ResNet& resnet);

// body (IntermediateLayerGetter) then fpn (FeaturePyramidNetwork);
// out_channels: the FPN's, the same for every level.
class BackboneWithFPNImpl : public nn::Module {
 public:
  // extra_blocks null: LastLevelMaxPool, as torchvision.
  BackboneWithFPNImpl(const std::vector<std::pair<std::string, nn::AnyModule>>& layers,
                      std::vector<std::pair<std::string, std::string>> return_layers,
                      std::vector<int64_t> in_channels_list, int64_t out_channels,
                      std::shared_ptr<vision::ops::ExtraFPNBlockImpl> extra_blocks = nullptr,
                      vision::ops::NormLayer norm_layer = nullptr);
  OrderedDict<Tensor> forward(const Tensor& x);

  IntermediateLayerGetter body{nullptr};
  vision::ops::FeaturePyramidNetwork fpn{nullptr};
  int64_t out_channels;
};
EMBER_MODULE(BackboneWithFPN);

struct ResNetFPNExtractorOptions {
  // Trainable layers counted from the end: layer4, layer3, layer2, layer1,
  // conv1 (5 adds bn1); the other backbone parameters get requires_grad
  // false. In [0, 5].
  int64_t trainable_layers = 3;
  // ResNet stages whose outputs feed the FPN, each in [1, 4]; empty: all four.
  std::vector<int64_t> returned_layers = {};
  // Null: LastLevelMaxPool.
  std::shared_ptr<vision::ops::ExtraFPNBlockImpl> extra_blocks = nullptr;
  // The FPN's normalization (None: convolutions with bias).
  vision::ops::NormLayer norm_layer = nullptr;
};

// torchvision's _resnet_fpn_extractor: freezes the backbone's early layers
// and wraps it in a BackboneWithFPN with 256 output channels; the input
// channels of returned layer k are inplanes / 8 * 2^(k - 1).
BackboneWithFPN resnet_fpn_extractor(const ResNet& backbone, const ResNetFPNExtractorOptions& options = {});

struct ResNetFPNBackboneOptions {
  // torchvision's default: FrozenBatchNorm2d.
  NormLayer norm_layer = {};
  int64_t trainable_layers = 3;
  std::vector<int64_t> returned_layers = {};
  std::shared_ptr<vision::ops::ExtraFPNBlockImpl> extra_blocks = nullptr;
  bool frozen_batch_norm = true;  // norm_layer empty: FrozenBatchNorm2d (true) or BatchNorm2d
};

// torchvision's resnet_fpn_backbone(backbone_name=..., weights=None, ...):
// backbone_name one of resnet18/34/50/101/152, resnext50_32x4d,
// resnext101_32x8d, resnext101_64x4d, wide_resnet50_2, wide_resnet101_2.
BackboneWithFPN resnet_fpn_backbone(const std::string& backbone_name, const ResNetFPNBackboneOptions& options = {});

// The norm layer detection backbones use: vision::ops::FrozenBatchNorm2d.
nn::AnyModule frozen_batch_norm_2d(int64_t num_features);

// torchvision's _validate_trainable_layers: without trained weights every
// layer is trainable (max_value; a given value is overridden, as torchvision
// which warns); otherwise the given value or default_value, checked to be
// in [0, max_value].
int64_t validate_trainable_layers(bool is_trained, std::optional<int64_t> trainable_backbone_layers,
                                  int64_t max_value, int64_t default_value);

}  // namespace ember::models::detection
