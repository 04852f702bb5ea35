#pragma once
// Kernel slots of the scan family. Ops (scan_ops.cpp) check dims, convert the
// input to the result dtype and allocate outputs of the input's shape.
#include <cstddef>
#include <iterator>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

enum class ScanOp { Sum, Prod, LogSumExp };
// Op names (scan_slot is a family slot: missing_kernels reports single ops).
inline constexpr const char* kScanOpNames[] = {"cumsum", "cumprod", "logcumsumexp"};
static_assert(std::size(kScanOpNames) == static_cast<size_t>(ScanOp::LogSumExp) + 1);
// out[..., i, ...] = op over in[..., 0..i, ...] along dim; in and out share dtype and shape.
using ScanFn = void(const Tensor& in, Tensor& out, int64_t dim, ScanOp op);
extern KernelSlot<ScanFn> scan_slot;

// values: running max (is_max) or min along dim; indices (int64): where it was
// last attained (ties move the index forward; a NaN sticks, as in PyTorch).
using CumMinMaxFn = void(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, bool is_max);
// Op names, indexed by is_max (cum_min_max_slot is a family slot of two ops).
inline constexpr const char* kCumMinMaxOpNames[] = {"cummin", "cummax"};
extern KernelSlot<CumMinMaxFn> cum_min_max_slot;

}  // namespace ember
