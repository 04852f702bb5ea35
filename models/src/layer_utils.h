#pragma once
// Small helpers the model families share (private to Ember::models).
#include <ember/autograd/grad_mode.h>
#include <ember/core/tensor.h>
#include <ember/nn/container.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/activation.h>

namespace ember::models::detail {

// Note [In-place activations in models]
// torchvision's blocks use ReLU(inplace=True) and `out += identity`. Without
// a graph being recorded, the in-place forms save an allocation and a pass
// over memory. While recording, an in-place op computes out of place and
// copies the value back (Note [In-place writes and views] in core), which
// costs more than the plain op: the blocks then use the out-of-place ops.
// The values are the same either way.
inline bool recording(const Tensor& x) { return is_grad_enabled() && x.requires_grad(); }

// relu through the block's ReLU module when it has hooks; otherwise the
// op itself, in place unless recording.
inline Tensor relu(const nn::ReLU& module, Tensor x) {
  if (!module->forward_hooks().empty() || !module->forward_pre_hooks().empty() || module->has_forward_setup())
    return module(x);
  return recording(x) ? x.relu() : x.relu_();
}

// out + identity, in place into out when nothing is recorded.
inline Tensor add_residual(Tensor out, const Tensor& identity) {
  if (recording(out) || recording(identity)) return out + identity;
  return out.add_(identity);
}

// A module's own parameter `name` (an undefined Tensor when it has none);
// the handle shares the parameter's storage, so init functions write into it.
inline Tensor own_tensor(const nn::Module& module, const char* name) {
  const Tensor* t = module.own_parameters().find(name);
  return t != nullptr ? *t : Tensor();
}

// torchvision's `constant_(m.weight, 1); constant_(m.bias, 0)` for norm layers.
inline void init_norm_affine(const nn::Module& norm) {
  if (Tensor w = own_tensor(norm, "weight"); w.defined()) nn::init::constant_(w, 1);
  if (Tensor b = own_tensor(norm, "bias"); b.defined()) nn::init::constant_(b, 0);
}

}  // namespace ember::models::detail
