// The CPU reduction kernels for float16, bfloat16 inputs (Note [Kernels split by dtype
// group] in dtype_groups.h).
#include "kernels/cpu/reduce_kernels_impl.h"

EMBER_CPU_KERNELS_BEGIN

#define EMBER_DEFINE(T)                                                                                              \
  void reduce_kernel_for(T, const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params) { \
    reduce_kernel_body<T>(in, out, mask, op, params);                                                                \
  }
EMBER_DTYPE_GROUP_REDUCED_FLOAT(EMBER_DEFINE)
#undef EMBER_DEFINE
#define EMBER_DEFINE(T)                                                                                             \
  void arg_reduce_kernel_for(T, const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask, ArgReduceOp op) { \
    arg_reduce_kernel_body<T>(in, values, indices, mask, op);                                                       \
  }
EMBER_DTYPE_GROUP_REDUCED_FLOAT(EMBER_DEFINE)
#undef EMBER_DEFINE

EMBER_CPU_KERNELS_END
