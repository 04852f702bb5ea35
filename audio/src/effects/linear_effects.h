#pragma once
// Autograd for the effects whose loops are linear maps of the waveform.
//
// Note [Effects as linear maps]
// overdrive's DC blocker and the delay lines of phaser and flanger are linear
// in the samples they filter: their coefficients (the LFO's delays, the
// interpolation weights, the gains) depend on the sample index only, never on
// the data. Such a map L is its own Jacobian, so the backward of y = L x is
// L^T g, and the backward of that is L again. Each kernel slot computes both
// L and L^T (effect_kernels.h, `adjoint`), and LinearEffect records either as
// an autograd node whose backward is the other: gradients of any order come
// from the same two loops, and no per-sample Tensor op is ever recorded.
// (torchaudio gets phaser's and flanger's gradients by recording every
// sample's indexing ops; its CPU overdrive loop records none.)
#include <utility>

#include <ember/autograd/function.h>
#include <ember/autograd/grad_mode.h>
#include <ember/core/tensor.h>

namespace ember::audio::effects {

// Effect: a struct with
//   using Plan = ...;                                      // what the loop needs
//   static Tensor run(const Tensor& x, const Plan&, bool adjoint);  // L x or L^T x
//   static void save(autograd::AutogradContext*, const Plan&);      // into saved_data
//   static Plan load(autograd::AutogradContext*);
template <class Effect>
struct LinearEffect : autograd::Function<LinearEffect<Effect>> {
  using Plan = typename Effect::Plan;

  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, const Plan& plan, bool adjoint) {
    Effect::save(ctx, plan);
    ctx->saved_data["adjoint"] = adjoint;
    return Effect::run(x, plan, adjoint);
  }

  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    const Plan plan = Effect::load(ctx);
    const bool adjoint = ctx->saved_data["adjoint"].toBool();
    return {LinearEffect::apply(grads[0], plan, !adjoint), Tensor(), Tensor()};
  }
};

// L x (or L^T x), recorded for autograd when x requires grad.
template <class Effect>
Tensor apply_linear_effect(const Tensor& x, const typename Effect::Plan& plan, bool adjoint = false) {
  if (!x.requires_grad() || !ember::is_grad_enabled()) return Effect::run(x, plan, adjoint);
  return LinearEffect<Effect>::apply(x, plan, adjoint);
}

}  // namespace ember::audio::effects
