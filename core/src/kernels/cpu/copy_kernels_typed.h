#pragma once
// copy_kernel_from(T{}, ...): the CPU converting copies for element type T, one overload
// per dtype, defined in copy_kernels_<group>.cpp on the body in copy_kernels_impl.h
// (Note [Kernels split by dtype group] in dtype_groups.h).
#include "iter/tensor_iterator.h"
#include "kernels/cpu/dtype_groups.h"

EMBER_CPU_KERNELS_BEGIN

// One overload per element type T (the first argument is a tag, its value unused).
#define EMBER_DECLARE(T) \
  void copy_kernel_from(T, TensorIterator& iter, bool conjugate, bool negate);
EMBER_DTYPE_GROUPS_ALL(EMBER_DECLARE)
#undef EMBER_DECLARE

EMBER_CPU_KERNELS_END
