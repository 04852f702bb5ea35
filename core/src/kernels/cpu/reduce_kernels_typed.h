#pragma once
// reduce_kernel_for<T> / arg_reduce_kernel_for<T>: the CPU reduction kernels
// for input element type T, defined in reduce_kernels_impl.h and instantiated
// per dtype group in reduce_kernels_<group>.cpp (Note [Kernels split by dtype
// group] in dtype_groups.h).
#include "ops/reduce_kernels.h"

namespace ember::cpu_kernels {

template <class T>
void reduce_kernel_for(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params);
template <class T>
void arg_reduce_kernel_for(const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask, ArgReduceOp op);

}  // namespace ember::cpu_kernels
