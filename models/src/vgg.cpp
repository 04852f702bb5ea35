// VGG family (torchvision/models/vgg.py, torchvision 0.14).
#include "ember/models/vgg.h"

#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>

#include "layer_utils.h"
#include "registry.h"

namespace ember::models {

const std::vector<int64_t>& vgg_cfg(char name) {
  constexpr int64_t M = kVggMaxPool;
  static const std::vector<int64_t> a = {64, M, 128, M, 256, 256, M, 512, 512, M, 512, 512, M};
  static const std::vector<int64_t> b = {64, 64, M, 128, 128, M, 256, 256, M, 512, 512, M, 512, 512, M};
  static const std::vector<int64_t> d = {64,  64,  M,   128, 128, M,   256, 256, 256,
                                         M,   512, 512, 512, M,   512, 512, 512, M};
  static const std::vector<int64_t> e = {64,  64,  M,   128, 128, M,   256, 256, 256, 256, M,
                                         512, 512, 512, 512, M,   512, 512, 512, 512, M};
  switch (name) {
    case 'A': return a;
    case 'B': return b;
    case 'D': return d;
    case 'E': return e;
    default: EMBER_FAIL("vgg_cfg: unknown configuration '", name, "' (expected 'A', 'B', 'D' or 'E')");
  }
}

nn::Sequential make_vgg_layers(const std::vector<int64_t>& cfg, bool batch_norm) {
  nn::Sequential layers;
  int64_t in_channels = 3;
  for (int64_t v : cfg) {
    if (v == kVggMaxPool) {
      layers->push_back(nn::MaxPool2d({.kernel_size = 2, .stride = 2}));
      continue;
    }
    EMBER_CHECK(v > 0, "make_vgg_layers: channel counts must be positive (or kVggMaxPool), got ", v);
    layers->push_back(nn::Conv2d({.in_channels = in_channels, .out_channels = v, .kernel_size = 3, .padding = 1}));
    if (batch_norm) layers->push_back(nn::BatchNorm2d(v));
    layers->push_back(nn::ReLU(true));
    in_channels = v;
  }
  return layers;
}

VGGImpl::VGGImpl(nn::Sequential features_, const VGGOptions& options) : ImageClassifierImpl("VGG") {
  EMBER_CHECK(features_, "VGG: features must be a module (got an empty holder)");
  EMBER_CHECK(options.num_classes > 0, "VGG: num_classes must be positive, got ", options.num_classes);
  EMBER_CHECK(options.dropout >= 0 && options.dropout <= 1, "VGG: dropout probability has to be between 0 and 1, but got ",
              options.dropout);
  features = register_module("features", features_);
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d({7, 7}));
  classifier = register_module(
      "classifier", nn::Sequential(nn::Linear(512 * 7 * 7, 4096), nn::ReLU(true), nn::Dropout(options.dropout),
                                   nn::Linear(4096, 4096), nn::ReLU(true), nn::Dropout(options.dropout),
                                   nn::Linear(4096, options.num_classes)));
  if (!options.init_weights) return;
  for (const auto& m : modules()) {
    if (auto* conv = dynamic_cast<nn::Conv2dImpl*>(m.get())) {
      nn::init::kaiming_normal_(conv->weight, 0, nn::init::FanMode::FanOut, "relu");
      if (conv->bias.defined()) nn::init::constant_(conv->bias, 0);
    } else if (dynamic_cast<nn::BatchNorm2dImpl*>(m.get())) {
      detail::init_norm_affine(*m);
    } else if (auto* linear = dynamic_cast<nn::LinearImpl*>(m.get())) {
      nn::init::normal_(linear->weight, 0, 0.01);
      nn::init::constant_(linear->bias, 0);
    }
  }
}

Tensor VGGImpl::forward(const Tensor& x) {
  EMBER_CHECK(x.dim() == 4, "VGG: expected a 4-d input [N, 3, H, W], got sizes ", x.sizes());
  return classifier(avgpool(features(x)).flatten(1));
}

namespace {
VGG make_vgg(char cfg, bool batch_norm, const VGGOptions& options) {
  return VGG(make_vgg_layers(vgg_cfg(cfg), batch_norm), options);
}
}  // namespace

VGG vgg11(const VGGOptions& o) { return make_vgg('A', false, o); }
VGG vgg11_bn(const VGGOptions& o) { return make_vgg('A', true, o); }
VGG vgg13(const VGGOptions& o) { return make_vgg('B', false, o); }
VGG vgg13_bn(const VGGOptions& o) { return make_vgg('B', true, o); }
VGG vgg16(const VGGOptions& o) { return make_vgg('D', false, o); }
VGG vgg16_bn(const VGGOptions& o) { return make_vgg('D', true, o); }
VGG vgg19(const VGGOptions& o) { return make_vgg('E', false, o); }
VGG vgg19_bn(const VGGOptions& o) { return make_vgg('E', true, o); }

namespace detail {
void register_vgg_models(const AddModel& add) {
  using Builder = VGG (*)(const VGGOptions&);
  const std::pair<const char*, Builder> builders[] = {
      {"vgg11", vgg11}, {"vgg11_bn", vgg11_bn}, {"vgg13", vgg13}, {"vgg13_bn", vgg13_bn},
      {"vgg16", vgg16}, {"vgg16_bn", vgg16_bn}, {"vgg19", vgg19}, {"vgg19_bn", vgg19_bn},
  };
  for (const auto& [name, builder] : builders) {
    add(name, [builder](const ModelOptions& o) -> ImageClassifier {
      return builder({.num_classes = o.num_classes, .dropout = o.dropout.value_or(0.5)}).ptr();
    });
  }
}
}  // namespace detail

}  // namespace ember::models
