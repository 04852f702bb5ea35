#pragma once
// reduce_kernel_for(T{}, ...) / arg_reduce_kernel_for(T{}, ...): the CPU reduction
// kernels for element type T, one overload per dtype, defined in
// reduce_kernels_<group>.cpp on the body in reduce_kernels_impl.h (Note [Kernels split
// by dtype group] in dtype_groups.h).
#include "kernels/cpu/dtype_groups.h"
#include "kernels/slots/reduce_kernels.h"

EMBER_CPU_KERNELS_BEGIN

// One overload per element type T (the first argument is a tag, its value unused).
#define EMBER_DECLARE(T) \
  void reduce_kernel_for(T, const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params);
EMBER_DTYPE_GROUPS_ALL(EMBER_DECLARE)
#undef EMBER_DECLARE
#define EMBER_DECLARE(T) \
  void arg_reduce_kernel_for(T, const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask, ArgReduceOp op);
EMBER_DTYPE_GROUPS_ALL(EMBER_DECLARE)
#undef EMBER_DECLARE

EMBER_CPU_KERNELS_END
