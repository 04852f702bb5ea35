#pragma once
// Kernel slots of the copy family (copy_, fill_), used by factories and ops.
#include "iter/tensor_iterator.h"
#include "kernels/slots/dispatch_stub.h"

namespace ember {
// Output 0 gets input 0, converted to the output's dtype, then conjugated
// (complex outputs) and/or negated when asked: the fused copy that consumes
// conjugate/negative views (Note [Conjugate bit]).
using CopyFn = void(TensorIterator&, bool conjugate, bool negate);
extern DispatchStub<CopyFn> copy_stub;
using FillFn = void(TensorIterator&, const Scalar&);
extern DispatchStub<FillFn> fill_stub;
}  // namespace ember
