// The CPU binary elementwise kernel for bool, uint8, int8 inputs (Note [Kernels split
// by dtype group] in dtype_groups.h).
#include "kernels/cpu/binary_kernels_impl.h"

namespace ember::cpu_kernels {

#define EMBER_INSTANTIATE(T) template void binary_kernel_for<T>(TensorIterator&, BinaryOp, const Scalar&);
EMBER_DTYPE_GROUP_BOOL_BYTE(EMBER_INSTANTIATE)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu_kernels
