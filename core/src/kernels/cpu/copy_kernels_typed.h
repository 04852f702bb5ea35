#pragma once
// copy_kernel_from<S>: the CPU converting copy (with the conjugate and negate
// bits applied) from source element type S to any destination dtype, defined
// in copy_kernels_impl.h and instantiated per dtype group in
// copy_kernels_<group>.cpp (Note [Kernels split by dtype group] in
// dtype_groups.h).
#include "iter/tensor_iterator.h"

namespace ember::cpu_kernels {

// conjugate only with a complex destination.
template <class S>
void copy_kernel_from(TensorIterator& iter, bool conjugate, bool negate);

}  // namespace ember::cpu_kernels
