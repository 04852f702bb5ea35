// CPU kernels of ember::special's gamma / erf family: the scalar math of
// special_math_gamma.h over the iterator. Every floating dtype evaluates in
// double and rounds once (see that header).
#include "kernels/cpu/special_loops.h"
#include "kernels/cpu/special_math_gamma.h"
#include "kernels/slots/special_gamma_kernels.h"

namespace ember {
namespace {

namespace sm = special_math;
using special_loops::binary_over_floating;
using special_loops::unary_over_floating;

void special_gamma_unary_kernel(TensorIterator& iter, SpecialGammaUnaryOp op) {
  switch (op) {
    case SpecialGammaUnaryOp::Gammaln: return unary_over_floating(iter, [](double x) { return sm::gammaln(x); });
    case SpecialGammaUnaryOp::Digamma: return unary_over_floating(iter, [](double x) { return sm::digamma(x); });
    case SpecialGammaUnaryOp::Erfcx: return unary_over_floating(iter, [](double x) { return sm::erfcx(x); });
    case SpecialGammaUnaryOp::Erfinv: return unary_over_floating(iter, [](double x) { return sm::erfinv(x); });
    case SpecialGammaUnaryOp::Ndtr: return unary_over_floating(iter, [](double x) { return sm::ndtr(x); });
    case SpecialGammaUnaryOp::LogNdtr: return unary_over_floating(iter, [](double x) { return sm::log_ndtr(x); });
    case SpecialGammaUnaryOp::Ndtri: return unary_over_floating(iter, [](double x) { return sm::ndtri(x); });
  }
  EMBER_FAIL(iter.op_name(), ": unknown special op");
}

void polygamma_kernel(TensorIterator& iter, int64_t n) {
  unary_over_floating(iter, [n](double x) { return sm::polygamma(n, x); });
}

void special_gamma_binary_kernel(TensorIterator& iter, SpecialGammaBinaryOp op) {
  switch (op) {
    case SpecialGammaBinaryOp::Zeta: return binary_over_floating(iter, [](double x, double q) { return sm::zeta(x, q); });
    case SpecialGammaBinaryOp::Gammainc:
      return binary_over_floating(iter, [](double a, double x) { return sm::gammainc(a, x); });
    case SpecialGammaBinaryOp::Gammaincc:
      return binary_over_floating(iter, [](double a, double x) { return sm::gammaincc(a, x); });
  }
  EMBER_FAIL(iter.op_name(), ": unknown special op");
}

}  // namespace

EMBER_REGISTER_KERNEL(special_gamma_unary_slot, CPU, special_gamma_unary_kernel);
EMBER_REGISTER_KERNEL_FOR_DTYPES(polygamma_slot, CPU, polygamma_kernel, kMaskFloating);
EMBER_REGISTER_KERNEL(special_gamma_binary_slot, CPU, special_gamma_binary_kernel);
// Every op computes the floating dtypes (special_loops.h's dispatch).
constexpr uint32_t kGammaUnaryDTypes[] = {kMaskFloating, kMaskFloating, kMaskFloating, kMaskFloating,
                                          kMaskFloating, kMaskFloating, kMaskFloating};
constexpr uint32_t kGammaBinaryDTypes[] = {kMaskFloating, kMaskFloating, kMaskFloating};
static_assert(std::size(kGammaUnaryDTypes) == std::size(kSpecialGammaUnaryOpNames));
static_assert(std::size(kGammaBinaryDTypes) == std::size(kSpecialGammaBinaryOpNames));
static const bool gamma_unary_op_dtypes_registered =
    special_gamma_unary_slot.set_op_dtypes(DeviceType::CPU, kGammaUnaryDTypes);
static const bool gamma_binary_op_dtypes_registered =
    special_gamma_binary_slot.set_op_dtypes(DeviceType::CPU, kGammaBinaryDTypes);

}  // namespace ember
