// Quantizable ResNet / ResNeXt (torchvision/models/quantization/resnet.py,
// torchvision 0.14). The architecture, names and weight init are the float
// ResNet's (models/src/resnet.cpp); what differs is that every child is
// called through a swappable handle, the residual addition goes through a
// FloatFunctional (add_relu), and the Bottleneck has one ReLU per use.
#include "ember/models/quantization/resnet.h"

#include <ember/ao/quantization/quant_markers.h>
#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/normalization.h>

#include "../layer_utils.h"

namespace ember::models::quantization {

namespace aoq = ember::ao::quantization;

namespace {
int64_t bottleneck_width(const BlockOptions& o) {
  return static_cast<int64_t>(static_cast<double>(o.planes) * (static_cast<double>(o.base_width) / 64.0)) * o.groups;
}
nn::AnyModule bn(int64_t c) { return nn::AnyModule(nn::BatchNorm2d(c)); }

void fuse_downsample(QuantizableModuleImpl& block, std::optional<bool> is_qat) {
  if (block.has_child("downsample")) fuse_groups(*block.child("downsample").ptr(), {{"0", "1"}}, is_qat);
}
}  // namespace

// ---- QuantizableBasicBlock ----

QuantizableBasicBlockImpl::QuantizableBasicBlockImpl(const BlockOptions& o)
    : QuantizableModuleImpl("QuantizableBasicBlock") {
  EMBER_CHECK(o.groups == 1 && o.base_width == 64, "QuantizableBasicBlock only supports groups=1 and base_width=64, got groups=",
              o.groups, " and base_width=", o.base_width);
  EMBER_CHECK(o.dilation <= 1, "QuantizableBasicBlock: Dilation > 1 not supported (got dilation=", o.dilation, ")");
  EMBER_CHECK(o.norm_layer == nullptr, "QuantizableBasicBlock: only BatchNorm2d norm layers can be fused");
  add("conv1", nn::AnyModule(conv3x3(o.inplanes, o.planes, o.stride)));
  add("bn1", bn(o.planes));
  add("relu", nn::AnyModule(nn::ReLU(true)));
  add("conv2", nn::AnyModule(conv3x3(o.planes, o.planes)));
  add("bn2", bn(o.planes));
  if (o.downsample) add("downsample", nn::AnyModule(o.downsample));
  add_functional("add_relu");
}

Tensor QuantizableBasicBlockImpl::forward(const Tensor& x) {
  Tensor out = run("relu", run("bn1", run("conv1", x)));
  out = run("bn2", run("conv2", out));
  const Tensor identity = has_child("downsample") ? run("downsample", x) : x;
  return functional("add_relu").add_relu(out, identity);
}

void QuantizableBasicBlockImpl::fuse_model(std::optional<bool> is_qat) {
  fuse_groups(*this, {{"conv1", "bn1", "relu"}, {"conv2", "bn2"}}, is_qat);
  fuse_downsample(*this, is_qat);
}

// ---- QuantizableBottleneck ----

QuantizableBottleneckImpl::QuantizableBottleneckImpl(const BlockOptions& o)
    : QuantizableModuleImpl("QuantizableBottleneck") {
  EMBER_CHECK(o.norm_layer == nullptr, "QuantizableBottleneck: only BatchNorm2d norm layers can be fused");
  const int64_t width = bottleneck_width(o);
  EMBER_CHECK(width > 0, "QuantizableBottleneck: the inner width must be positive, got ", width);
  add("conv1", nn::AnyModule(conv1x1(o.inplanes, width)));
  add("bn1", bn(width));
  add("conv2", nn::AnyModule(conv3x3(width, width, o.stride, o.groups, o.dilation)));
  add("bn2", bn(width));
  add("conv3", nn::AnyModule(conv1x1(width, o.planes * expansion)));
  add("bn3", bn(o.planes * expansion));
  add("relu", nn::AnyModule(nn::ReLU(true)));
  if (o.downsample) add("downsample", nn::AnyModule(o.downsample));
  add_functional("skip_add_relu");
  add("relu1", nn::AnyModule(nn::ReLU(false)));
  add("relu2", nn::AnyModule(nn::ReLU(false)));
}

Tensor QuantizableBottleneckImpl::forward(const Tensor& x) {
  Tensor out = run("relu1", run("bn1", run("conv1", x)));
  out = run("relu2", run("bn2", run("conv2", out)));
  out = run("bn3", run("conv3", out));
  const Tensor identity = has_child("downsample") ? run("downsample", x) : x;
  return functional("skip_add_relu").add_relu(out, identity);
}

void QuantizableBottleneckImpl::fuse_model(std::optional<bool> is_qat) {
  fuse_groups(*this, {{"conv1", "bn1", "relu1"}, {"conv2", "bn2", "relu2"}, {"conv3", "bn3"}}, is_qat);
  fuse_downsample(*this, is_qat);
}

// ---- QuantizableResNet ----

QuantizableResNetImpl::QuantizableResNetImpl(bool bottleneck, const std::vector<int64_t>& layers,
                                             const ResNetOptions& o)
    : QuantizableModuleImpl("QuantizableResNet"), groups_(o.groups), base_width_(o.width_per_group) {
  EMBER_CHECK(layers.size() == 4, "QuantizableResNet: layers must have 4 entries, got ", layers.size());
  for (int64_t n : layers) EMBER_CHECK(n >= 1, "QuantizableResNet: every layer needs at least one block, got ", n);
  EMBER_CHECK(o.replace_stride_with_dilation.size() == 3,
              "QuantizableResNet: replace_stride_with_dilation should be a 3-element tuple, got ",
              o.replace_stride_with_dilation.size(), " elements");
  EMBER_CHECK(o.num_classes > 0, "QuantizableResNet: num_classes must be positive, got ", o.num_classes);
  EMBER_CHECK(o.norm_layer == nullptr, "QuantizableResNet: only BatchNorm2d norm layers can be fused");
  add("conv1", nn::AnyModule(nn::Conv2d(
                   {.in_channels = 3, .out_channels = 64, .kernel_size = 7, .stride = 2, .padding = 3, .bias = false})));
  add("bn1", bn(64));
  add("relu", nn::AnyModule(nn::ReLU(true)));
  add("maxpool", nn::AnyModule(nn::MaxPool2d({.kernel_size = 3, .stride = 2, .padding = 1})));
  const auto& dilate = o.replace_stride_with_dilation;
  add("layer1", nn::AnyModule(make_layer(bottleneck, 64, layers[0], 1, false)));
  add("layer2", nn::AnyModule(make_layer(bottleneck, 128, layers[1], 2, dilate[0])));
  add("layer3", nn::AnyModule(make_layer(bottleneck, 256, layers[2], 2, dilate[1])));
  add("layer4", nn::AnyModule(make_layer(bottleneck, 512, layers[3], 2, dilate[2])));
  add("avgpool", nn::AnyModule(nn::AdaptiveAvgPool2d({1, 1})));
  const int64_t expansion = bottleneck ? QuantizableBottleneckImpl::expansion : QuantizableBasicBlockImpl::expansion;
  add("fc", nn::AnyModule(nn::Linear(512 * expansion, o.num_classes)));
  add("quant", nn::AnyModule(aoq::QuantMarker()));
  add("dequant", nn::AnyModule(aoq::DeQuantMarker()));

  // torchvision's ResNet init (the float model's, models/src/resnet.cpp).
  for (const auto& m : modules()) {
    if (auto* conv = dynamic_cast<nn::Conv2dImpl*>(m.get())) {
      nn::init::kaiming_normal_(conv->weight, 0, nn::init::FanMode::FanOut, "relu");
    } else if (dynamic_cast<nn::BatchNorm2dImpl*>(m.get())) {
      detail::init_norm_affine(*m);
    }
  }
  if (o.zero_init_residual) {
    for (const auto& [name, m] : named_modules()) {
      const bool basic = dynamic_cast<QuantizableBasicBlockImpl*>(m.get()) != nullptr;
      const bool bottle = dynamic_cast<QuantizableBottleneckImpl*>(m.get()) != nullptr;
      if (!basic && !bottle) continue;
      auto& q = static_cast<QuantizableModuleImpl&>(*m);
      if (Tensor w = detail::own_tensor(*q.child(basic ? "bn2" : "bn3").ptr(), "weight"); w.defined())
        nn::init::zeros_(w);
    }
  }
}

nn::Sequential QuantizableResNetImpl::make_layer(bool bottleneck, int64_t planes, int64_t blocks, int64_t stride,
                                                 bool dilate) {
  const int64_t expansion = bottleneck ? QuantizableBottleneckImpl::expansion : QuantizableBasicBlockImpl::expansion;
  auto make = [bottleneck](const BlockOptions& bo) {
    return bottleneck ? nn::AnyModule(QuantizableBottleneck(bo)) : nn::AnyModule(QuantizableBasicBlock(bo));
  };
  nn::Sequential downsample{nullptr};
  const int64_t previous_dilation = dilation_;
  if (dilate) {
    dilation_ *= stride;
    stride = 1;
  }
  if (stride != 1 || inplanes_ != planes * expansion) {
    downsample = nn::Sequential(conv1x1(inplanes_, planes * expansion, stride), nn::BatchNorm2d(planes * expansion));
  }
  nn::Sequential layer;
  layer->push_back(make({.inplanes = inplanes_,
                         .planes = planes,
                         .stride = stride,
                         .downsample = downsample,
                         .groups = groups_,
                         .base_width = base_width_,
                         .dilation = previous_dilation}));
  inplanes_ = planes * expansion;
  for (int64_t i = 1; i < blocks; ++i) {
    layer->push_back(make({.inplanes = inplanes_,
                           .planes = planes,
                           .groups = groups_,
                           .base_width = base_width_,
                           .dilation = dilation_}));
  }
  return layer;
}

Tensor QuantizableResNetImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 4, "QuantizableResNet: expected a 4-d input [N, 3, H, W], got sizes ", input.sizes());
  Tensor x = run("quant", input);
  x = run("maxpool", run("relu", run("bn1", run("conv1", x))));
  for (const char* layer : {"layer1", "layer2", "layer3", "layer4"}) x = run(layer, x);
  x = run("avgpool", x).flatten(1);
  return run("dequant", run("fc", x));
}

void QuantizableResNetImpl::fuse_model(std::optional<bool> is_qat) {
  fuse_groups(*this, {{"conv1", "bn1", "relu"}}, is_qat);
  fuse_descendants(is_qat);
}

// ---- builders ----

namespace {
ResNetOptions with_width(ResNetOptions o, int64_t groups, int64_t width_per_group) {
  o.groups = groups;
  o.width_per_group = width_per_group;
  return o;
}
}  // namespace

QuantizableResNet resnet18(const ResNetOptions& o) { return QuantizableResNet(false, std::vector<int64_t>{2, 2, 2, 2}, o); }
QuantizableResNet resnet50(const ResNetOptions& o) { return QuantizableResNet(true, std::vector<int64_t>{3, 4, 6, 3}, o); }
QuantizableResNet resnext101_32x8d(const ResNetOptions& o) {
  return QuantizableResNet(true, std::vector<int64_t>{3, 4, 23, 3}, with_width(o, 32, 8));
}
QuantizableResNet resnext101_64x4d(const ResNetOptions& o) {
  return QuantizableResNet(true, std::vector<int64_t>{3, 4, 23, 3}, with_width(o, 64, 4));
}

}  // namespace ember::models::quantization
