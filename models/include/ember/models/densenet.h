#pragma once
// DenseNet-121/161/169/201 (torchvision.models.densenet, torchvision 0.14):
// the same modules, state_dict keys, shapes and weight initialisation.
//
//   auto net = models::densenet121({.num_classes = 10});
//   Tensor logits = net(images);                       // [N, 3, H, W], H, W >= 29
//
//   // torchvision's published DenseNet weights use the old key names
//   // ("denselayer1.norm.1.weight"): rename them first, as torchvision does.
//   auto sd = models::densenet_rename_legacy_keys(serialize::load_torch_state_dict("densenet121.pth"));
//   net->load_state_dict(sd);
//
// The building blocks (_DenseLayer, _DenseBlock, _Transition) are public.
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/nn/container.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>
#include <ember/nn/modules/pooling.h>

#include "ember/models/classifier.h"

namespace ember::models {

struct DenseLayerOptions {
  int64_t num_input_features = 0;
  int64_t growth_rate = 32;
  int64_t bn_size = 4;
  double drop_rate = 0;
  // Recompute the bottleneck (concatenation, norm1, relu1, conv1) during
  // backward instead of keeping its output (torch.utils.checkpoint in
  // torchvision): less memory, more compute. Used only while a graph is
  // recorded.
  bool memory_efficient = false;
};

// torchvision's _DenseLayer: BN-ReLU-Conv1x1 (bn_size * growth_rate
// channels) then BN-ReLU-Conv3x3 (growth_rate channels), dropout in training.
// Children: norm1, relu1, conv1, norm2, relu2, conv2.
class DenseLayerImpl : public nn::Module {
 public:
  using Options = DenseLayerOptions;
  explicit DenseLayerImpl(const DenseLayerOptions& options);
  // The new features [N, growth_rate, H, W] from the features so far
  // (concatenated along the channels).
  Tensor forward(const std::vector<Tensor>& prev_features);
  Tensor forward(const Tensor& input) { return forward(std::vector<Tensor>{input}); }
  // cat(inputs, 1) -> norm1 -> relu1 -> conv1.
  Tensor bn_function(const std::vector<Tensor>& inputs);
  void pretty_print(std::ostream& os) const override { os << "_DenseLayer()"; }

  DenseLayerOptions options;
  nn::BatchNorm2d norm1{nullptr}, norm2{nullptr};
  nn::ReLU relu1{nullptr}, relu2{nullptr};
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
};
EMBER_MODULE(DenseLayer);

struct DenseBlockOptions {
  int64_t num_layers = 0;
  int64_t num_input_features = 0;
  int64_t bn_size = 4;
  int64_t growth_rate = 32;
  double drop_rate = 0;
  bool memory_efficient = false;
};

// torchvision's _DenseBlock: children denselayer1..denselayerN; each layer
// sees the concatenation of the block input and all previous layers'
// outputs; the block returns the concatenation of all of them
// (num_input_features + num_layers * growth_rate channels).
class DenseBlockImpl : public nn::Module {
 public:
  using Options = DenseBlockOptions;
  explicit DenseBlockImpl(const DenseBlockOptions& options);
  Tensor forward(const Tensor& init_features);
  void pretty_print(std::ostream& os) const override { os << "_DenseBlock()"; }

  std::vector<DenseLayer> layers;
};
EMBER_MODULE(DenseBlock);

// torchvision's _Transition (a Sequential): norm, relu, conv (1x1, no bias),
// pool (AvgPool2d(2, 2)).
class TransitionImpl : public nn::SequentialImpl {
 public:
  TransitionImpl(int64_t num_input_features, int64_t num_output_features);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override { os << "_Transition()"; }

  nn::BatchNorm2d norm{nullptr};
  nn::ReLU relu{nullptr};
  nn::Conv2d conv{nullptr};
  nn::AvgPool2d pool{nullptr};
};
EMBER_MODULE(Transition);

// torchvision's DenseNet arguments.
struct DenseNetOptions {
  int64_t growth_rate = 32;
  std::vector<int64_t> block_config = {6, 12, 24, 16};
  int64_t num_init_features = 64;
  int64_t bn_size = 4;
  double drop_rate = 0;
  int64_t num_classes = 1000;
  bool memory_efficient = false;
};

// Children: features (Sequential: conv0, norm0, relu0, pool0, denseblock1,
// transition1, ..., denseblockK, norm5), classifier (Linear). Forward:
// features, ReLU, global average pool, classifier. Weights: convolutions
// kaiming_normal_ (fan_in), BN weight 1 bias 0, Linear bias 0 (weight:
// PyTorch's Linear default).
class DenseNetImpl : public ImageClassifierImpl {
 public:
  explicit DenseNetImpl(const DenseNetOptions& options = {});
  Tensor forward(const Tensor& x) override;
  void pretty_print(std::ostream& os) const override { os << "DenseNet()"; }

  nn::Sequential features{nullptr};
  nn::Linear classifier{nullptr};
};
EMBER_MODULE(DenseNet);

// The torchvision builders: growth_rate, block_config and num_init_features
// are the variant's (the options' are ignored); the rest comes from options.
DenseNet densenet121(const DenseNetOptions& options = {});  // 32, (6, 12, 24, 16), 64
DenseNet densenet161(const DenseNetOptions& options = {});  // 48, (6, 12, 36, 24), 96
DenseNet densenet169(const DenseNetOptions& options = {});  // 32, (6, 12, 32, 32), 64
DenseNet densenet201(const DenseNetOptions& options = {});  // 32, (6, 12, 48, 32), 64

// Renames the keys of DenseNet checkpoints written before '.' was banned
// from module names ("features.denseblock1.denselayer1.norm.1.weight" ->
// "...denselayer1.norm1.weight"), as torchvision's _load_state_dict does for
// its published weights. Other keys pass through; the order is kept.
OrderedDict<Tensor> densenet_rename_legacy_keys(const OrderedDict<Tensor>& state_dict);

}  // namespace ember::models
