#pragma once
// The backward engine (Note [The engine] in engine.cpp).
#include <optional>

#include "ember/autograd/node.h"

namespace ember::autograd {

// Runs backward from `roots` (seeded with `grad_roots`; undefined entries mean
// ones for scalar roots). With accumulate_grad, leaves' .grad are updated (all
// leaves, or only `inputs` when given); without, nothing is accumulated and
// the gradients reaching `inputs` are returned, one per input (undefined when
// none reached it). batched: every grad_root has an extra leading dim B and
// the pass computes B vector-Jacobian products at once (Note [Batched
// gradients] in engine.cpp); only without accumulate_grad.
variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool accumulate_grad,
                           bool batched = false);

}  // namespace ember::autograd
