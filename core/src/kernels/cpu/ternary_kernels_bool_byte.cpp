// The CPU ternary elementwise kernel for bool, uint8, int8 tensors (Note [Kernels
// split by dtype group] in dtype_groups.h).
#include "kernels/cpu/ternary_kernels_impl.h"

namespace ember::cpu_kernels {

#define EMBER_INSTANTIATE(T) template void ternary_kernel_for<T>(TensorIterator&, TernaryOp, const Scalar&);
EMBER_DTYPE_GROUP_BOOL_BYTE(EMBER_INSTANTIATE)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu_kernels
