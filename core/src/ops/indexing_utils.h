#pragma once
// Helpers shared by the indexing ops (indexing_ops.cpp, scatter_gather_ops.cpp,
// mask_ops.cpp). Not part of the public API.
#include <optional>
#include <vector>

#include "autograd/record.h"
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

// A recorded op's result that came out as a view of a temporary made inside
// the op (x.view(shape) of a fresh buffer): the same data without the view
// link, so that an in-place write to the result rebases its own history.
inline Tensor unview(const Tensor& t) { return t.is_view() ? t.detach() : t; }

// Index lists saved for backward (entries without a tensor stay empty).
using SavedIndices = std::vector<std::optional<autograd::SavedVariable>>;
inline SavedIndices save_indices(autograd::OpRecorder& rec, ArrayRef<std::optional<Tensor>> indices) {
  SavedIndices out;
  for (const auto& i : indices) {
    if (i && i->defined()) out.emplace_back(rec.save(*i));
    else out.emplace_back(std::nullopt);
  }
  return out;
}
inline std::vector<std::optional<Tensor>> unpack_indices(const autograd::BackwardContext& c, const SavedIndices& saved) {
  std::vector<std::optional<Tensor>> out;
  for (const auto& s : saved) {
    if (s) out.emplace_back(c.unpack(*s));
    else out.emplace_back(std::nullopt);
  }
  return out;
}

// grad of a tensor `sizes` broadcast to grad's shape, reduced back (leading
// dims of size 1 may be missing from grad, as index_put drops them).
Tensor reduce_to(const Tensor& grad, IntArrayRef sizes);

// grad (smaller than or equal to `sizes` in every dim) in the leading corner
// of a zero tensor of `sizes`: the gradient of a src that scatter/gather only
// partly read. Written with recorded ops (double backward).
Tensor pad_to(const Tensor& grad, IntArrayRef sizes);

}  // namespace ember
