#pragma once
// ternary_kernel_for<T>: the CPU ternary elementwise kernel (lerp, addcmul,
// addcdiv, where, clamp with tensor bounds) for element type T of the output,
// defined in ternary_kernels_impl.h and instantiated per dtype group in
// ternary_kernels_<group>.cpp (Note [Kernels split by dtype group] in
// dtype_groups.h).
#include "ops/elementwise_kernels.h"

namespace ember::cpu_kernels {

template <class T>
void ternary_kernel_for(TensorIterator& iter, TernaryOp op, const Scalar& value);

}  // namespace ember::cpu_kernels
