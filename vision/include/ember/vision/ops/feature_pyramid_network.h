#pragma once
// torchvision.ops.FeaturePyramidNetwork (https://arxiv.org/abs/1612.03144)
// with its extra blocks LastLevelMaxPool and LastLevelP6P7. Module names are
// torchvision's ("inner_blocks.0.0.weight", "layer_blocks.2.0.bias",
// "extra_blocks.p6.weight"), so its state_dicts load as they are.
//
//   vision::ops::FeaturePyramidNetwork fpn({.in_channels_list = {512, 1024, 2048}, .out_channels = 256,
//                                           .extra_blocks = vision::ops::LastLevelP6P7(256, 256).ptr()});
//   OrderedDict<Tensor> out = fpn->forward(features);   // {"0": ..., "1": ..., "2": ..., "p6": ..., "p7": ...}
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/core/tensor.h>
#include <ember/nn/container.h>
#include <ember/nn/module.h>
#include <ember/nn/modules/conv.h>

#include "ember/vision/ops/misc.h"

namespace ember::vision::ops {

// torchvision's ExtraFPNBlock: adds levels after the pyramid's. results: the
// FPN's outputs (finest first), x: its inputs, names: the outputs' names;
// appends to results and names.
class ExtraFPNBlockImpl : public nn::Module {
 public:
  using nn::Module::Module;
  virtual void extend(std::vector<Tensor>& results, const std::vector<Tensor>& x, std::vector<std::string>& names) = 0;
};

// "pool": max_pool2d(last result, kernel 1, stride 2).
class LastLevelMaxPoolImpl : public ExtraFPNBlockImpl {
 public:
  LastLevelMaxPoolImpl();
  void extend(std::vector<Tensor>& results, const std::vector<Tensor>& x, std::vector<std::string>& names) override;
};
EMBER_MODULE(LastLevelMaxPool);

// "p6" = p6(P5 or C5), "p7" = p7(relu(p6)): 3x3 stride-2 convolutions (RetinaNet's
// P6/P7). P5 (the last result) feeds p6 when in_channels == out_channels,
// otherwise C5 (the last input). Weights kaiming_uniform_(a = 1), biases 0.
class LastLevelP6P7Impl : public ExtraFPNBlockImpl {
 public:
  LastLevelP6P7Impl(int64_t in_channels, int64_t out_channels);
  void extend(std::vector<Tensor>& results, const std::vector<Tensor>& x, std::vector<std::string>& names) override;
  nn::Conv2d p6{nullptr}, p7{nullptr};
  bool use_P5;
};
EMBER_MODULE(LastLevelP6P7);

struct FeaturePyramidNetworkOptions {
  // Channels of each input level, finest first (none may be 0).
  std::vector<int64_t> in_channels_list;
  int64_t out_channels = 0;
  // Appended levels (LastLevelMaxPool, LastLevelP6P7, or a subclass); null: none.
  std::shared_ptr<ExtraFPNBlockImpl> extra_blocks = nullptr;
  // Normalization after each convolution (None: none, convolutions with bias).
  NormLayer norm_layer = nullptr;
};

// inner_blocks[i]: 1x1 convolution of input i to out_channels; layer_blocks[i]:
// 3x3 convolution of the merged map. forward: top-down from the coarsest
// level, each lateral plus the coarser merged map upsampled (nearest) to the
// lateral's size. Convolution weights kaiming_uniform_(a = 1), biases 0, as torchvision.
class FeaturePyramidNetworkImpl : public nn::Module {
 public:
  using Options = FeaturePyramidNetworkOptions;
  explicit FeaturePyramidNetworkImpl(const FeaturePyramidNetworkOptions& options);
  // x: the levels by name, finest first; returns the outputs under the same
  // names (then the extra blocks').
  OrderedDict<Tensor> forward(const OrderedDict<Tensor>& x);

  nn::ModuleList inner_blocks, layer_blocks;
  std::shared_ptr<ExtraFPNBlockImpl> extra_blocks;
};
EMBER_MODULE(FeaturePyramidNetwork);

}  // namespace ember::vision::ops
