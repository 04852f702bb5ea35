#pragma once
// Small helpers shared by op implementations: dim wrapping, broadcasting,
// wrapped scalars.
#include "ember/core/checked_size.h"
#include "ember/core/tensor.h"

namespace ember {

// Maps a possibly negative dim into [0, ndim); throws naming the op otherwise.
// A 0-d tensor accepts dims -1 and 0, as in PyTorch.
inline int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = ndim <= 0 ? 1 : ndim;
  EMBER_CHECK(dim >= -n && dim < n, op, ": dimension out of range (expected to be in range of [",
              -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

// Broadcast shape of a and b (NumPy rules); throws naming op and both shapes.
DimVector infer_broadcast_size(IntArrayRef a, IntArrayRef b, const char* op);

// Bitmask of the dims in `dims` (wrapped), rejecting repeats. Empty = all dims.
uint64_t dims_to_mask(IntArrayRef dims, int64_t ndim, const char* op);

// A 0-d tensor marked as a wrapped number, for Tensor-Scalar ops.
Tensor scalar_to_tensor(const Scalar& s, Device device = kCPU);

// The number of elements of `sizes`, checked (Note [Checked sizes]).
inline int64_t numel_of(IntArrayRef sizes, const char* op = "numel") { return checked_numel(sizes, op); }

// empty / empty_strided whose size and out-of-memory errors name `op`
// (Note [Checked sizes]): ops that allocate outputs from computed sizes use
// these, so a user sees "repeat: ..." rather than "empty: ...".
Tensor empty_for(const char* op, IntArrayRef sizes, const TensorOptions& options);
Tensor empty_strided_for(const char* op, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options);

// True if some element of `t` is stored in the same place as another
// (expanded tensors): writing through it would race and lose writes.
bool has_internal_overlap(const Tensor& t);

// Throws unless sizes are all non-negative.
void check_sizes_nonnegative(IntArrayRef sizes, const char* op);

}  // namespace ember
