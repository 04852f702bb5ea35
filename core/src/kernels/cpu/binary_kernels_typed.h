#pragma once
// binary_kernel_for<T>: the CPU binary elementwise kernel for input element
// type T, defined in binary_kernels_impl.h and instantiated per dtype group in
// binary_kernels_<group>.cpp (Note [Kernels split by dtype group] in
// dtype_groups.h).
#include "ops/elementwise_kernels.h"

namespace ember::cpu_kernels {

template <class T>
void binary_kernel_for(TensorIterator& iter, BinaryOp op, const Scalar& alpha);

}  // namespace ember::cpu_kernels
