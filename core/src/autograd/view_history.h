#pragma once
// In-place writes and views (Note [In-place writes and views] in view_history.cpp).
#include <memory>

#include "ember/autograd/node.h"

namespace ember::autograd {

// grad_fn of `view` over the current history of its base: the view's
// geometry applied to the base's gradient ("AsStridedBackward0").
std::shared_ptr<Node> make_view_rebuild_node(const Tensor& base, const Tensor& view);

// copy_ (self <- src) while recording: writes, then rebases self's history.
void copy_with_grad(Tensor& self, const Tensor& src);

}  // namespace ember::autograd
