// The CPU ternary elementwise kernel for complex64, complex128 tensors (Note [Kernels
// split by dtype group] in dtype_groups.h).
#include "kernels/cpu/ternary_kernels_impl.h"

EMBER_CPU_KERNELS_BEGIN

#define EMBER_DEFINE(T)                                                                 \
  void ternary_kernel_for(T, TensorIterator& iter, TernaryOp op, const Scalar& value) { \
    ternary_kernel_body<T>(iter, op, value);                                            \
  }
EMBER_DTYPE_GROUP_COMPLEX(EMBER_DEFINE)
#undef EMBER_DEFINE

EMBER_CPU_KERNELS_END
