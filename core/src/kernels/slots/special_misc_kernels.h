#pragma once
// Kernel slots of ember::special's sinc, entr, logit, xlog1py and
// round(decimals) (misc_ops.cpp checks arguments and builds the iterator;
// kernels/cpu/special_misc_kernels.cpp computes).
#include <cstdint>

#include <cstddef>
#include <iterator>

#include "iter/tensor_iterator.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

enum class SpecialMiscUnaryOp { Sinc, Entr };
// Op names (a family slot: missing_kernels reports single ops).
inline constexpr const char* kSpecialMiscUnaryOpNames[] = {"sinc", "entr"};
static_assert(std::size(kSpecialMiscUnaryOpNames) == static_cast<size_t>(SpecialMiscUnaryOp::Entr) + 1);
using SpecialMiscUnaryFn = void(TensorIterator&, SpecialMiscUnaryOp);
extern KernelSlot<SpecialMiscUnaryFn> special_misc_unary_slot;

// eps < 0: no clamping; else the input is clamped to [eps, 1 - eps] first.
using LogitFn = void(TensorIterator&, double eps);
extern KernelSlot<LogitFn> logit_slot;

// Inputs (self, other) of the common dtype -> self * log1p(other).
using Xlog1pyFn = void(TensorIterator&);
extern KernelSlot<Xlog1pyFn> xlog1py_slot;

using RoundDecimalsFn = void(TensorIterator&, int64_t decimals);
extern KernelSlot<RoundDecimalsFn> round_decimals_slot;

}  // namespace ember
