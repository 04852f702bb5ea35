#pragma once
// Kernel slots of the reduction family. Ops (reduce_ops.cpp) validate dims and
// dtypes and allocate keepdim-shaped outputs; kernels fill them.
#include <cstddef>
#include <iterator>

#include "kernels/slots/kernel_slot.h"
#include "ember/core/tensor.h"

namespace ember {

enum class ReduceOp { Sum, Prod, Mean, Amax, Amin, All, Any, CountNonzero, NormP, Norm0, NormInf, NormNegInf, Var };
// Op names (reduce_slot is a family slot: missing_kernels reports single ops).
// Var also computes std (ReduceParams::take_sqrt).
inline constexpr const char* kReduceOpNames[] = {
    "sum", "prod", "mean", "amax", "amin", "all", "any", "count_nonzero",
    "norm_p", "norm_0", "norm_inf", "norm_neg_inf", "var"};
static_assert(std::size(kReduceOpNames) == static_cast<size_t>(ReduceOp::Var) + 1);
struct ReduceParams {
  double p = 2;            // NormP exponent
  int64_t correction = 1;  // Var
  bool take_sqrt = false;  // Var -> std
};
// out: keepdim shape, dtype chosen by the op; computes over the dims in mask.
using ReduceFn = void(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params);
extern KernelSlot<ReduceFn> reduce_slot;

enum class ArgReduceOp { Max, Min };
// Op names (max/min with a dim, argmax/argmin).
inline constexpr const char* kArgReduceOpNames[] = {"max", "min"};
static_assert(std::size(kArgReduceOpNames) == static_cast<size_t>(ArgReduceOp::Min) + 1);
// values (input dtype) and indices (int64): keepdim shape; indices are flat
// positions within the reduced dims; ties and NaNs resolve to the first.
using ArgReduceFn = void(const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask, ArgReduceOp op);
extern KernelSlot<ArgReduceFn> arg_reduce_slot;

}  // namespace ember
