// Conv + BatchNorm folding for inference (torch.nn.utils.fusion) and its cache.
#include "ember/nn/utils/fusion.h"

#include "autograd/record.h"
#include "ember/autograd/grad_mode.h"
#include "ember/nn/modules/activation.h"
#include "ember/ops/factories.h"

namespace ember::nn::utils {

std::pair<Tensor, Tensor> fuse_conv_bn_weights(const Tensor& conv_w, const Tensor& conv_b, const Tensor& bn_rm,
                                               const Tensor& bn_rv, double bn_eps, const Tensor& bn_w,
                                               const Tensor& bn_b, bool transpose) {
  EMBER_CHECK(conv_w.defined() && bn_rm.defined() && bn_rv.defined(),
              "fuse_conv_bn_weights: conv_w, bn_rm and bn_rv must be defined");
  EMBER_CHECK(conv_w.dim() >= 3, "fuse_conv_bn_weights: expected a convolution weight of 3 or more dims, got ",
              conv_w.sizes());
  const int64_t channels = conv_w.size(transpose ? 1 : 0);
  auto check_vec = [&](const Tensor& t, const char* name) {
    EMBER_CHECK(!t.defined() || (t.dim() == 1 && t.size(0) == channels), "fuse_conv_bn_weights: expected ", name,
                " of shape [", channels, "] (the convolution's output channels), got ", t.sizes());
  };
  check_vec(conv_b, "conv_b");
  check_vec(bn_rm, "bn_rm");
  check_vec(bn_rv, "bn_rv");
  check_vec(bn_w, "bn_w");
  check_vec(bn_b, "bn_b");
  NoGradGuard no_grad;
  const TensorOptions opts(conv_w.dtype());
  const Tensor b = conv_b.defined() ? conv_b : zeros({channels}, opts);
  const Tensor gamma = bn_w.defined() ? bn_w : ones({channels}, opts);
  const Tensor beta = bn_b.defined() ? bn_b : zeros({channels}, opts);
  const Tensor scale = gamma * (bn_rv + bn_eps).rsqrt();
  DimVector shape(static_cast<size_t>(conv_w.dim()), 1);
  shape[transpose ? 1 : 0] = channels;
  Tensor w = conv_w * scale.reshape(shape);
  Tensor fused_b = (b - bn_rm) * scale + beta;
  return {w.to(conv_w.dtype()), fused_b.to(conv_w.dtype())};
}

namespace {

bool plain_module(const Module& m) {
  return m.forward_pre_hooks().empty() && m.forward_hooks().empty() && !m.has_forward_setup();
}

bool float32_or_absent(const Tensor& t) { return !t.defined() || t.dtype() == kFloat32; }

bool needs_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }

std::vector<Tensor> fold_sources(const Conv2dImpl& conv, const BatchNorm2dImpl& bn) {
  return {conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.weight, bn.bias};
}

}  // namespace

bool ConvBnFoldCache::applicable(const Conv2dImpl& conv, const BatchNorm2dImpl& bn, const Tensor& input) {
  if (bn.is_training() || !bn.running_mean.defined() || !bn.running_var.defined()) return false;
  if (conv.options.padding_mode != "zeros" || !plain_module(conv) || !plain_module(bn)) return false;
  if (!input.defined() || input.dtype() != kFloat32 || input.dim() != 4 || !input.device().is_cpu())
    return false;
  const auto sources = fold_sources(conv, bn);
  for (const Tensor& t : sources)
    if (!float32_or_absent(t)) return false;
  if (autograd::is_recording()) {
    if (input.requires_grad()) return false;
    for (const Tensor& t : sources)
      if (needs_grad(t)) return false;
  }
  return true;
}

std::pair<Tensor, Tensor> ConvBnFoldCache::folded(const Conv2dImpl& conv, const BatchNorm2dImpl& bn) {
  const auto sources = fold_sources(conv, bn);
  std::lock_guard<std::mutex> lock(mutex_);
  bool fresh = sources_.size() == sources.size();
  for (size_t i = 0; fresh && i < sources.size(); ++i) {
    const Tensor &now = sources[i], &was = sources_[i];
    fresh = now.defined() == was.defined() &&
            (!now.defined() || (now.impl()->data() == was.impl()->data() && now.dtype() == was.dtype() &&
                                now.sizes() == was.sizes() && now.strides() == was.strides() &&
                                now._version() == versions_[i]));
  }
  if (!fresh) {
    auto [w, b] = fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.options.eps,
                                       bn.weight, bn.bias);
    weight_ = w;
    bias_ = b;
    sources_.clear();
    versions_.clear();
    for (const Tensor& t : sources) {
      sources_.push_back(t.defined() ? t.detach() : Tensor());
      versions_.push_back(t.defined() ? t._version() : 0);
    }
  }
  return {weight_, bias_};
}

Tensor ConvBnFoldCache::forward(const Conv2dImpl& conv, const BatchNorm2dImpl& bn, const Tensor& input,
                                functional::ConvActivation activation) {
  const auto [w, b] = folded(conv, bn);
  return functional::conv2d_activation(input, w,
                                       {.bias = b, .stride = conv.stride, .padding = conv.options.padding,
                                        .dilation = conv.dilation, .groups = conv.options.groups},
                                       activation);
}

std::optional<functional::ConvActivation> fusable_activation(const Module& m) {
  using functional::ConvActivation;
  if (!plain_module(m)) return std::nullopt;
  if (dynamic_cast<const ReLUImpl*>(&m)) return ConvActivation::ReLU;
  if (dynamic_cast<const ReLU6Impl*>(&m)) return ConvActivation::ReLU6;
  if (dynamic_cast<const HardswishImpl*>(&m)) return ConvActivation::Hardswish;
  if (dynamic_cast<const SiLUImpl*>(&m)) return ConvActivation::SiLU;
  return std::nullopt;
}

Tensor SequentialFusion::forward(const SequentialImpl& seq, const Tensor& input) {
  std::vector<const AnyModule*> layers;
  for (const AnyModule& m : seq) layers.push_back(&m);
  Tensor x = input;
  int64_t fused = 0;
  for (size_t i = 0; i < layers.size();) {
    auto* conv = dynamic_cast<Conv2dImpl*>(layers[i]->ptr().get());
    auto* bn = i + 1 < layers.size() ? dynamic_cast<BatchNorm2dImpl*>(layers[i + 1]->ptr().get()) : nullptr;
    if (conv && bn && ConvBnFoldCache::applicable(*conv, *bn, x)) {
      auto act = i + 2 < layers.size() ? fusable_activation(*layers[i + 2]->ptr()) : std::nullopt;
      ConvBnFoldCache* cache = nullptr;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (caches_.size() < layers.size()) caches_.resize(layers.size());
        if (!caches_[i]) caches_[i] = std::make_unique<ConvBnFoldCache>();
        cache = caches_[i].get();
      }
      x = cache->forward(*conv, *bn, x, act.value_or(functional::ConvActivation::None));
      i += act ? 3 : 2;
      ++fused;
    } else {
      x = layers[i]->forward(x);
      ++i;
    }
  }
  last_fused_ = fused;
  return x;
}

}  // namespace ember::nn::utils
