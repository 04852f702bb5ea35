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

// Note [Reductions into another dtype]: sum, mean and prod cast each element to
// the output dtype before accumulating (as PyTorch does). Their bodies are
// compiled only for the outputs a reduction picks by itself: the input's dtype,
// and int64 for integer and bool inputs. For any other output (an explicit
// dtype=), reduce_kernel (reduce_kernels.cpp) first casts the input to the
// output dtype, which gives the same values (the same conversion, done by the
// copy kernel) and saves compiling 11 x 11 loops per op.
template <class T>
constexpr bool reduces_directly_into(DType out) {
  return out == dtype_of_v<T> || (std::is_integral_v<T> && out == kInt64);
}

EMBER_CPU_KERNELS_END
