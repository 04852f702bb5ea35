#pragma once
// Helpers shared by backward formulas (each formula lives beside its op).
#include <vector>

#include "ember/core/tensor.h"

namespace ember::autograd {

// dims wrapped to [0, ndim); empty means all dims.
DimVector reduced_dims(IntArrayRef dims, int64_t ndim);
// A reduction's gradient brought back to the input's shape: the reduced dims
// re-inserted (when !keepdim) and expanded.
Tensor expand_reduced(const Tensor& grad, IntArrayRef self_sizes, IntArrayRef dims, bool keepdim);
// The same re-insertion without expanding (for values/indices of max, median...).
Tensor unsqueeze_reduced(const Tensor& t, int64_t ndim, IntArrayRef dims, bool keepdim);
// Zeros of `sizes` with `grad` written into the region `select/slice/diagonal`
// would read; written with Tensor ops so that it records under create_graph.
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t start, int64_t end, int64_t step);

// Note [Wrapped numbers in formulas]
// A number operand (x * 0.1, pow(0.1, x)) is a float64/complex128/int64 0-d
// tensor marked as wrapped, and type promotion ranks a wrapped number below
// every tensor: a unary op on it, or an op between two of them, computes in
// the default dtype (float32). A formula that works on a saved number alone
// (log(base) of pow(Scalar, Tensor), y * y of atan2(Tensor, Scalar)) would
// round it to float32 even for float64 inputs (d/dx sum(0.1 ** x) at 0.5 came
// out as -0.72814135, not -0.72814134). The formulas get such operands as
// plain 0-d tensors instead: they keep their own precision, and next to a
// tensor of the result's dtype (the gradient, or the other operand) they never
// change a result dtype, since the result already has the higher category.
Tensor plain_number(const Tensor& t);

// t.conj() for complex tensors, t itself otherwise.
Tensor maybe_conj(const Tensor& t);
// Gradient of an op that picked one element per slice along dim (max(dim),
// sort, topk, kthvalue, median(dim), mode): grad scattered to `indices` in
// zeros of `sizes` (PyTorch's value_selecting_reduction_backward).
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);
// Gradient of a full max/min/median: shared evenly by the elements equal to
// `value` (0-d), or by the NaNs when value is NaN (evenly_distribute_backward).
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value);
// The adjoint of a gather by one index map per dim (out[j0, j1..] =
// in[maps[0][j0], maps[1][j1]..]; undefined maps are the identity), the
// backward of repeat_interleave and reflect/replicate/circular pad: each
// gradient element is added to the input position it was read from. Recorded
// (its backward gathers again), so double backward needs no index-op formulas.
Tensor index_map_backward(const Tensor& grad, IntArrayRef input_sizes, const std::vector<Tensor>& maps);

}  // namespace ember::autograd
