// ShuffleNetV2 as torchvision 0.14's models/shufflenetv2.py.
#include "ember/models/shufflenet_v2.h"

#include <ember/core/error.h>
#include <ember/nn/functional/sampling.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/normalization.h>
#include <ember/ops/shape.h>

#include "model_utils.h"
#include "registry.h"

namespace ember::models {
namespace {

nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding, int64_t groups = 1) {
  return nn::Conv2d(nn::Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = kernel,
                                      .stride = stride, .padding = padding, .groups = groups, .bias = false});
}

// torchvision's InvertedResidual.depthwise_conv.
nn::Conv2d depthwise_conv(int64_t channels, int64_t stride) { return conv(channels, channels, 3, stride, 1, channels); }

}  // namespace

ShuffleNetV2InvertedResidualImpl::ShuffleNetV2InvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride)
    : nn::Module("InvertedResidual"), stride(stride) {
  EMBER_CHECK(stride >= 1 && stride <= 3, "ShuffleNetV2 InvertedResidual: illegal stride value ", stride);
  const int64_t branch_features = oup / 2;
  EMBER_CHECK(stride != 1 || inp == branch_features * 2,
              "ShuffleNetV2 InvertedResidual: Invalid combination of stride ", stride, ", inp ", inp, " and oup ", oup,
              " values. If stride == 1 then inp should be equal to oup // 2 << 1.");
  branch1 = nn::Sequential();
  if (stride > 1) {
    branch1->push_back(depthwise_conv(inp, stride));
    branch1->push_back(nn::BatchNorm2d(inp));
    branch1->push_back(conv(inp, branch_features, 1, 1, 0));
    branch1->push_back(nn::BatchNorm2d(branch_features));
    branch1->push_back(nn::ReLU(true));
  }
  register_module("branch1", branch1);
  branch2 = nn::Sequential(conv(stride > 1 ? inp : branch_features, branch_features, 1, 1, 0),
                           nn::BatchNorm2d(branch_features), nn::ReLU(true), depthwise_conv(branch_features, stride),
                           nn::BatchNorm2d(branch_features), conv(branch_features, branch_features, 1, 1, 0),
                           nn::BatchNorm2d(branch_features), nn::ReLU(true));
  register_module("branch2", branch2);
}

namespace {

// seq(x), with SequentialFusion unless hooks on seq itself must run.
Tensor run(const nn::Sequential& seq, nn::utils::SequentialFusion& fusion, const Tensor& x) {
  if (seq->forward_pre_hooks().empty() && seq->forward_hooks().empty() && !seq->has_forward_setup())
    return fusion.forward(*seq, x);
  return seq(x);
}

}  // namespace

Tensor ShuffleNetV2InvertedResidualImpl::forward(const Tensor& x) {
  Tensor out;
  if (stride == 1) {
    const auto halves = x.chunk(2, 1);
    out = cat({halves[0], run(branch2, fusion2_, halves[1])}, 1);
  } else {
    out = cat({run(branch1, fusion1_, x), run(branch2, fusion2_, x)}, 1);
  }
  return nn::functional::channel_shuffle(out, 2);
}

ShuffleNetV2Impl::ShuffleNetV2Impl(const std::vector<int64_t>& stages_repeats,
                                   const std::vector<int64_t>& stages_out_channels, int64_t num_classes)
    : ImageClassifierImpl("ShuffleNetV2") {
  EMBER_CHECK(stages_repeats.size() == 3, "ShuffleNetV2: expected stages_repeats as list of 3 positive ints, got ",
              stages_repeats.size(), " values");
  EMBER_CHECK(stages_out_channels.size() == 5,
              "ShuffleNetV2: expected stages_out_channels as list of 5 positive ints, got ", stages_out_channels.size(),
              " values");
  for (int64_t r : stages_repeats) EMBER_CHECK(r > 0, "ShuffleNetV2: stages_repeats must be positive, got ", r);
  for (int64_t c : stages_out_channels)
    EMBER_CHECK(c > 0, "ShuffleNetV2: stages_out_channels must be positive, got ", c);
  EMBER_CHECK(num_classes > 0, "ShuffleNetV2: num_classes must be positive, got ", num_classes);

  int64_t input_channels = 3;
  int64_t output_channels = stages_out_channels[0];
  conv1 = register_module("conv1", nn::Sequential(conv(input_channels, output_channels, 3, 2, 1),
                                                  nn::BatchNorm2d(output_channels), nn::ReLU(true)));
  input_channels = output_channels;
  maxpool = register_module("maxpool",
                            nn::MaxPool2d(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1}));
  nn::Sequential* stages[] = {&stage2, &stage3, &stage4};
  for (size_t s = 0; s < 3; ++s) {
    output_channels = stages_out_channels[s + 1];
    nn::Sequential seq;
    seq->push_back(ShuffleNetV2InvertedResidual(input_channels, output_channels, 2));
    for (int64_t i = 0; i < stages_repeats[s] - 1; ++i)
      seq->push_back(ShuffleNetV2InvertedResidual(output_channels, output_channels, 1));
    *stages[s] = register_module("stage" + std::to_string(s + 2), seq);
    input_channels = output_channels;
  }
  output_channels = stages_out_channels.back();
  conv5 = register_module("conv5", nn::Sequential(conv(input_channels, output_channels, 1, 1, 0),
                                                  nn::BatchNorm2d(output_channels), nn::ReLU(true)));
  fc = register_module("fc", nn::Linear(output_channels, num_classes));
}

Tensor ShuffleNetV2Impl::forward(const Tensor& images) {
  detail::check_images(images, "ShuffleNetV2");
  Tensor x = run(conv1, fusion1_, images);
  x = maxpool(x);
  x = stage2(x);
  x = stage3(x);
  x = stage4(x);
  x = run(conv5, fusion5_, x);
  x = x.mean({2, 3});  // global pooling
  return fc(x);
}

ShuffleNetV2 shufflenet_v2_x0_5(const ShuffleNetV2Options& o) {
  return ShuffleNetV2(std::make_shared<ShuffleNetV2Impl>(std::vector<int64_t>{4, 8, 4},
                                                         std::vector<int64_t>{24, 48, 96, 192, 1024}, o.num_classes));
}
ShuffleNetV2 shufflenet_v2_x1_0(const ShuffleNetV2Options& o) {
  return ShuffleNetV2(std::make_shared<ShuffleNetV2Impl>(std::vector<int64_t>{4, 8, 4},
                                                         std::vector<int64_t>{24, 116, 232, 464, 1024}, o.num_classes));
}
ShuffleNetV2 shufflenet_v2_x1_5(const ShuffleNetV2Options& o) {
  return ShuffleNetV2(std::make_shared<ShuffleNetV2Impl>(std::vector<int64_t>{4, 8, 4},
                                                         std::vector<int64_t>{24, 176, 352, 704, 1024}, o.num_classes));
}
ShuffleNetV2 shufflenet_v2_x2_0(const ShuffleNetV2Options& o) {
  return ShuffleNetV2(std::make_shared<ShuffleNetV2Impl>(std::vector<int64_t>{4, 8, 4},
                                                         std::vector<int64_t>{24, 244, 488, 976, 2048}, o.num_classes));
}

}  // namespace ember::models

namespace ember::models::detail {

void register_shufflenet_v2_models(const AddModel& add) {
  using Builder = ShuffleNetV2 (*)(const ShuffleNetV2Options&);
  const std::pair<const char*, Builder> variants[] = {{"shufflenet_v2_x0_5", shufflenet_v2_x0_5},
                                                      {"shufflenet_v2_x1_0", shufflenet_v2_x1_0},
                                                      {"shufflenet_v2_x1_5", shufflenet_v2_x1_5},
                                                      {"shufflenet_v2_x2_0", shufflenet_v2_x2_0}};
  for (const auto& [name, build] : variants)
    add(name, [build](const ModelOptions& o) -> ImageClassifier {
      return build({.num_classes = o.num_classes}).ptr();
    });
}

}  // namespace ember::models::detail
