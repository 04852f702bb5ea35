#pragma once
// ternary_kernel_for(T{}, ...): the CPU ternary elementwise kernel for element type T,
// one overload per dtype, defined in ternary_kernels_<group>.cpp on the body in
// ternary_kernels_impl.h (Note [Kernels split by dtype group] in dtype_groups.h).
#include "kernels/cpu/dtype_groups.h"
#include "kernels/slots/elementwise_kernels.h"

EMBER_CPU_KERNELS_BEGIN

// One overload per element type T (the first argument is a tag, its value unused).
#define EMBER_DECLARE(T) \
  void ternary_kernel_for(T, TensorIterator& iter, TernaryOp op, const Scalar& value);
EMBER_DTYPE_GROUPS_ALL(EMBER_DECLARE)
#undef EMBER_DECLARE

EMBER_CPU_KERNELS_END
