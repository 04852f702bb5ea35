#include "autograd/accumulate_grad.h"

#include <limits>

#include "autograd/autograd_meta.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/factories.h"

namespace ember::autograd {

AccumulateGrad::AccumulateGrad(Tensor leaf) : variable_(std::move(leaf)) {
  add_input_metadata(variable_);
  // Accumulators run as soon as they are ready: that frees gradients early.
  sequence_nr_ = std::numeric_limits<uint64_t>::max();
}

void AccumulateGrad::run_tensor_pre_hooks(variable_list& grads, bool) {
  AutogradMeta* m = meta_of(variable_);
  if (!m || !grads[0].defined()) return;
  for (const auto& h : m->hooks) {
    Tensor replaced = h.fn(grads[0]);
    if (replaced.defined()) grads[0] = std::move(replaced);
  }
}

namespace {
// A gradient the leaf can own: the engine's tensor when nobody else sees its
// memory and it has the leaf's layout (so that .grad has the layout of its
// parameter), else a copy in that layout.
Tensor owned_grad(Tensor g, const Tensor& leaf) {
  const bool same_layout = g.strides() == leaf.strides() || !leaf.is_non_overlapping_and_dense();
  // A conjugate/negative view (conj()'s backward) is resolved by the copy below.
  if (g.use_count() == 1 && g.storage().use_count() == 1 && !g.is_view() && same_layout &&
      !g.impl()->has_lazy_bits())
    return g;
  if (leaf.is_non_overlapping_and_dense()) {
    Tensor out = empty_strided(leaf.sizes(), leaf.strides(), g.options());
    out.copy_(g);
    return out;
  }
  return g.clone(MemoryFormat::Contiguous);
}
}  // namespace

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = std::move(grads[0]);
  grads.clear();
  if (!g.defined()) return {};
  AutogradMeta& m = variable_.impl()->ensure_autograd_meta();
  Tensor& slot = *m.grad;
  if (!is_grad_enabled()) {
    if (!slot.defined()) slot = owned_grad(std::move(g), variable_);
    else slot.add_(g);
  } else {
    // create_graph: the accumulated gradient stays differentiable.
    slot = slot.defined() ? slot + g : g;
  }
  for (const auto& h : m.post_accumulate_hooks) h.fn(variable_);
  return {};
}

}  // namespace ember::autograd
