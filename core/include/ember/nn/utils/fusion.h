#pragma once
// Inference fusion of a convolution with the batch norm after it
// (torch.nn.utils.fusion), and a cache of the fused weights for modules that
// fold their BatchNorm on every eval-mode forward.
//
//   auto [w, b] = nn::utils::fuse_conv_bn_weights(conv->weight, conv->bias, bn->running_mean,
//                                                  bn->running_var, bn->options.eps, bn->weight, bn->bias);
//   // conv2d(x, w, {.bias = b, ...}) == bn(conv(x)) in eval mode, to rounding
//
//   nn::utils::ConvBnFoldCache cache;                 // e.g. a member of a block
//   if (nn::utils::ConvBnFoldCache::applicable(*conv, *bn, x))
//     y = cache.forward(*conv, *bn, x, nn::functional::ConvActivation::ReLU6);
#include <mutex>
#include <utility>
#include <vector>

#include <memory>
#include <optional>

#include "ember/core/tensor.h"
#include "ember/nn/container.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/normalization.h"

namespace ember::nn::utils {

// torch.nn.utils.fusion.fuse_conv_bn_weights: the weight and bias of one
// convolution equal to conv (weight conv_w, bias conv_b, may be undefined)
// followed by eval-mode batch norm (running statistics bn_rm / bn_rv, eps,
// affine bn_w / bn_b, each may be undefined):
//   w = conv_w * bn_w / sqrt(bn_rv + eps)   (per output channel; dim 1 with transpose)
//   b = (conv_b - bn_rm) * bn_w / sqrt(bn_rv + eps) + bn_b
// Computed without recording gradients, in conv_w's dtype.
std::pair<Tensor, Tensor> fuse_conv_bn_weights(const Tensor& conv_w, const Tensor& conv_b, const Tensor& bn_rm,
                                               const Tensor& bn_rv, double bn_eps, const Tensor& bn_w,
                                               const Tensor& bn_b, bool transpose = false);

// Runs Conv2d -> BatchNorm2d (eval) -> activation as one convolution with the
// folded weights (fuse_conv_bn_weights) and the activation as its post-op
// (functional::conv2d_activation). The folded weights are cached and
// recomputed when any tensor of the two modules is replaced (set_data,
// to(...)) or modified in place (version counters: optimizer steps,
// load_state_dict); the cache keeps the tensors it folded alive, so a new
// tensor can never be mistaken for an old one at the same address.
class ConvBnFoldCache {
 public:
  // Whether the fused path gives the modules' result now: bn in eval mode with
  // running statistics, conv zero-padded, float32 input and tensors, no hooks
  // or forward setups (parametrizations) on either module, and nothing to
  // record for autograd (grad mode off, or no tensor requires grad).
  static bool applicable(const Conv2dImpl& conv, const BatchNorm2dImpl& bn, const Tensor& input);
  // activation(bn(conv(input))) through the folded convolution; requires applicable().
  Tensor forward(const Conv2dImpl& conv, const BatchNorm2dImpl& bn, const Tensor& input,
                 functional::ConvActivation activation);
  // The folded (weight, bias), refreshed if stale.
  std::pair<Tensor, Tensor> folded(const Conv2dImpl& conv, const BatchNorm2dImpl& bn);

 private:
  std::mutex mutex_;
  std::vector<Tensor> sources_;    // aliases of the folded tensors (undefined where absent)
  std::vector<uint64_t> versions_;  // their version counters when folded
  Tensor weight_, bias_;
};

// The post-op conv2d_activation applies for an activation module: ReLU, ReLU6,
// Hardswish or SiLU without hooks or forward setups; nullopt otherwise.
std::optional<functional::ConvActivation> fusable_activation(const Module& activation);

// Runs a Sequential's layers with every Conv2d -> BatchNorm2d (-> activation
// that fusable_activation accepts) run among them as one folded convolution
// (ConvBnFoldCache, one cache per run) where ConvBnFoldCache::applicable; the
// other layers run as usual, through their hooks. The Sequential's own hooks
// are the caller's business (forward is what its forward would compute).
class SequentialFusion {
 public:
  Tensor forward(const SequentialImpl& seq, const Tensor& input);
  // The number of fused convolutions the last forward ran (tests).
  int64_t last_fused() const { return last_fused_; }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<ConvBnFoldCache>> caches_;  // by element index
  int64_t last_fused_ = 0;
};

}  // namespace ember::nn::utils
