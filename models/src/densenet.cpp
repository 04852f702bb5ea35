// DenseNet family (torchvision/models/densenet.py, torchvision 0.14).
#include "ember/models/densenet.h"

#include <regex>

#include <ember/autograd/autograd.h>
#include <ember/autograd/function.h>
#include <ember/core/error.h>
#include <ember/nn/functional/dropout.h>
#include <ember/nn/functional/pooling.h>
#include <ember/nn/init.h>
#include <ember/ops/shape.h>

#include "layer_utils.h"
#include "registry.h"

namespace ember::models {

namespace {

using autograd::variable_list;

// Note [DenseNet memory_efficient]
// torchvision wraps the bottleneck (cat, norm1, relu1, conv1) in
// torch.utils.checkpoint: forward runs it without recording and keeps only
// its inputs; backward runs it again with recording on and differentiates
// that. Here it is a custom autograd function whose inputs are the previous
// features and the three parameters the bottleneck reads, so the engine
// routes their gradients; backward recomputes and calls autograd::grad on the
// fresh graph. As in PyTorch, the recomputation runs norm1 in training mode
// again, so its running statistics are updated twice per training step.
struct CheckpointedBottleneck : autograd::Function<CheckpointedBottleneck> {
  static Tensor forward(autograd::AutogradContext* ctx, const std::vector<Tensor>& features,
                        const std::vector<Tensor>& params, DenseLayerImpl* layer) {
    (void)params;
    ctx->saved_data["num_features"] = static_cast<int64_t>(features.size());
    variable_list to_save(features.begin(), features.end());
    ctx->save_for_backward(to_save);
    ctx->saved_data["layer"] = static_cast<int64_t>(reinterpret_cast<intptr_t>(layer));
    return layer->bn_function(features);
  }

  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grad_outputs) {
    auto* layer = reinterpret_cast<DenseLayerImpl*>(static_cast<intptr_t>(ctx->saved_data["layer"].toInt()));
    const variable_list saved = ctx->get_saved_variables();
    const size_t n = saved.size();
    std::vector<Tensor> inputs;
    inputs.reserve(n);
    for (const Tensor& t : saved) inputs.push_back(t.detach().requires_grad_(true));
    const std::vector<Tensor> params = {layer->norm1->weight, layer->norm1->bias, layer->conv1->weight};
    Tensor out;
    {
      EnableGradGuard grad_on;
      out = layer->bn_function(inputs);
    }
    variable_list wrt(inputs.begin(), inputs.end());
    std::vector<size_t> param_slot;  // where each parameter that needs a gradient sits in wrt
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].defined() && params[i].requires_grad() && ctx->needs_input_grad(n + i)) {
        param_slot.push_back(wrt.size());
        wrt.push_back(params[i]);
      } else {
        param_slot.push_back(SIZE_MAX);
      }
    }
    const variable_list grads = autograd::grad({out}, wrt, {grad_outputs[0]}, false, false, true);
    variable_list result(grads.begin(), grads.begin() + static_cast<std::ptrdiff_t>(n));
    for (size_t i = 0; i < params.size(); ++i)
      result.push_back(param_slot[i] == SIZE_MAX ? Tensor() : grads[param_slot[i]]);
    result.push_back(Tensor());  // the layer pointer
    return result;
  }
};

}  // namespace

// ---- _DenseLayer ----

DenseLayerImpl::DenseLayerImpl(const DenseLayerOptions& o) : nn::Module("_DenseLayer"), options(o) {
  EMBER_CHECK(o.num_input_features > 0 && o.growth_rate > 0 && o.bn_size > 0,
              "_DenseLayer: num_input_features, growth_rate and bn_size must be positive, got ",
              o.num_input_features, ", ", o.growth_rate, " and ", o.bn_size);
  EMBER_CHECK(o.drop_rate >= 0 && o.drop_rate <= 1, "_DenseLayer: drop_rate must be in [0, 1], got ", o.drop_rate);
  norm1 = register_module("norm1", nn::BatchNorm2d(o.num_input_features));
  relu1 = register_module("relu1", nn::ReLU(true));
  conv1 = register_module("conv1", nn::Conv2d({.in_channels = o.num_input_features,
                                               .out_channels = o.bn_size * o.growth_rate,
                                               .kernel_size = 1,
                                               .stride = 1,
                                               .bias = false}));
  norm2 = register_module("norm2", nn::BatchNorm2d(o.bn_size * o.growth_rate));
  relu2 = register_module("relu2", nn::ReLU(true));
  conv2 = register_module("conv2", nn::Conv2d({.in_channels = o.bn_size * o.growth_rate,
                                               .out_channels = o.growth_rate,
                                               .kernel_size = 3,
                                               .stride = 1,
                                               .padding = 1,
                                               .bias = false}));
}

Tensor DenseLayerImpl::bn_function(const std::vector<Tensor>& inputs) {
  const Tensor concated = inputs.size() == 1 ? inputs[0] : cat(inputs, 1);
  return conv1(detail::relu(relu1, norm1(concated)));
}

Tensor DenseLayerImpl::forward(const std::vector<Tensor>& prev_features) {
  EMBER_CHECK(!prev_features.empty(), "_DenseLayer: expected at least one input tensor");
  bool any_requires_grad = false;
  for (const Tensor& t : prev_features) any_requires_grad = any_requires_grad || t.requires_grad();
  Tensor bottleneck;
  if (options.memory_efficient && any_requires_grad && is_grad_enabled()) {
    bottleneck = CheckpointedBottleneck::apply(prev_features,
                                               std::vector<Tensor>{norm1->weight, norm1->bias, conv1->weight}, this);
  } else {
    bottleneck = bn_function(prev_features);
  }
  Tensor new_features = conv2(detail::relu(relu2, norm2(bottleneck)));
  if (options.drop_rate > 0) new_features = nn::functional::dropout(new_features, options.drop_rate, is_training());
  return new_features;
}

// ---- _DenseBlock ----

DenseBlockImpl::DenseBlockImpl(const DenseBlockOptions& o) : nn::Module("_DenseBlock") {
  EMBER_CHECK(o.num_layers >= 1, "_DenseBlock: num_layers must be positive, got ", o.num_layers);
  for (int64_t i = 0; i < o.num_layers; ++i) {
    layers.push_back(register_module("denselayer" + std::to_string(i + 1),
                                     DenseLayer(DenseLayerOptions{.num_input_features = o.num_input_features +
                                                                                        i * o.growth_rate,
                                                                  .growth_rate = o.growth_rate,
                                                                  .bn_size = o.bn_size,
                                                                  .drop_rate = o.drop_rate,
                                                                  .memory_efficient = o.memory_efficient})));
  }
}

Tensor DenseBlockImpl::forward(const Tensor& init_features) {
  std::vector<Tensor> features{init_features};
  features.reserve(layers.size() + 1);
  for (const DenseLayer& layer : layers) features.push_back(layer(features));
  return cat(features, 1);
}

// ---- _Transition ----

TransitionImpl::TransitionImpl(int64_t num_input_features, int64_t num_output_features) {
  set_name("_Transition");
  norm = nn::BatchNorm2d(num_input_features);
  relu = nn::ReLU(true);
  conv = nn::Conv2d({.in_channels = num_input_features,
                     .out_channels = num_output_features,
                     .kernel_size = 1,
                     .stride = 1,
                     .bias = false});
  pool = nn::AvgPool2d({.kernel_size = 2, .stride = 2});
  push_back("norm", norm);
  push_back("relu", relu);
  push_back("conv", conv);
  push_back("pool", pool);
}

Tensor TransitionImpl::forward(const Tensor& x) { return pool(conv(detail::relu(relu, norm(x)))); }

// ---- DenseNet ----

DenseNetImpl::DenseNetImpl(const DenseNetOptions& o) : ImageClassifierImpl("DenseNet") {
  EMBER_CHECK(!o.block_config.empty(), "DenseNet: block_config must not be empty");
  EMBER_CHECK(o.num_init_features > 0 && o.growth_rate > 0 && o.bn_size > 0 && o.num_classes > 0,
              "DenseNet: growth_rate, num_init_features, bn_size and num_classes must be positive, got ",
              o.growth_rate, ", ", o.num_init_features, ", ", o.bn_size, " and ", o.num_classes);
  features = register_module(
      "features",
      nn::Sequential(std::vector<std::pair<std::string, nn::AnyModule>>{
          {"conv0", nn::Conv2d({.in_channels = 3, .out_channels = o.num_init_features, .kernel_size = 7, .stride = 2,
                                .padding = 3, .bias = false})},
          {"norm0", nn::BatchNorm2d(o.num_init_features)},
          {"relu0", nn::ReLU(true)},
          {"pool0", nn::MaxPool2d({.kernel_size = 3, .stride = 2, .padding = 1})}}));
  int64_t num_features = o.num_init_features;
  for (size_t i = 0; i < o.block_config.size(); ++i) {
    const int64_t num_layers = o.block_config[i];
    features->push_back("denseblock" + std::to_string(i + 1),
                        DenseBlock(DenseBlockOptions{.num_layers = num_layers,
                                                     .num_input_features = num_features,
                                                     .bn_size = o.bn_size,
                                                     .growth_rate = o.growth_rate,
                                                     .drop_rate = o.drop_rate,
                                                     .memory_efficient = o.memory_efficient}));
    num_features += num_layers * o.growth_rate;
    if (i + 1 != o.block_config.size()) {
      features->push_back("transition" + std::to_string(i + 1), Transition(num_features, num_features / 2));
      num_features /= 2;
    }
  }
  features->push_back("norm5", nn::BatchNorm2d(num_features));
  classifier = register_module("classifier", nn::Linear(num_features, o.num_classes));

  for (const auto& m : modules()) {
    if (auto* conv = dynamic_cast<nn::Conv2dImpl*>(m.get())) {
      nn::init::kaiming_normal_(conv->weight);
    } else if (dynamic_cast<nn::BatchNorm2dImpl*>(m.get())) {
      detail::init_norm_affine(*m);
    } else if (auto* linear = dynamic_cast<nn::LinearImpl*>(m.get())) {
      nn::init::constant_(linear->bias, 0);
    }
  }
}

Tensor DenseNetImpl::forward(const Tensor& x) {
  EMBER_CHECK(x.dim() == 4, "DenseNet: expected a 4-d input [N, 3, H, W], got sizes ", x.sizes());
  Tensor out = features(x);
  out = detail::recording(out) ? out.relu() : out.relu_();
  out = nn::functional::adaptive_avg_pool2d(out, {1, 1});
  return classifier(out.flatten(1));
}

// ---- builders ----

namespace {
DenseNet make_densenet(int64_t growth_rate, std::vector<int64_t> block_config, int64_t num_init_features,
                       DenseNetOptions o) {
  o.growth_rate = growth_rate;
  o.block_config = std::move(block_config);
  o.num_init_features = num_init_features;
  return DenseNet(o);
}
}  // namespace

DenseNet densenet121(const DenseNetOptions& o) { return make_densenet(32, {6, 12, 24, 16}, 64, o); }
DenseNet densenet161(const DenseNetOptions& o) { return make_densenet(48, {6, 12, 36, 24}, 96, o); }
DenseNet densenet169(const DenseNetOptions& o) { return make_densenet(32, {6, 12, 32, 32}, 64, o); }
DenseNet densenet201(const DenseNetOptions& o) { return make_densenet(32, {6, 12, 48, 32}, 64, o); }

OrderedDict<Tensor> densenet_rename_legacy_keys(const OrderedDict<Tensor>& state_dict) {
  static const std::regex pattern(
      R"(^(.*denselayer\d+\.(?:norm|relu|conv))\.((?:[12])\.(?:weight|bias|running_mean|running_var))$)");
  OrderedDict<Tensor> out;
  for (const auto& [key, value] : state_dict) {
    std::smatch m;
    if (std::regex_match(key, m, pattern)) out.insert(m[1].str() + m[2].str(), value);
    else out.insert(key, value);
  }
  return out;
}

namespace detail {
void register_densenet_models(const AddModel& add) {
  using Builder = DenseNet (*)(const DenseNetOptions&);
  const std::pair<const char*, Builder> builders[] = {
      {"densenet121", densenet121},
      {"densenet161", densenet161},
      {"densenet169", densenet169},
      {"densenet201", densenet201},
  };
  for (const auto& [name, builder] : builders) {
    add(name, [builder](const ModelOptions& o) -> ImageClassifier {
      return builder({.num_classes = o.num_classes}).ptr();
    });
  }
}
}  // namespace detail

}  // namespace ember::models
