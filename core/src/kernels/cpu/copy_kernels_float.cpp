// The CPU converting copies from float32, float64 sources (Note [Kernels split
// by dtype group] in dtype_groups.h).
#include "kernels/cpu/copy_kernels_impl.h"

namespace ember::cpu_kernels {

#define EMBER_INSTANTIATE(T) template void copy_kernel_from<T>(TensorIterator&, bool, bool);
EMBER_DTYPE_GROUP_FLOAT(EMBER_INSTANTIATE)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu_kernels
