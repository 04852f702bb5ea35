// The CPU unary elementwise kernel for float32, float64 inputs (Note [Kernels split by
// dtype group] in dtype_groups.h).
#include "kernels/cpu/unary_kernels_impl.h"

EMBER_CPU_KERNELS_BEGIN

#define EMBER_DEFINE(T)                                        \
  void unary_kernel_for(T, TensorIterator& iter, UnaryOp op) { \
    unary_kernel_body<T>(iter, op);                            \
  }
EMBER_DTYPE_GROUP_FLOAT(EMBER_DEFINE)
#undef EMBER_DEFINE

EMBER_CPU_KERNELS_END
