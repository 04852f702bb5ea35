// CPU kernels of ember::special's Bessel functions: the scalar math of
// special_math_bessel.h over the iterator. Every floating dtype evaluates in
// double (long double inside) and rounds once more to its own type.
#include "kernels/cpu/special_loops.h"
#include "kernels/cpu/special_math_bessel.h"
#include "kernels/slots/special_bessel_kernels.h"

namespace ember {
namespace {

namespace sm = special_math;
using special_loops::binary_over_floating;
using special_loops::unary_over_floating;

void special_bessel_kernel(TensorIterator& iter, SpecialBesselOp op) {
  switch (op) {
    case SpecialBesselOp::I0: return unary_over_floating(iter, [](double x) { return sm::i0(x); });
    case SpecialBesselOp::I0e: return unary_over_floating(iter, [](double x) { return sm::i0e(x); });
    case SpecialBesselOp::I1: return unary_over_floating(iter, [](double x) { return sm::i1(x); });
    case SpecialBesselOp::I1e: return unary_over_floating(iter, [](double x) { return sm::i1e(x); });
    case SpecialBesselOp::J0: return unary_over_floating(iter, [](double x) { return sm::bessel_j0(x); });
    case SpecialBesselOp::J1: return unary_over_floating(iter, [](double x) { return sm::bessel_j1(x); });
  }
  EMBER_FAIL(iter.op_name(), ": unknown special op");
}

}  // namespace

EMBER_REGISTER_KERNEL(special_bessel_slot, CPU, special_bessel_kernel);
// Every op computes the floating dtypes (special_loops.h's dispatch).
constexpr uint32_t kBesselDTypes[] = {kMaskFloating, kMaskFloating, kMaskFloating,
                                      kMaskFloating, kMaskFloating, kMaskFloating};
static_assert(std::size(kBesselDTypes) == std::size(kSpecialBesselOpNames));
static const bool bessel_op_dtypes_registered = special_bessel_slot.set_op_dtypes(DeviceType::CPU, kBesselDTypes);

}  // namespace ember
