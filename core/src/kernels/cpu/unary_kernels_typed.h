#pragma once
// unary_kernel_for<T>: the CPU unary elementwise kernel for input element type
// T, defined in unary_kernels_impl.h and instantiated per dtype group in
// unary_kernels_<group>.cpp (Note [Kernels split by dtype group] in
// dtype_groups.h).
#include "ops/elementwise_kernels.h"

namespace ember::cpu_kernels {

template <class T>
void unary_kernel_for(TensorIterator& iter, UnaryOp op);

}  // namespace ember::cpu_kernels
