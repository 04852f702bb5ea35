// CPU kernels of ember::special's sinc, entr, logit, xlog1py and
// round(decimals): the scalar math of special_math_misc.h over the iterator.
// sinc/entr/logit/xlog1py evaluate in double (long double inside) and round
// once more to the tensor's dtype; round(decimals) computes in the dtype's
// own arithmetic, as PyTorch.
#include "kernels/cpu/special_loops.h"
#include "kernels/cpu/special_math_misc.h"
#include "kernels/slots/special_misc_kernels.h"

namespace ember {
namespace {

namespace sm = special_math;
using special_loops::binary_over_floating;
using special_loops::unary_over_floating;

void special_misc_unary_kernel(TensorIterator& iter, SpecialMiscUnaryOp op) {
  switch (op) {
    case SpecialMiscUnaryOp::Sinc: return unary_over_floating(iter, [](double x) { return sm::sinc(x); });
    case SpecialMiscUnaryOp::Entr: return unary_over_floating(iter, [](double x) { return sm::entr(x); });
  }
  EMBER_FAIL(iter.op_name(), ": unknown special op");
}

void logit_kernel(TensorIterator& iter, double eps) {
  dispatch<kMaskFloating>(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    if (eps < 0) {
      cpu_kernel(iter, [](T a) -> T { return static_cast<T>(sm::logit(static_cast<double>(a))); });
      return;
    }
    // The bounds in the dtype's arithmetic, as torch (lo = eps, hi = 1 - eps);
    // nan passes the clamp unchanged.
    const C lo = static_cast<C>(static_cast<T>(eps));
    const C hi = static_cast<C>(static_cast<T>(C(1) - lo));
    cpu_kernel(iter, [lo, hi](T a) -> T {
      const C x = static_cast<C>(a);
      const C z = x < lo ? lo : (x > hi ? hi : x);
      return static_cast<T>(sm::logit(static_cast<double>(z)));
    });
  });
}

void xlog1py_kernel(TensorIterator& iter) {
  dispatch<kMaskFloating>(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    cpu_kernel(iter, [](T a, T b) -> T {
      return static_cast<T>(sm::xlog1py(static_cast<double>(a), static_cast<double>(b)));
    });
  });
}

void round_decimals_kernel(TensorIterator& iter, int64_t decimals) {
  dispatch<kMaskFloating>(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    cpu_kernel(iter, [decimals](T a) -> T {
      return static_cast<T>(sm::round_decimals<C>(static_cast<C>(a), static_cast<long long>(decimals)));
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(special_misc_unary_slot, CPU, special_misc_unary_kernel);
// Both ops compute the floating dtypes (special_loops.h's dispatch).
constexpr uint32_t kMiscUnaryDTypes[] = {kMaskFloating, kMaskFloating};
static_assert(std::size(kMiscUnaryDTypes) == std::size(kSpecialMiscUnaryOpNames));
static const bool misc_unary_op_dtypes_registered =
    special_misc_unary_slot.set_op_dtypes(DeviceType::CPU, kMiscUnaryDTypes);
// The floating dtypes (the dispatches above).
EMBER_REGISTER_KERNEL_FOR_DTYPES(logit_slot, CPU, logit_kernel, kMaskFloating);
EMBER_REGISTER_KERNEL_FOR_DTYPES(xlog1py_slot, CPU, xlog1py_kernel, kMaskFloating);
EMBER_REGISTER_KERNEL_FOR_DTYPES(round_decimals_slot, CPU, round_decimals_kernel, kMaskFloating);

}  // namespace ember
