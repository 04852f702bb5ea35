#pragma once
// unary_kernel_for(T{}, ...): the CPU unary elementwise kernel for element type T, one
// overload per dtype, defined in unary_kernels_<group>.cpp on the body in
// unary_kernels_impl.h (Note [Kernels split by dtype group] in dtype_groups.h).
#include "kernels/cpu/dtype_groups.h"
#include "kernels/slots/elementwise_kernels.h"

EMBER_CPU_KERNELS_BEGIN

// One overload per element type T (the first argument is a tag, its value unused).
#define EMBER_DECLARE(T) void unary_kernel_for(T, TensorIterator& iter, UnaryOp op);
EMBER_DTYPE_GROUPS_ALL(EMBER_DECLARE)
#undef EMBER_DECLARE

EMBER_CPU_KERNELS_END
