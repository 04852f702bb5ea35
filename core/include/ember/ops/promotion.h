#pragma once
// Type promotion queries, as torch.result_type / torch.can_cast
// (torch.promote_types is ember::promote_types in ember/core/dtype.h).
#include "ember/core/tensor.h"

namespace ember {

// The dtype an elementwise op computes in for these operands (Note [Type promotion]
// in core/src/iter/tensor_iterator.cpp): dimensioned tensors, zero-dim tensors and
// wrapped numbers are promoted by category.
DType result_type(ArrayRef<Tensor> tensors);
DType result_type(const Tensor& a, const Scalar& b);
// Whether a result of dtype `from` may be written into a tensor of dtype `to`
// (no casting to a lower kind: complex > floating > integral > bool).
bool can_cast(DType from, DType to);

}  // namespace ember
