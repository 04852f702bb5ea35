#pragma once
// Helpers shared by backward formulas (each formula lives beside its op).
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

}  // namespace ember::autograd
