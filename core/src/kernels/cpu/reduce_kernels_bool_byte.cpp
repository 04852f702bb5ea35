// The CPU reduction kernels for bool, uint8, int8 inputs (Note [Kernels split by
// dtype group] in dtype_groups.h).
#include "kernels/cpu/reduce_kernels_impl.h"

namespace ember::cpu_kernels {

#define EMBER_INSTANTIATE(T)                                                                            \
  template void reduce_kernel_for<T>(const Tensor&, Tensor&, uint64_t, ReduceOp, const ReduceParams&); \
  template void arg_reduce_kernel_for<T>(const Tensor&, Tensor&, Tensor&, uint64_t, ArgReduceOp);
EMBER_DTYPE_GROUP_BOOL_BYTE(EMBER_INSTANTIATE)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu_kernels
