// The CPU binary elementwise kernel for int16, int32, int64 inputs (Note [Kernels split
// by dtype group] in dtype_groups.h).
#include "kernels/cpu/binary_kernels_impl.h"

EMBER_CPU_KERNELS_BEGIN

#define EMBER_DEFINE(T)                                                               \
  void binary_kernel_for(T, TensorIterator& iter, BinaryOp op, const Scalar& alpha) { \
    binary_kernel_body<T>(iter, op, alpha);                                           \
  }
EMBER_DTYPE_GROUP_INT(EMBER_DEFINE)
#undef EMBER_DEFINE

EMBER_CPU_KERNELS_END
