// ResNet family (torchvision/models/resnet.py, torchvision 0.14).
#include "ember/models/resnet.h"

#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/normalization.h>

#include "layer_utils.h"
#include "registry.h"

namespace ember::models {

nn::AnyModule batch_norm_2d(int64_t num_features) { return nn::AnyModule(nn::BatchNorm2d(num_features)); }

namespace {
nn::AnyModule make_norm(const NormLayer& norm_layer, int64_t num_features) {
  return norm_layer ? norm_layer(num_features) : batch_norm_2d(num_features);
}

// Bottleneck's inner width (torchvision: int(planes * (base_width / 64.0)) * groups).
int64_t bottleneck_width(const BlockOptions& o) {
  return static_cast<int64_t>(static_cast<double>(o.planes) * (static_cast<double>(o.base_width) / 64.0)) * o.groups;
}

const BlockOptions& check_basic(const BlockOptions& o) {
  EMBER_CHECK(o.groups == 1 && o.base_width == 64, "BasicBlock only supports groups=1 and base_width=64, got groups=",
              o.groups, " and base_width=", o.base_width);
  EMBER_CHECK(o.dilation <= 1, "BasicBlock: Dilation > 1 not supported in BasicBlock (got dilation=", o.dilation, ")");
  return o;
}

const BlockOptions& check_block(const BlockOptions& o, const char* name) {
  EMBER_CHECK(o.inplanes > 0 && o.planes > 0, name, ": inplanes and planes must be positive, got inplanes=",
              o.inplanes, " and planes=", o.planes);
  EMBER_CHECK(o.stride >= 1 && o.groups >= 1 && o.dilation >= 1 && o.base_width >= 1, name,
              ": stride, groups, dilation and base_width must be positive, got stride=", o.stride, ", groups=",
              o.groups, ", dilation=", o.dilation, ", base_width=", o.base_width);
  return o;
}

// Zeroes the `weight` of a norm layer (a no-op for norm layers without one,
// as torchvision's `m.bn3.weight is not None`).
void zero_norm_weight(nn::AnyModule& norm) {
  if (Tensor w = detail::own_tensor(*norm.ptr(), "weight"); w.defined()) nn::init::zeros_(w);
}
}  // namespace

nn::Conv2d conv3x3(int64_t in_planes, int64_t out_planes, int64_t stride, int64_t groups, int64_t dilation) {
  return nn::Conv2d({.in_channels = in_planes,
                     .out_channels = out_planes,
                     .kernel_size = 3,
                     .stride = stride,
                     .padding = dilation,
                     .dilation = dilation,
                     .groups = groups,
                     .bias = false});
}

nn::Conv2d conv1x1(int64_t in_planes, int64_t out_planes, int64_t stride) {
  return nn::Conv2d(
      {.in_channels = in_planes, .out_channels = out_planes, .kernel_size = 1, .stride = stride, .bias = false});
}

// ---- BasicBlock ----

BasicBlockImpl::BasicBlockImpl(const BlockOptions& options)
    : nn::Module("BasicBlock"),
      bn1(make_norm(check_basic(check_block(options, "BasicBlock")).norm_layer, options.planes)),
      bn2(make_norm(options.norm_layer, options.planes)),
      stride(options.stride) {
  conv1 = register_module("conv1", conv3x3(options.inplanes, options.planes, options.stride));
  register_module("bn1", bn1.ptr());
  relu = register_module("relu", nn::ReLU(true));
  conv2 = register_module("conv2", conv3x3(options.planes, options.planes));
  register_module("bn2", bn2.ptr());
  if (options.downsample) downsample = register_module("downsample", options.downsample);
}

Tensor BasicBlockImpl::forward(const Tensor& x) {
  Tensor out = detail::relu(relu, bn1.forward(conv1(x)));
  out = bn2.forward(conv2(out));
  const Tensor identity = downsample ? downsample(x) : x;
  return detail::relu(relu, detail::add_residual(out, identity));
}

// ---- Bottleneck ----

BottleneckImpl::BottleneckImpl(const BlockOptions& options)
    : nn::Module("Bottleneck"),
      bn1(make_norm(check_block(options, "Bottleneck").norm_layer, bottleneck_width(options))),
      bn2(make_norm(options.norm_layer, bottleneck_width(options))),
      bn3(make_norm(options.norm_layer, options.planes * expansion)),
      stride(options.stride) {
  const int64_t width = bottleneck_width(options);
  EMBER_CHECK(width > 0, "Bottleneck: the inner width int(planes * base_width / 64) * groups must be positive, got ",
              width, " (planes=", options.planes, ", base_width=", options.base_width, ", groups=", options.groups,
              ")");
  conv1 = register_module("conv1", conv1x1(options.inplanes, width));
  register_module("bn1", bn1.ptr());
  conv2 = register_module("conv2", conv3x3(width, width, options.stride, options.groups, options.dilation));
  register_module("bn2", bn2.ptr());
  conv3 = register_module("conv3", conv1x1(width, options.planes * expansion));
  register_module("bn3", bn3.ptr());
  relu = register_module("relu", nn::ReLU(true));
  if (options.downsample) downsample = register_module("downsample", options.downsample);
}

Tensor BottleneckImpl::forward(const Tensor& x) {
  Tensor out = detail::relu(relu, bn1.forward(conv1(x)));
  out = detail::relu(relu, bn2.forward(conv2(out)));
  out = bn3.forward(conv3(out));
  const Tensor identity = downsample ? downsample(x) : x;
  return detail::relu(relu, detail::add_residual(out, identity));
}

// ---- block types ----

ResNetBlock ResNetBlock::basic() {
  return {.expansion = BasicBlockImpl::expansion,
          .make = [](const BlockOptions& o) { return nn::AnyModule(BasicBlock(o)); },
          .zero_init_residual = [](nn::Module& m) {
            if (auto* b = dynamic_cast<BasicBlockImpl*>(&m)) zero_norm_weight(b->bn2);
          }};
}

ResNetBlock ResNetBlock::bottleneck() {
  return {.expansion = BottleneckImpl::expansion,
          .make = [](const BlockOptions& o) { return nn::AnyModule(Bottleneck(o)); },
          .zero_init_residual = [](nn::Module& m) {
            if (auto* b = dynamic_cast<BottleneckImpl*>(&m)) zero_norm_weight(b->bn3);
          }};
}

// ---- ResNet ----

namespace {
const ResNetOptions& check_resnet(const ResNetBlock& block, const std::vector<int64_t>& layers,
                                  const ResNetOptions& o) {
  EMBER_CHECK(block.make != nullptr && block.expansion > 0,
              "ResNet: the block type needs a make function and a positive expansion");
  EMBER_CHECK(layers.size() == 4, "ResNet: layers must have 4 entries (blocks in layer1..layer4), got ",
              layers.size());
  for (int64_t n : layers) EMBER_CHECK(n >= 1, "ResNet: every layer needs at least one block, got ", n);
  EMBER_CHECK(o.replace_stride_with_dilation.size() == 3,
              "ResNet: replace_stride_with_dilation should be None or a 3-element tuple, got ",
              o.replace_stride_with_dilation.size(), " elements");
  EMBER_CHECK(o.num_classes > 0, "ResNet: num_classes must be positive, got ", o.num_classes);
  return o;
}
}  // namespace

ResNetImpl::ResNetImpl(const ResNetBlock& block, const std::vector<int64_t>& layers, const ResNetOptions& options)
    : ImageClassifierImpl("ResNet"),
      bn1(make_norm(check_resnet(block, layers, options).norm_layer, 64)),
      norm_layer_(options.norm_layer),
      groups_(options.groups),
      base_width_(options.width_per_group) {
  conv1 = register_module(
      "conv1", nn::Conv2d({.in_channels = 3, .out_channels = inplanes_, .kernel_size = 7, .stride = 2, .padding = 3,
                           .bias = false}));
  register_module("bn1", bn1.ptr());
  relu = register_module("relu", nn::ReLU(true));
  maxpool = register_module("maxpool", nn::MaxPool2d({.kernel_size = 3, .stride = 2, .padding = 1}));
  const auto& dilate = options.replace_stride_with_dilation;
  layer1 = register_module("layer1", make_layer(block, 64, layers[0], 1, false));
  layer2 = register_module("layer2", make_layer(block, 128, layers[1], 2, dilate[0]));
  layer3 = register_module("layer3", make_layer(block, 256, layers[2], 2, dilate[1]));
  layer4 = register_module("layer4", make_layer(block, 512, layers[3], 2, dilate[2]));
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d({1, 1}));
  fc = register_module("fc", nn::Linear(512 * block.expansion, options.num_classes));

  for (const auto& m : modules()) {
    if (auto* conv = dynamic_cast<nn::Conv2dImpl*>(m.get())) {
      nn::init::kaiming_normal_(conv->weight, 0, nn::init::FanMode::FanOut, "relu");
    } else if (dynamic_cast<nn::BatchNorm2dImpl*>(m.get()) || dynamic_cast<nn::GroupNormImpl*>(m.get())) {
      detail::init_norm_affine(*m);
    }
  }
  if (options.zero_init_residual && block.zero_init_residual) {
    for (const auto& m : modules()) block.zero_init_residual(*m);
  }
}

nn::Sequential ResNetImpl::make_layer(const ResNetBlock& block, int64_t planes, int64_t blocks, int64_t stride,
                                      bool dilate) {
  nn::Sequential downsample{nullptr};
  const int64_t previous_dilation = dilation_;
  if (dilate) {
    dilation_ *= stride;
    stride = 1;
  }
  if (stride != 1 || inplanes_ != planes * block.expansion) {
    downsample = nn::Sequential(conv1x1(inplanes_, planes * block.expansion, stride),
                                make_norm(norm_layer_, planes * block.expansion));
  }
  nn::Sequential layer;
  layer->push_back(block.make({.inplanes = inplanes_,
                               .planes = planes,
                               .stride = stride,
                               .downsample = downsample,
                               .groups = groups_,
                               .base_width = base_width_,
                               .dilation = previous_dilation,
                               .norm_layer = norm_layer_}));
  inplanes_ = planes * block.expansion;
  for (int64_t i = 1; i < blocks; ++i) {
    layer->push_back(block.make({.inplanes = inplanes_,
                                 .planes = planes,
                                 .groups = groups_,
                                 .base_width = base_width_,
                                 .dilation = dilation_,
                                 .norm_layer = norm_layer_}));
  }
  return layer;
}

Tensor ResNetImpl::forward_features(const Tensor& x) {
  Tensor y = detail::relu(relu, bn1.forward(conv1(x)));
  y = maxpool(y);
  y = layer1(y);
  y = layer2(y);
  y = layer3(y);
  return layer4(y);
}

Tensor ResNetImpl::forward(const Tensor& x) {
  EMBER_CHECK(x.dim() == 4, "ResNet: expected a 4-d input [N, 3, H, W], got sizes ", x.sizes());
  return fc(avgpool(forward_features(x)).flatten(1));
}

// ---- builders ----

namespace {
ResNet make_resnet(ResNetBlock block, std::vector<int64_t> layers, const ResNetOptions& options) {
  return ResNet(block, layers, options);
}
ResNetOptions with_width(ResNetOptions o, int64_t groups, int64_t width_per_group) {
  o.groups = groups;
  o.width_per_group = width_per_group;
  return o;
}
}  // namespace

ResNet resnet18(const ResNetOptions& o) { return make_resnet(ResNetBlock::basic(), {2, 2, 2, 2}, o); }
ResNet resnet34(const ResNetOptions& o) { return make_resnet(ResNetBlock::basic(), {3, 4, 6, 3}, o); }
ResNet resnet50(const ResNetOptions& o) { return make_resnet(ResNetBlock::bottleneck(), {3, 4, 6, 3}, o); }
ResNet resnet101(const ResNetOptions& o) { return make_resnet(ResNetBlock::bottleneck(), {3, 4, 23, 3}, o); }
ResNet resnet152(const ResNetOptions& o) { return make_resnet(ResNetBlock::bottleneck(), {3, 8, 36, 3}, o); }
ResNet resnext50_32x4d(const ResNetOptions& o) {
  return make_resnet(ResNetBlock::bottleneck(), {3, 4, 6, 3}, with_width(o, 32, 4));
}
ResNet resnext101_32x8d(const ResNetOptions& o) {
  return make_resnet(ResNetBlock::bottleneck(), {3, 4, 23, 3}, with_width(o, 32, 8));
}
ResNet resnext101_64x4d(const ResNetOptions& o) {
  return make_resnet(ResNetBlock::bottleneck(), {3, 4, 23, 3}, with_width(o, 64, 4));
}
ResNet wide_resnet50_2(const ResNetOptions& o) {
  return make_resnet(ResNetBlock::bottleneck(), {3, 4, 6, 3}, with_width(o, 1, 128));
}
ResNet wide_resnet101_2(const ResNetOptions& o) {
  return make_resnet(ResNetBlock::bottleneck(), {3, 4, 23, 3}, with_width(o, 1, 128));
}

namespace detail {
void register_resnet_models(const AddModel& add) {
  using Builder = ResNet (*)(const ResNetOptions&);
  const std::pair<const char*, Builder> builders[] = {
      {"resnet18", resnet18},
      {"resnet34", resnet34},
      {"resnet50", resnet50},
      {"resnet101", resnet101},
      {"resnet152", resnet152},
      {"resnext50_32x4d", resnext50_32x4d},
      {"resnext101_32x8d", resnext101_32x8d},
      {"resnext101_64x4d", resnext101_64x4d},
      {"wide_resnet50_2", wide_resnet50_2},
      {"wide_resnet101_2", wide_resnet101_2},
  };
  for (const auto& [name, builder] : builders) {
    add(name, [builder](const ModelOptions& o) -> ImageClassifier {
      return builder({.num_classes = o.num_classes}).ptr();
    });
  }
}
}  // namespace detail

}  // namespace ember::models
