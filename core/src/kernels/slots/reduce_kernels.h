#pragma once
// Kernel slots of the reduction family. Ops (reduce_ops.cpp) validate dims and
// dtypes and allocate keepdim-shaped outputs; kernels fill them.
#include "kernels/slots/kernel_slot.h"
#include "ember/core/tensor.h"

namespace ember {

enum class ReduceOp { Sum, Prod, Mean, Amax, Amin, All, Any, CountNonzero, NormP, Norm0, NormInf, NormNegInf, Var };
struct ReduceParams {
  double p = 2;            // NormP exponent
  int64_t correction = 1;  // Var
  bool take_sqrt = false;  // Var -> std
};
// out: keepdim shape, dtype chosen by the op; computes over the dims in mask.
using ReduceFn = void(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params);
extern KernelSlot<ReduceFn> reduce_slot;

enum class ArgReduceOp { Max, Min };
// values (input dtype) and indices (int64): keepdim shape; indices are flat
// positions within the reduced dims; ties and NaNs resolve to the first.
using ArgReduceFn = void(const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask, ArgReduceOp op);
extern KernelSlot<ArgReduceFn> arg_reduce_slot;

}  // namespace ember
