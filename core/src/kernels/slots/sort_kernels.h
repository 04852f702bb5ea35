#pragma once
// Kernel slots of the sort family. Ops (sort_ops.cpp) check dims, k and
// dtypes and allocate contiguous outputs shaped like the input except along
// `dim`; kernels fill them slice by slice. NaN orders above every number and
// equal values keep their input order, so every result is deterministic.
#include <cstddef>
#include <iterator>
#include <tuple>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

// values/indices: in's shape.
using SortFn = void(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, bool descending);
extern KernelSlot<SortFn> sort_slot;

// values/indices: size k along dim; sorted=false may leave the k in any order.
using TopkFn = void(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, int64_t k, bool largest,
                    bool sorted);
extern KernelSlot<TopkFn> topk_slot;

// One entry per slice (values/indices of size 1 along dim):
//  Kth: the k-th smallest (k from 0); Median: NaN (first one) if the slice has
//  any, else the lower median; NanMedian: lower median of the non-NaN entries.
enum class SelectOp { Kth, Median, NanMedian };
// Op names (select_slot is a family slot: missing_kernels reports single ops).
inline constexpr const char* kSelectOpNames[] = {"kthvalue", "median", "nanmedian"};
static_assert(std::size(kSelectOpNames) == static_cast<size_t>(SelectOp::NanMedian) + 1);
using SelectFn = void(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, SelectOp op, int64_t k);
extern KernelSlot<SelectFn> select_slot;

// Most frequent value per slice (smallest on frequency ties) and its last index.
using ModeFn = void(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim);
extern KernelSlot<ModeFn> mode_slot;

// in: 1-d contiguous. Returns (values, inverse, counts); the output size
// depends on the data, so the kernel allocates. inverse/counts are empty
// unless asked for. consecutive: collapse runs only, without sorting.
using UniqueFn = std::tuple<Tensor, Tensor, Tensor>(const Tensor& in, bool consecutive, bool return_inverse,
                                                    bool return_counts);
extern KernelSlot<UniqueFn> unique_slot;

}  // namespace ember
