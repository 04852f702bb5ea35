#pragma once
// Note [Scalar overflow]
// Ops that store a Scalar into a tensor of a given dtype (fill_, full and its
// *_like/new_ forms, masked_fill, index_fill, scatter with a value, clamp's
// bounds) refuse a value that the dtype cannot hold, as PyTorch's
// checked_convert does ("value cannot be converted to type uint8_t without
// overflow"), instead of wrapping silently (uint8 -1.5 -> 255, int32 1e10 ->
// 1410065408, int64 inf -> INT64_MIN). The rule, c10's overflows<To, From>:
//  - a bool target or a bool value never overflows;
//  - an integer value must lie in [lowest, max] of the target, except that an
//    unsigned target also takes negatives down to -max (two's complement wrap:
//    uint8 -1 is 255, as PyTorch);
//  - a floating value must lie in [lowest, max] of the target (of its real
//    type for complex targets); infinities pass for floating targets, NaN
//    fails for integer targets; in-range fractions truncate (int32 1.5 -> 1);
//  - a complex value with a non-zero imaginary part fails for real targets,
//    and each part is checked as a floating value.
// One deliberate difference: PyTorch compares a double against
// double(INT64_MAX) == 2^63, so it accepts 2^63 for int64 and stores garbage;
// Ember rejects it.
#include "ember/core/dtype.h"
#include "ember/core/scalar.h"

namespace ember {

// True if `value` does not fit `dtype` under the rule above.
bool scalar_overflows(const Scalar& value, DType dtype);

// Throws "op: value cannot be converted to type <dtype> without overflow
// (value ...)" when scalar_overflows(value, dtype).
void check_scalar_fits(const Scalar& value, DType dtype, const char* op);

}  // namespace ember
