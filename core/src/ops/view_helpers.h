#pragma once
// Internal helpers of the view ops (view_ops.cpp, complex_view_ops.cpp):
// a new TensorImpl over a tensor's storage, and the recording of a view's
// backward.
#include <optional>
#include <utility>

#include "autograd/record.h"
#include "ember/core/tensor.h"

namespace ember {

// A view of base's storage with the given geometry (and dtype): it keeps
// base's conjugate/negative bits when the dtype is unchanged, and under grad
// mode remembers its root base (Note [In-place writes and views]).
// differentiable_dtype: the dtype changes but the view is differentiable
// (real()/imag() of a complex tensor).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 std::optional<DType> dtype = std::nullopt, bool differentiable_dtype = false);

// Records a view op's backward: `backward` maps the view's gradient to self's.
template <class F>
Tensor recorded_view(const char* op, const Tensor& self, Tensor view, F&& backward) {
  autograd::OpRecorder rec(op, {self});
  if (rec)
    rec.record(view, [b = std::forward<F>(backward)](autograd::BackwardContext& c) {
      return autograd::variable_list{b(c.grads[0])};
    });
  return view;
}

}  // namespace ember
