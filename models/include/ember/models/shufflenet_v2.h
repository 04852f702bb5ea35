#pragma once
// ShuffleNetV2 (torchvision.models.shufflenet_v2_x0_5 ... _x2_0, "ShuffleNet
// V2: Practical Guidelines for Efficient CNN Architecture Design",
// https://arxiv.org/abs/1807.11164), with torchvision 0.14's layers, parameter
// names and (PyTorch's default) weight initialisation.
//
//   auto net = models::shufflenet_v2_x1_0({.num_classes = 10});
#include <vector>

#include <ember/models/classifier.h>
#include <ember/nn/container.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/pooling.h>
#include <ember/nn/utils/fusion.h>

namespace ember::models {

// torchvision's shufflenetv2.InvertedResidual: with stride 1 the input's
// channels are split in two halves, one passed through `branch2`; with
// stride > 1 both `branch1` and `branch2` see the whole input. The two results
// are concatenated and their channels shuffled (2 groups). In inference the
// branches' Conv2d -> BatchNorm2d (-> ReLU) runs are folded convolutions
// (nn::utils::SequentialFusion), as in ShuffleNetV2's conv1 and conv5.
class ShuffleNetV2InvertedResidualImpl : public nn::Module {
 public:
  ShuffleNetV2InvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride);
  Tensor forward(const Tensor& x);

  int64_t stride;
  nn::Sequential branch1{nullptr}, branch2{nullptr};

 private:
  nn::utils::SequentialFusion fusion1_, fusion2_;
};
EMBER_MODULE(ShuffleNetV2InvertedResidual);

struct ShuffleNetV2Options {
  int64_t num_classes = 1000;
};

// Children conv1, maxpool, stage2, stage3, stage4, conv5, fc (global mean
// pooling before fc).
class ShuffleNetV2Impl : public ImageClassifierImpl {
 public:
  // stages_repeats: 3 values; stages_out_channels: 5 values.
  ShuffleNetV2Impl(const std::vector<int64_t>& stages_repeats, const std::vector<int64_t>& stages_out_channels,
                   int64_t num_classes = 1000);
  Tensor forward(const Tensor& images) override;

  nn::Sequential conv1{nullptr}, stage2{nullptr}, stage3{nullptr}, stage4{nullptr}, conv5{nullptr};
  nn::MaxPool2d maxpool{nullptr};
  nn::Linear fc{nullptr};

 private:
  nn::utils::SequentialFusion fusion1_, fusion5_;
};
EMBER_MODULE(ShuffleNetV2);

ShuffleNetV2 shufflenet_v2_x0_5(const ShuffleNetV2Options& options = {});
ShuffleNetV2 shufflenet_v2_x1_0(const ShuffleNetV2Options& options = {});
ShuffleNetV2 shufflenet_v2_x1_5(const ShuffleNetV2Options& options = {});
ShuffleNetV2 shufflenet_v2_x2_0(const ShuffleNetV2Options& options = {});

}  // namespace ember::models
