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

// `view` (a view of its root base) was overwritten in place by a value whose
// gradient flows to `src`: the base's history becomes
// CopySlices(old_base, src) and `view` reads its region of the base's
// gradient. old_base: the base's gradient edge before the write.
void rebase_view_history(const Tensor& view, Edge old_base, Edge src);

}  // namespace ember::autograd
