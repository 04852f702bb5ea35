#pragma once
// Helpers shared by the indexing ops (indexing_ops.cpp, scatter_gather_ops.cpp,
// mask_ops.cpp). Not part of the public API.
#include "ember/core/tensor.h"

namespace ember {

// self.index_select(dim, index) generalised to an int64 index of any shape:
// result sizes = self.sizes()[:dim] + index.sizes() + self.sizes()[dim+1:].
// Negative indices count from the end when wrap_negative; errors name `op`.
Tensor index_along_dim(const Tensor& self, int64_t dim, const Tensor& index, const char* op,
                       bool wrap_negative);

// An int64 (or int32, converted) index tensor, else an error naming op and dtype.
Tensor checked_long_index(const Tensor& index, const char* op, bool allow_int32);

// Writes `result` into an out= tensor: copied when the shapes agree, adopted
// (storage and geometry) when out is empty, else an error naming op.
Tensor& assign_result(Tensor& out, const Tensor& result, const char* op);

}  // namespace ember
