#include "ember/models/detection/backbone_utils.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <ember/core/error.h>
#include <ember/vision/ops/frozen_batch_norm.h>

namespace ember::models::detection {

namespace {

std::string join_names(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  for (const auto& [name, _] : pairs) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

IntermediateLayerGetterImpl::IntermediateLayerGetterImpl(
    const std::vector<std::pair<std::string, nn::AnyModule>>& layers,
    std::vector<std::pair<std::string, std::string>> return_layers)
    : nn::Module("IntermediateLayerGetter"), return_layers_(std::move(return_layers)) {
  EMBER_CHECK(!return_layers_.empty(), "IntermediateLayerGetter: return_layers is empty");
  std::set<std::string> names;
  for (const auto& [name, _] : layers) names.insert(name);
  for (const auto& [name, _] : return_layers_)
    EMBER_CHECK(names.count(name) != 0, "IntermediateLayerGetter: return_layers are not present in model (",
                join_names(return_layers_), ")");
  // Keep the layers up to the last returned one (torchvision drops the rest).
  std::set<std::string> remaining;
  for (const auto& [name, _] : return_layers_) remaining.insert(name);
  for (const auto& [name, module] : layers) {
    register_module(name, module.ptr());
    layers_.emplace_back(name, module);
    remaining.erase(name);
    if (remaining.empty()) break;
  }
}

OrderedDict<Tensor> IntermediateLayerGetterImpl::forward(const Tensor& input) const {
  OrderedDict<Tensor> out;
  Tensor x = input;
  for (const auto& [name, module] : layers_) {
    x = module.forward(x);
    for (const auto& [layer, out_name] : return_layers_)
      if (layer == name) out.insert(out_name, x);
  }
  return out;
}

std::vector<std::pair<std::string, nn::AnyModule>> resnet_children(const ResNet& r) {
  return {{"conv1", nn::AnyModule(r->conv1)},   {"bn1", r->bn1},
          {"relu", nn::AnyModule(r->relu)},     {"maxpool", nn::AnyModule(r->maxpool)},
          {"layer1", nn::AnyModule(r->layer1)}, {"layer2", nn::AnyModule(r->layer2)},
          {"layer3", nn::AnyModule(r->layer3)}, {"layer4", nn::AnyModule(r->layer4)},
          {"avgpool", nn::AnyModule(r->avgpool)}, {"fc", nn::AnyModule(r->fc)}};
}

BackboneWithFPNImpl::BackboneWithFPNImpl(const std::vector<std::pair<std::string, nn::AnyModule>>& layers,
                                         std::vector<std::pair<std::string, std::string>> return_layers,
                                         std::vector<int64_t> in_channels_list, int64_t out_channels_,
                                         std::shared_ptr<vision::ops::ExtraFPNBlockImpl> extra_blocks,
                                         vision::ops::NormLayer norm_layer)
    : nn::Module("BackboneWithFPN"), out_channels(out_channels_) {
  if (!extra_blocks) extra_blocks = vision::ops::LastLevelMaxPool().ptr();
  body = register_module("body", IntermediateLayerGetter(layers, std::move(return_layers)));
  fpn = register_module("fpn", vision::ops::FeaturePyramidNetwork(vision::ops::FeaturePyramidNetworkOptions{
                                   .in_channels_list = std::move(in_channels_list),
                                   .out_channels = out_channels,
                                   .extra_blocks = std::move(extra_blocks),
                                   .norm_layer = std::move(norm_layer)}));
}

OrderedDict<Tensor> BackboneWithFPNImpl::forward(const Tensor& x) { return fpn->forward(body->forward(x)); }

BackboneWithFPN resnet_fpn_extractor(const ResNet& backbone, const ResNetFPNExtractorOptions& options) {
  EMBER_CHECK(options.trainable_layers >= 0 && options.trainable_layers <= 5,
              "_resnet_fpn_extractor: Trainable layers should be in the range [0,5], got ", options.trainable_layers);
  std::vector<std::string> layers_to_train = {"layer4", "layer3", "layer2", "layer1", "conv1"};
  layers_to_train.resize(static_cast<size_t>(options.trainable_layers));
  if (options.trainable_layers == 5) layers_to_train.push_back("bn1");
  for (auto& [name, parameter] : backbone->named_parameters()) {
    const bool train = std::any_of(layers_to_train.begin(), layers_to_train.end(),
                                   [&](const std::string& l) { return name.rfind(l, 0) == 0; });
    if (!train) parameter.requires_grad_(false);
  }

  std::vector<int64_t> returned = options.returned_layers.empty() ? std::vector<int64_t>{1, 2, 3, 4}
                                                                  : options.returned_layers;
  const auto [lo, hi] = std::minmax_element(returned.begin(), returned.end());
  if (*lo <= 0 || *hi >= 5) {
    std::string got;
    for (int64_t k : returned) got += (got.empty() ? "" : ", ") + std::to_string(k);
    EMBER_CHECK(false, "_resnet_fpn_extractor: Each returned layer should be in the range [1,4]. Got [", got, "]");
  }
  std::vector<std::pair<std::string, std::string>> return_layers;
  std::vector<int64_t> in_channels_list;
  // torchvision's backbone.inplanes after construction: layer4's output channels.
  const int64_t in_channels_stage2 = backbone->fc->options.in / 8;
  for (size_t v = 0; v < returned.size(); ++v) {
    return_layers.emplace_back("layer" + std::to_string(returned[v]), std::to_string(v));
    in_channels_list.push_back(in_channels_stage2 << (returned[v] - 1));
  }
  return BackboneWithFPN(resnet_children(backbone), std::move(return_layers), std::move(in_channels_list), 256,
                         options.extra_blocks, options.norm_layer);
}

nn::AnyModule frozen_batch_norm_2d(int64_t num_features) {
  return nn::AnyModule(vision::ops::FrozenBatchNorm2d(num_features));
}

BackboneWithFPN resnet_fpn_backbone(const std::string& backbone_name, const ResNetFPNBackboneOptions& options) {
  static const std::map<std::string, std::function<ResNet(const ResNetOptions&)>> builders = {
      {"resnet18", resnet18},
      {"resnet34", resnet34},
      {"resnet50", resnet50},
      {"resnet101", resnet101},
      {"resnet152", resnet152},
      {"resnext50_32x4d", resnext50_32x4d},
      {"resnext101_32x8d", resnext101_32x8d},
      {"resnext101_64x4d", resnext101_64x4d},
      {"wide_resnet50_2", wide_resnet50_2},
      {"wide_resnet101_2", wide_resnet101_2}};
  auto it = builders.find(backbone_name);
  EMBER_CHECK(it != builders.end(), "resnet_fpn_backbone: unknown backbone_name '", backbone_name, "'");
  ResNetOptions resnet_options;
  resnet_options.norm_layer = options.norm_layer ? options.norm_layer
                              : options.frozen_batch_norm ? NormLayer(frozen_batch_norm_2d)
                                                          : NormLayer(batch_norm_2d);
  return resnet_fpn_extractor(it->second(resnet_options), {.trainable_layers = options.trainable_layers,
                                                           .returned_layers = options.returned_layers,
                                                           .extra_blocks = options.extra_blocks});
}

int64_t validate_trainable_layers(bool is_trained, std::optional<int64_t> trainable_backbone_layers,
                                  int64_t max_value, int64_t default_value) {
  // Without trained weights nothing is frozen (torchvision warns when a value was given).
  if (!is_trained) trainable_backbone_layers = max_value;
  const int64_t layers = trainable_backbone_layers.value_or(default_value);
  EMBER_CHECK(layers >= 0 && layers <= max_value, "Trainable backbone layers should be in the range [0,", max_value,
              "], got ", layers);
  return layers;
}

}  // namespace ember::models::detection
