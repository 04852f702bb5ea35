// The CPU unary elementwise kernel for bool, uint8, int8 inputs (Note [Kernels split
// by dtype group] in dtype_groups.h).
#include "kernels/cpu/unary_kernels_impl.h"

namespace ember::cpu_kernels {

#define EMBER_INSTANTIATE(T) template void unary_kernel_for<T>(TensorIterator&, UnaryOp);
EMBER_DTYPE_GROUP_BOOL_BYTE(EMBER_INSTANTIATE)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu_kernels
