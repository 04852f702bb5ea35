#pragma once
// Indexing: t.index({Slice(), 0, Ellipsis, None, mask, idx}) and index_put_ as
// in PyTorch's C++ frontend, plus gather/scatter, index_select/add/copy/fill,
// masked_select/scatter, nonzero, take.
//
// Basic indices (integers, slices, None, Ellipsis) give views. Index tensors
// (int64/int32 positions, bool/uint8 masks) follow NumPy's advanced indexing:
// see Note [Advanced indexing] in core/src/ops/indexing_ops.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

namespace indexing {

// `None` inserts a new axis of size 1 (Python's None / np.newaxis); it is also
// the "no bound" of a Slice: Slice(None, 3) is Python's [:3].
inline constexpr std::nullopt_t None = std::nullopt;

struct EllipsisIndexType {
  explicit constexpr EllipsisIndexType() = default;
};
// Stands for as many full slices as needed (Python's `...`; "..." also works).
inline constexpr EllipsisIndexType Ellipsis{};

// Python's start:stop:step. Bounds may be negative (counted from the end) and
// are clamped to the axis like Python's; step must be positive.
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

}  // namespace indexing

// One entry of t.index({...}): None, Ellipsis, an integer, a bool, a Slice or a Tensor.
class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}
  TensorIndex(indexing::EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  // Only "..." is accepted; anything else throws.
  TensorIndex(const char* str);
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T integer) : kind_(Kind::Integer), integer_(static_cast<int64_t>(integer)) {}
  template <class T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T boolean) : kind_(Kind::Boolean), boolean_(boolean) {}
  TensorIndex(indexing::Slice slice) : kind_(Kind::Slice), slice_(slice) {}
  TensorIndex(Tensor tensor) : kind_(Kind::Tensor), tensor_(std::move(tensor)) {}

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_ellipsis() const { return kind_ == Kind::Ellipsis; }
  bool is_integer() const { return kind_ == Kind::Integer; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const indexing::Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  indexing::Slice slice_;
  Tensor tensor_;
};

std::ostream& operator<<(std::ostream& os, const TensorIndex& index);

namespace indexing {
using ember::TensorIndex;
}

// ---- advanced indexing with a list of index tensors (at::index, at::index_put_) ----
// indices[i] indexes dim i (a k-d mask covers k dims); std::nullopt keeps a dim whole.
Tensor index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices);
// self[indices] = values (broadcast to the indexing result; same dtype as self).
// With accumulate, values at repeated positions are summed: self[indices] += values.
Tensor& index_put_(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                   bool accumulate = false);
Tensor index_put(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                 bool accumulate = false);

// ---- gather / scatter ----
// out[i][j][k] = self[index[i][j][k]][j][k] (dim 0); index is int64 with self's rank.
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false);
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                   bool sparse_grad = false);
// self[index[i][j][k]][j][k] = src[i][j][k] (dim 0). reduce: "add" or "multiply".
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// reduce: "sum", "prod", "mean", "amax" or "amin"; include_self=false ignores
// self's values at scattered positions.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);

// ---- index_* along one dim with a 1-d index ----
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);

// ---- masks ----
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor& masked_select_out(Tensor& out, const Tensor& self, const Tensor& mask);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
// Indices of the non-zero elements: int64 of shape (count, self.dim()), row-major order.
Tensor nonzero(const Tensor& self);
Tensor argwhere(const Tensor& self);
// nonzero as one 1-d tensor per dim (numpy.nonzero, torch.nonzero(as_tuple=True)).
std::vector<Tensor> nonzero_numpy(const Tensor& self);
std::vector<Tensor> where(const Tensor& condition);

// ---- flat indexing ----
// self viewed as 1-d (row-major), indexed by int64 `index` of any shape; negatives count from the end.
Tensor take(const Tensor& self, const Tensor& index);
// gather along dim with indices broadcast against self; without dim, self is flattened.
Tensor take_along_dim(const Tensor& self, const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);

}  // namespace ember
