#include "ember/ao/quantization/fused_modules.h"

#include "ember/ao/quantization/quant_markers.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/nn/utils/fusion.h"
#include "ember/ops/factories.h"

namespace ember::ao::quantization {

nn::Conv2d fuse_conv_bn_eval(const nn::Conv2dImpl& conv, const nn::BatchNorm2dImpl& bn) {
  EMBER_CHECK(!conv.is_training() && !bn.is_training(), "fuse_conv_bn_eval: Fusion only for eval! (conv training=",
              conv.is_training(), ", bn training=", bn.is_training(), ")");
  EMBER_CHECK(bn.running_mean.defined() && bn.running_var.defined(),
              "fuse_conv_bn_eval: the BatchNorm2d has no running statistics (track_running_stats=false)");
  auto options = conv.options;
  options.bias = true;
  nn::Conv2d fused(options);
  auto [w, b] = nn::utils::fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean, bn.running_var,
                                                bn.options.eps, bn.weight, bn.bias);
  NoGradGuard no_grad;
  fused->weight.set_data(w.detach().clone());
  fused->bias.set_data(b.detach().clone());
  fused->eval();
  return fused;
}

nn::Linear fuse_linear_bn_eval(const nn::LinearImpl& linear, const nn::BatchNorm1dImpl& bn) {
  EMBER_CHECK(!linear.is_training() && !bn.is_training(), "fuse_linear_bn_eval: Fusion only for eval!");
  EMBER_CHECK(bn.running_mean.defined() && bn.running_var.defined(),
              "fuse_linear_bn_eval: the BatchNorm1d has no running statistics (track_running_stats=false)");
  NoGradGuard no_grad;
  const Tensor lw = linear.weight.detach();
  const Tensor lb = linear.bias.defined() ? linear.bias.detach() : zeros({lw.size(0)}, lw.dtype());
  const Tensor bw = bn.weight.defined() ? bn.weight.detach() : ones_like(bn.running_var);
  const Tensor bb = bn.bias.defined() ? bn.bias.detach() : zeros_like(bn.running_mean);
  const Tensor bn_scale = bw * (bn.running_var + bn.options.eps).rsqrt();
  auto options = linear.options;
  options.bias = true;
  nn::Linear fused(options);
  fused->weight.set_data((lw * bn_scale.unsqueeze(-1)).clone());
  fused->bias.set_data(((lb - bn.running_mean) * bn_scale + bb).clone());
  fused->eval();
  return fused;
}

QuantWrapperImpl::QuantWrapperImpl(nn::AnyModule module)
    : nn::Module("QuantWrapper"), quant_(QuantMarker()), dequant_(DeQuantMarker()), module_(std::move(module)) {
  register_module("quant", quant_.ptr());
  register_module("dequant", dequant_.ptr());
  register_module("module", module_.ptr());
}

void QuantWrapperImpl::swap_child(const std::string& name, nn::AnyModule replacement) {
  nn::AnyModule& slot = name == "quant" ? quant_ : name == "dequant" ? dequant_ : module_;
  EMBER_CHECK(name == "quant" || name == "dequant" || name == "module", "QuantWrapper: no child named '", name, "'");
  slot = replacement;
  replace_module(name, replacement.ptr());
}

}  // namespace ember::ao::quantization
