#pragma once
// Kernel slot of ember::special's Bessel functions (bessel_ops.cpp checks
// arguments and builds the iterator; kernels/cpu/special_bessel_kernels.cpp computes).
#include "iter/tensor_iterator.h"
#include "kernels/slots/dispatch_stub.h"

namespace ember {

enum class SpecialBesselOp { I0, I0e, I1, I1e, J0, J1 };
using SpecialBesselFn = void(TensorIterator&, SpecialBesselOp);
extern DispatchStub<SpecialBesselFn> special_bessel_stub;

}  // namespace ember
