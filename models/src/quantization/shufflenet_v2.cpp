// Quantizable ShuffleNetV2 (torchvision/models/quantization/shufflenetv2.py,
// torchvision 0.14). Architecture and names follow the float model
// (models/src/shufflenet_v2.cpp; PyTorch's default init, as torchvision).
#include "ember/models/quantization/shufflenet_v2.h"

#include <ember/ao/nn/quantized/functional.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/core/error.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/pooling.h>
#include <ember/nn/modules/normalization.h>
#include <ember/ops/quantize.h>

namespace ember::models::quantization {

namespace aoq = ember::ao::quantization;

namespace {
nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding, int64_t groups = 1) {
  return nn::Conv2d(nn::Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = kernel,
                                      .stride = stride, .padding = padding, .groups = groups, .bias = false});
}
nn::Conv2d depthwise_conv(int64_t channels, int64_t stride) { return conv(channels, channels, 3, stride, 1, channels); }

// torchvision's channel_shuffle: view, transpose, contiguous, view. On a
// quantized tensor these are Ember's quantized views (parameters kept).
Tensor channel_shuffle(const Tensor& x, int64_t groups) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  return x.view({n, groups, c / groups, h, w}).transpose(1, 2).contiguous().view({n, -1, h, w});
}

// x.mean([2, 3]). For a quantized tensor torch 1.13 takes one of two paths:
// contiguous (NCHW) input goes to its integer kernel (the average pooling's,
// as adaptive_avg_pool2d), channels-last input (what its quantized
// convolutions return, and so conv5's output here) is dequantized, summed in
// float32 over H then W in order (the reduced dims are outer in memory),
// divided by H * W (its CPU mean is sum().div_()) and requantized with the
// input's parameters. Ember's convolutions return channels-last too, so the
// second path is what the model meets; it is spelled out so the float32
// additions happen in torch's order. (For more than 16 positions torch's
// cascade sum may group them differently: one quantum at most.)
Tensor spatial_mean(const Tensor& x) {
  if (!x.is_quantized()) return x.mean({2, 3});
  if (x.is_contiguous()) return ao::nn::quantized::functional::adaptive_avg_pool2d(x, 1).flatten(1);
  const Tensor d = x.dequantize();
  Tensor sum = d.select(3, 0).select(2, 0).clone();
  for (int64_t h = 0; h < d.size(2); ++h)
    for (int64_t w = (h == 0 ? 1 : 0); w < d.size(3); ++w) sum.add_(d.select(3, w).select(2, h));
  sum.div_(static_cast<double>(d.size(2) * d.size(3)));
  return quantize_per_tensor(sum, x.q_scale(), x.q_zero_point(), x.dtype());
}
}  // namespace

QuantizableShuffleInvertedResidualImpl::QuantizableShuffleInvertedResidualImpl(int64_t inp, int64_t oup, int64_t s)
    : QuantizableModuleImpl("QuantizableInvertedResidual"), stride(s) {
  EMBER_CHECK(stride >= 1 && stride <= 3, "ShuffleNetV2 InvertedResidual: illegal stride value ", stride);
  const int64_t branch_features = oup / 2;
  EMBER_CHECK(stride != 1 || inp == branch_features * 2,
              "ShuffleNetV2 InvertedResidual: Invalid combination of stride ", stride, ", inp ", inp, " and oup ", oup,
              " values. If stride == 1 then inp should be equal to oup // 2 << 1.");
  nn::Sequential branch1;
  if (stride > 1) {
    branch1->push_back(depthwise_conv(inp, stride));
    branch1->push_back(nn::BatchNorm2d(inp));
    branch1->push_back(conv(inp, branch_features, 1, 1, 0));
    branch1->push_back(nn::BatchNorm2d(branch_features));
    branch1->push_back(nn::ReLU());
  }
  add("branch1", nn::AnyModule(branch1));
  add("branch2", nn::AnyModule(nn::Sequential(
                     conv(stride > 1 ? inp : branch_features, branch_features, 1, 1, 0), nn::BatchNorm2d(branch_features),
                     nn::ReLU(), depthwise_conv(branch_features, stride), nn::BatchNorm2d(branch_features),
                     conv(branch_features, branch_features, 1, 1, 0), nn::BatchNorm2d(branch_features), nn::ReLU())));
  add_functional("cat");
}

Tensor QuantizableShuffleInvertedResidualImpl::forward(const Tensor& x) {
  Tensor out;
  if (stride == 1) {
    const auto halves = x.chunk(2, 1);
    out = functional("cat").cat({halves[0], run("branch2", halves[1])}, 1);
  } else {
    out = functional("cat").cat({run("branch1", x), run("branch2", x)}, 1);
  }
  return channel_shuffle(out, 2);
}

void QuantizableShuffleInvertedResidualImpl::fuse_model(std::optional<bool> is_qat) {
  if (stride > 1) fuse_groups(*child("branch1").ptr(), {{"0", "1"}, {"2", "3", "4"}}, is_qat);
  fuse_groups(*child("branch2").ptr(), {{"0", "1", "2"}, {"3", "4"}, {"5", "6", "7"}}, is_qat);
}

QuantizableShuffleNetV2Impl::QuantizableShuffleNetV2Impl(const std::vector<int64_t>& repeats,
                                                         const std::vector<int64_t>& channels, int64_t num_classes)
    : QuantizableModuleImpl("QuantizableShuffleNetV2") {
  EMBER_CHECK(repeats.size() == 3, "ShuffleNetV2: expected stages_repeats as list of 3 positive ints, got ",
              repeats.size(), " values");
  EMBER_CHECK(channels.size() == 5, "ShuffleNetV2: expected stages_out_channels as list of 5 positive ints, got ",
              channels.size(), " values");
  for (int64_t r : repeats) EMBER_CHECK(r > 0, "ShuffleNetV2: stages_repeats must be positive, got ", r);
  EMBER_CHECK(num_classes > 0, "ShuffleNetV2: num_classes must be positive, got ", num_classes);
  int64_t input_channels = 3;
  int64_t output_channels = channels[0];
  add("conv1", nn::AnyModule(nn::Sequential(conv(input_channels, output_channels, 3, 2, 1),
                                            nn::BatchNorm2d(output_channels), nn::ReLU())));
  input_channels = output_channels;
  add("maxpool", nn::AnyModule(nn::MaxPool2d(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1})));
  for (size_t s = 0; s < 3; ++s) {
    output_channels = channels[s + 1];
    nn::Sequential seq;
    seq->push_back(QuantizableShuffleInvertedResidual(input_channels, output_channels, 2));
    for (int64_t i = 0; i < repeats[s] - 1; ++i)
      seq->push_back(QuantizableShuffleInvertedResidual(output_channels, output_channels, 1));
    add("stage" + std::to_string(s + 2), nn::AnyModule(seq));
    input_channels = output_channels;
  }
  output_channels = channels.back();
  add("conv5", nn::AnyModule(nn::Sequential(conv(input_channels, output_channels, 1, 1, 0),
                                            nn::BatchNorm2d(output_channels), nn::ReLU())));
  add("fc", nn::AnyModule(nn::Linear(output_channels, num_classes)));
  add("quant", nn::AnyModule(aoq::QuantMarker()));
  add("dequant", nn::AnyModule(aoq::DeQuantMarker()));
}

Tensor QuantizableShuffleNetV2Impl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 4, "QuantizableShuffleNetV2: expected a 4-d input [N, 3, H, W], got sizes ",
              input.sizes());
  Tensor x = run("maxpool", run("conv1", run("quant", input)));
  for (const char* stage : {"stage2", "stage3", "stage4"}) x = run(stage, x);
  x = spatial_mean(run("conv5", x));
  return run("dequant", run("fc", x));
}

void QuantizableShuffleNetV2Impl::fuse_model(std::optional<bool> is_qat) {
  fuse_groups(*child("conv1").ptr(), {{"0", "1", "2"}}, is_qat);
  fuse_groups(*child("conv5").ptr(), {{"0", "1", "2"}}, is_qat);
  fuse_descendants(is_qat);
}

namespace {
QuantizableShuffleNetV2 build(std::vector<int64_t> channels, const ShuffleNetV2Options& o) {
  return QuantizableShuffleNetV2(std::vector<int64_t>{4, 8, 4}, channels, o.num_classes);
}
}  // namespace

QuantizableShuffleNetV2 shufflenet_v2_x0_5(const ShuffleNetV2Options& o) { return build({24, 48, 96, 192, 1024}, o); }
QuantizableShuffleNetV2 shufflenet_v2_x1_0(const ShuffleNetV2Options& o) { return build({24, 116, 232, 464, 1024}, o); }
QuantizableShuffleNetV2 shufflenet_v2_x1_5(const ShuffleNetV2Options& o) { return build({24, 176, 352, 704, 1024}, o); }
QuantizableShuffleNetV2 shufflenet_v2_x2_0(const ShuffleNetV2Options& o) { return build({24, 244, 488, 976, 2048}, o); }

}  // namespace ember::models::quantization
