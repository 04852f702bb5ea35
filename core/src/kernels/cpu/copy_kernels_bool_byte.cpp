// The CPU converting copies for bool, uint8, int8 sources (Note [Kernels split by dtype
// group] in dtype_groups.h).
#include "kernels/cpu/copy_kernels_impl.h"

EMBER_CPU_KERNELS_BEGIN

#define EMBER_DEFINE(T)                                                         \
  void copy_kernel_from(T, TensorIterator& iter, bool conjugate, bool negate) { \
    copy_kernel_from_body<T>(iter, conjugate, negate);                          \
  }
EMBER_DTYPE_GROUP_BOOL_BYTE(EMBER_DEFINE)
#undef EMBER_DEFINE

EMBER_CPU_KERNELS_END
