#pragma once
// The element-wise reductions ProcessGroupGloo hands to gloo::allreduce, one
// per (dtype, ReduceOp), and AVG's division.
#include <cstddef>
#include <functional>

#include <ember/core/dtype.h>
#include <ember/distributed/types.h>

namespace ember::distributed::gloo_detail {

// gloo's reduction signature: out[i] = a[i] op b[i] for n elements.
using ReduceFunction = std::function<void(void* out, const void* a, const void* b, size_t n)>;

// The dtypes of reduce_dtype_supported, for error messages.
inline constexpr const char* kReduceDtypeNames =
    "Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64, Complex64, Complex128";

// True when all_reduce supports dtype (and then every op on it that
// op_supported allows).
bool reduce_dtype_supported(DType dtype);
bool op_supported(DType dtype, ReduceOp op);
// The reduction of op on dtype (AVG reduces with SUM; then divide_in_place).
ReduceFunction reduce_function(DType dtype, ReduceOp op);
// data[i] /= divisor for n elements of dtype (integers truncate, as NCCL's AVG).
void divide_in_place(DType dtype, void* data, size_t n, int64_t divisor);

}  // namespace ember::distributed::gloo_detail
