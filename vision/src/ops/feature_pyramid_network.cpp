// FeaturePyramidNetwork and its extra blocks, after torchvision 0.14's
// feature_pyramid_network.py (the same children, initialization and
// top-down order).
#include "ember/vision/ops/feature_pyramid_network.h"

#include <ember/core/error.h>
#include <ember/nn/functional/activation.h>
#include <ember/nn/functional/pooling.h>
#include <ember/nn/functional/sampling.h>
#include <ember/nn/init.h>

namespace ember::vision::ops {
namespace {

namespace F = nn::functional;

void init_conv(const nn::Conv2d& conv) {
  nn::init::kaiming_uniform_(conv->weight, 1);
  if (conv->bias.defined()) nn::init::zeros_(conv->bias);
}

}  // namespace

LastLevelMaxPoolImpl::LastLevelMaxPoolImpl() : ExtraFPNBlockImpl("LastLevelMaxPool") {}

void LastLevelMaxPoolImpl::extend(std::vector<Tensor>& results, const std::vector<Tensor>&,
                                  std::vector<std::string>& names) {
  names.push_back("pool");
  results.push_back(F::max_pool2d(results.back(), 1, {.stride = 2, .padding = 0}));
}

LastLevelP6P7Impl::LastLevelP6P7Impl(int64_t in_channels, int64_t out_channels)
    : ExtraFPNBlockImpl("LastLevelP6P7"), use_P5(in_channels == out_channels) {
  p6 = register_module(
      "p6",
      nn::Conv2d(nn::Conv2dOptions{
          .in_channels = in_channels, .out_channels = out_channels, .kernel_size = 3, .stride = 2, .padding = 1}));
  p7 = register_module(
      "p7",
      nn::Conv2d(nn::Conv2dOptions{
          .in_channels = out_channels, .out_channels = out_channels, .kernel_size = 3, .stride = 2, .padding = 1}));
  init_conv(p6);
  init_conv(p7);
}

void LastLevelP6P7Impl::extend(std::vector<Tensor>& results, const std::vector<Tensor>& x,
                               std::vector<std::string>& names) {
  EMBER_CHECK(!results.empty() && !x.empty(), "LastLevelP6P7: no feature maps to extend");
  const Tensor& src = use_P5 ? results.back() : x.back();
  const Tensor p6_out = p6(src);
  const Tensor p7_out = p7(F::relu(p6_out));
  results.push_back(p6_out);
  results.push_back(p7_out);
  names.push_back("p6");
  names.push_back("p7");
}

FeaturePyramidNetworkImpl::FeaturePyramidNetworkImpl(const FeaturePyramidNetworkOptions& options)
    : nn::Module("FeaturePyramidNetwork") {
  EMBER_CHECK(!options.in_channels_list.empty(), "FeaturePyramidNetwork: in_channels_list is empty");
  EMBER_CHECK(options.out_channels > 0, "FeaturePyramidNetwork: out_channels should be positive, got ",
              options.out_channels);
  inner_blocks = register_module("inner_blocks", nn::ModuleList());
  layer_blocks = register_module("layer_blocks", nn::ModuleList());
  for (const int64_t in : options.in_channels_list) {
    EMBER_CHECK(in != 0, "FeaturePyramidNetwork: in_channels=0 is currently not supported");
    inner_blocks->push_back(Conv2dNormActivation(Conv2dNormActivationOptions{.in_channels = in,
                                                                             .out_channels = options.out_channels,
                                                                             .kernel_size = 1,
                                                                             .padding = 0,
                                                                             .norm_layer = options.norm_layer,
                                                                             .activation_layer = nullptr}));
    layer_blocks->push_back(Conv2dNormActivation(Conv2dNormActivationOptions{.in_channels = options.out_channels,
                                                                             .out_channels = options.out_channels,
                                                                             .kernel_size = 3,
                                                                             .norm_layer = options.norm_layer,
                                                                             .activation_layer = nullptr}));
  }
  for (const auto& list : {inner_blocks, layer_blocks})
    for (size_t i = 0; i < list->size(); ++i) {
      const auto block = list->ptr<Conv2dNormActivationImpl>(i);
      nn::init::kaiming_uniform_(block->conv()->weight, 1);
      if (block->conv()->bias.defined()) nn::init::zeros_(block->conv()->bias);
    }
  if (options.extra_blocks) extra_blocks = register_module("extra_blocks", options.extra_blocks);
}

OrderedDict<Tensor> FeaturePyramidNetworkImpl::forward(const OrderedDict<Tensor>& x) {
  const int64_t levels = static_cast<int64_t>(inner_blocks->size());
  EMBER_CHECK(static_cast<int64_t>(x.size()) == levels, "FeaturePyramidNetwork: expected ", levels,
              " feature maps (one per in_channels_list entry), got ", x.size());
  std::vector<std::string> names = x.keys();
  const std::vector<Tensor> inputs = x.values();
  auto inner = [&](int64_t i) { return inner_blocks->ptr<Conv2dNormActivationImpl>(i)->forward(inputs[i]); };
  auto layer = [&](int64_t i, const Tensor& t) { return layer_blocks->ptr<Conv2dNormActivationImpl>(i)->forward(t); };
  Tensor last_inner = inner(levels - 1);
  std::vector<Tensor> results(static_cast<size_t>(levels));
  results[levels - 1] = layer(levels - 1, last_inner);
  for (int64_t idx = levels - 2; idx >= 0; --idx) {
    const Tensor lateral = inner(idx);
    const Tensor top_down = F::interpolate(
        last_inner, {.size = std::vector<int64_t>{lateral.size(-2), lateral.size(-1)}, .mode = "nearest"});
    last_inner = lateral + top_down;
    results[idx] = layer(idx, last_inner);
  }
  if (extra_blocks) extra_blocks->extend(results, inputs, names);
  OrderedDict<Tensor> out;
  for (size_t i = 0; i < results.size(); ++i) out.insert(names[i], results[i]);
  return out;
}

}  // namespace ember::vision::ops
