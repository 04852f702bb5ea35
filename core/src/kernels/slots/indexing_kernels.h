#pragma once
// Kernel slots of the indexing family. The ops (indexing_ops.cpp,
// scatter_gather_ops.cpp, mask_ops.cpp) check arguments, compute shapes and
// restride operands; kernels only compute. Index values are checked by the
// kernels as they read them (that is the only pass over them), and errors say
// "<op>: index 5 is out of bounds for dimension 1 with size 4".
#include <cstddef>
#include <iterator>

#include "iter/tensor_iterator.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

// Where an index is checked against: the axis it addresses and how to report it.
struct IndexBound {
  const char* op;
  int64_t dim;        // reported dimension
  int64_t size;       // valid indices: [0, size), or [-size, size) with wrap_negative
  bool wrap_negative;
};

// ---- advanced indexing (index / index_put_) ----
// Output 0 (int64) = [input 0 (int64 running offsets) +] bound-checked input
// `index` (int64) * stride: element offsets built one index tensor at a time.
using IndexOffsetsFn = void(TensorIterator& iter, const IndexBound& bound, int64_t stride);
extern KernelSlot<IndexOffsetsFn> index_offsets_slot;
// Operands (out, src, offsets): out = src[offsets] (src is self restrided so
// its indexed dims have stride 0; offsets are in elements).
using IndexGatherFn = void(TensorIterator& iter);
extern KernelSlot<IndexGatherFn> index_gather_slot;
// Operands (dst, values, offsets): dst[offsets] = values, or += with accumulate
// (then serially, so repeated offsets add up deterministically).
using IndexPutFn = void(TensorIterator& iter, bool accumulate);
// Op names, indexed by `accumulate` (index_put_slot is a family slot of two
// ops: accumulation is a kernel of its own, serial on the CPU).
inline constexpr const char* kIndexPutOpNames[] = {"index_put", "index_put_accumulate"};
extern KernelSlot<IndexPutFn> index_put_slot;
// out = self.index_select(dim, index) for contiguous self and out; index is a
// contiguous 1-d int64 tensor. Rows of the inner block are copied whole.
using IndexSelectFn = void(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out,
                           const IndexBound& bound);
extern KernelSlot<IndexSelectFn> index_select_slot;

// ---- gather / scatter along one dim ----
// The op restrides every operand to the index's shape with size 1 along `dim`,
// so the iterator walks all other positions (in parallel: they never collide)
// and the kernel walks `dim` itself with the strides given here (in elements).
struct ScatterGatherDims {
  int64_t n;             // index.size(dim): entries per position
  int64_t self_stride;   // self's stride along dim
  int64_t index_stride;  // index's stride along dim
  int64_t src_stride;    // src's (scatter) or out's (gather) stride along dim
  bool dim_is_inner;     // walk dim innermost (else positions innermost, per entry)
  IndexBound bound;      // self.size(dim)
};
// Operands (out, self, index): out[j] = self[index[j]].
using GatherFn = void(TensorIterator& iter, const ScatterGatherDims& dims);
extern KernelSlot<GatherFn> gather_slot;
enum class ScatterOp { Assign, Add, Multiply, Amax, Amin };
// Op names (scatter_slot and scatter_scalar_slot are family slots:
// missing_kernels reports single ops).
inline constexpr const char* kScatterOpNames[] = {"assign", "add", "multiply", "amax", "amin"};
static_assert(std::size(kScatterOpNames) == static_cast<size_t>(ScatterOp::Amin) + 1);
// Operands (self, src, index), or (self, index) with a scalar value:
// self[index[j]] (op)= src[j] or value.
using ScatterFn = void(TensorIterator& iter, const ScatterGatherDims& dims, ScatterOp op);
extern KernelSlot<ScatterFn> scatter_slot;
using ScatterScalarFn = void(TensorIterator& iter, const ScatterGatherDims& dims, ScatterOp op,
                             const Scalar& value);
extern KernelSlot<ScatterScalarFn> scatter_scalar_slot;

// ---- masks (data-dependent output sizes: these kernels allocate their result) ----
// self and mask: contiguous, same shape, mask bool. Returns the selected elements, 1-d.
using MaskedSelectFn = Tensor(const Tensor& self, const Tensor& mask);
extern KernelSlot<MaskedSelectFn> masked_select_slot;
// self contiguous: returns int64 (count, self.dim()) indices of non-zeros, row-major.
using NonzeroFn = Tensor(const Tensor& self);
extern KernelSlot<NonzeroFn> nonzero_slot;
// self and mask contiguous with one shape, mask bool, source contiguous 1-d of
// self's dtype: the k-th true position of mask gets source[k].
using MaskedScatterFn = void(Tensor& self, const Tensor& mask, const Tensor& source);
extern KernelSlot<MaskedScatterFn> masked_scatter_slot;

}  // namespace ember
