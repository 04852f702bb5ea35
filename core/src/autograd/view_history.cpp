// Note [In-place writes and views]
// Every recorded in-place op ends in copy_ (see assign_inplace in record.cpp):
// the op's value is computed out of place, with its own node, and copied into
// self. So copy_ is the one place that rebases history:
//  - self is not a view: self's grad_fn becomes CopyBackwards(self's old
//    history, src), which sends zeros to the old value and the gradient to src.
//  - self is a view of base: the base changed, so the base's grad_fn becomes
//    CopySlices(base's old history, src): the gradient outside the view's
//    region goes to the old base, the region's gradient goes to src. The view
//    (and every other view of the base, lazily, through the version counter)
//    then gets a grad_fn that reads its region of the base's gradient.
// Backward formulas are written with Tensor ops, including these, so double
// backward through in-place writes works too.
#include "autograd/view_history.h"

#include "autograd/autograd_meta.h"
#include "autograd/record.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"

namespace ember::autograd {

namespace {
struct Geometry {
  DimVector sizes, strides;
  int64_t offset;
  DType dtype;
  bool conj, neg;  // Note [Conjugate bit]: the region is read through the view's bits
  explicit Geometry(const Tensor& t)
      : sizes(t.sizes()), strides(t.strides()), offset(t.storage_offset()), dtype(t.dtype()),
        conj(t.is_conj()), neg(t.is_neg()) {}
};

// A zero-based buffer laid out like `base`; `region` finds a view's elements in it.
Tensor like_base(const Geometry& base, const Tensor& grad) {
  return empty_strided(base.sizes, base.strides, grad.options().dtype(base.dtype));
}
Tensor region_memory(const Tensor& buffer, const Geometry& base, const Geometry& view) {
  if (view.dtype != base.dtype) {
    // real()/imag() views of a complex base count offsets and strides in real
    // elements: the region is found in the buffer's real view.
    const Tensor reals = buffer.real();
    return reals.as_strided(view.sizes, view.strides, reals.storage_offset() + view.offset - 2 * base.offset);
  }
  return buffer.as_strided(view.sizes, view.strides, buffer.storage_offset() + view.offset - base.offset);
}
// The view's elements in a buffer laid out like the base's memory (which holds
// the base's values only when the base has no bits: the buffers here are
// fresh, so the base's own bits are applied to the view's relative to it).
Tensor region(const Tensor& buffer, const Geometry& base, const Geometry& view) {
  Tensor r = region_memory(buffer, base, view);
  // The bits go on the fresh as_strided view itself, so that writes into the
  // region (copy_, zero_) store through them too.
  r.impl()->set_conj(view.conj != base.conj && r.is_complex());
  r.impl()->set_neg(view.neg != base.neg);
  return r;
}
}  // namespace

std::shared_ptr<Node> make_view_rebuild_node(const Tensor& base, const Tensor& view) {
  Geometry bg(base), vg(view);
  auto node = std::make_shared<LambdaNode>(
      "as_strided", std::vector<Edge>{gradient_edge(base)},
      [bg, vg](BackwardContext& c) -> variable_list {
        Tensor result = like_base(bg, c.grads[0]).zero_();
        region(result, bg, vg).copy_(c.grads[0]);
        return {result};
      },
      false, "AsStridedBackward0");
  node->add_input_metadata(view);
  return node;
}

void rebase_view_history(const Tensor& view, Edge old_base, Edge src) {
  const Tensor base(view.impl()->view_base());
  Geometry bg(base), vg(view);
  auto node = std::make_shared<LambdaNode>(
      "copy_slices", std::vector<Edge>{std::move(old_base), std::move(src)},
      [bg, vg](BackwardContext& c) -> variable_list {
        Tensor result = like_base(bg, c.grads[0]);
        result.copy_(c.grads[0]);
        Tensor slice = region(result, bg, vg);
        Tensor grad_src = c.needs(1) ? slice.clone() : Tensor();
        slice.zero_();
        return {result, grad_src};
      },
      false, "CopySlices");
  node->add_input_metadata(base);
  set_history(base, std::move(node), 0);
  set_history(view, make_view_rebuild_node(base, view), 0);
}

void copy_with_grad(Tensor& self, const Tensor& src) {
  check_inplace(self, "copy_");
  TensorImpl* impl = self.impl();
  if (impl->view_base()) {
    Edge old_base = gradient_edge(Tensor(impl->view_base()));
    Edge src_edge = gradient_edge(src);
    {
      SuspendRecording below;
      self.copy_(src);
    }
    rebase_view_history(self, std::move(old_base), std::move(src_edge));
    return;
  }
  std::vector<Edge> edges{gradient_edge(self), gradient_edge(src)};
  {
    SuspendRecording below;
    self.copy_(src);
  }
  auto node = std::make_shared<LambdaNode>(
      "copy_", std::move(edges),
      [](BackwardContext& c) -> variable_list {
        return {c.needs(0) ? zeros_like(c.grads[0]) : Tensor(), c.grads[0]};
      },
      false, "CopyBackwards");
  node->set_supports_batched_grads(true);  // zeros_like and identity
  node->add_input_metadata(self);
  set_history(self, std::move(node), 0);
}

}  // namespace ember::autograd
