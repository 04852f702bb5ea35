#pragma once
// Kernel slot of ember::special's Bessel functions (bessel_ops.cpp checks
// arguments and builds the iterator; kernels/cpu/special_bessel_kernels.cpp computes).
#include <cstddef>
#include <iterator>

#include "iter/tensor_iterator.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

enum class SpecialBesselOp { I0, I0e, I1, I1e, J0, J1 };
// Op names (a family slot: missing_kernels reports single ops).
inline constexpr const char* kSpecialBesselOpNames[] = {"i0", "i0e", "i1", "i1e", "bessel_j0", "bessel_j1"};
static_assert(std::size(kSpecialBesselOpNames) == static_cast<size_t>(SpecialBesselOp::J1) + 1);
using SpecialBesselFn = void(TensorIterator&, SpecialBesselOp);
extern KernelSlot<SpecialBesselFn> special_bessel_slot;

}  // namespace ember
