// CPU kernels of the unary elementwise ops. The unary op switch is typed on the
// input dtype and compiled per dtype group (unary_kernels_impl.h,
// unary_kernels_<group>.cpp; Note [Kernels split by dtype group] in
// dtype_groups.h); this file dispatches to it, holds the kernels with scalar
// parameters and registers them.
#include <cmath>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/math.h"
#include "kernels/cpu/unary_kernels_typed.h"
#include "kernels/slots/elementwise_info.h"

namespace ember {
namespace {

void unary_kernel(TensorIterator& iter, UnaryOp op) {
  // Every dtype has an instantiation; each op's dtype check is inside.
  dispatch<kMaskAll>(iter.input_dtype(0), iter.op_name(), [&](auto tag) {
    cpu_kernels::unary_kernel_for(tag, iter, op);
  });
}

void softplus_kernel(TensorIterator& iter, const Scalar& beta_s, const Scalar& threshold_s) {
  dispatch<kMaskFloating>(iter.dtype(0), "softplus", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    const C beta = beta_s.to<C>(), threshold = threshold_s.to<C>();
    cpu_kernel(iter, [beta, threshold](T a) -> T {
      C x = static_cast<C>(a);
      return static_cast<T>(x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta);
    });
  });
}

void nan_to_num_kernel(TensorIterator& iter, double nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  dispatch<kMaskFloating | kMaskComplex>(iter.dtype(0), "nan_to_num", [&](auto tag) {
    using T = decltype(tag);
    using S = real_of_t<T>;  // the real element type (Half stays Half)
    using R = compute_type_t<S>;
    const R n = static_cast<R>(nan);
    const R p = posinf ? static_cast<R>(*posinf) : static_cast<R>(std::numeric_limits<S>::max());
    const R m = neginf ? static_cast<R>(*neginf) : static_cast<R>(std::numeric_limits<S>::lowest());
    auto fix = [n, p, m](R x) { return std::isnan(x) ? n : x == INFINITY ? p : x == -INFINITY ? m : x; };
    if constexpr (is_complex_v<T>) {
      cpu_kernel(iter, [fix](T a) { return T(fix(a.real()), fix(a.imag())); });
    } else {
      cpu_kernel(iter, [fix](T a) -> T { return static_cast<T>(fix(static_cast<R>(a))); });
    }
  });
}

void clamp_scalar_kernel(TensorIterator& iter, std::optional<Scalar> min, std::optional<Scalar> max) {
  dispatch<kMaskReal>(iter.dtype(0), "clamp", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    const C lo = min ? min->to<C>() : C(0), hi = max ? max->to<C>() : C(0);
    // NaN input stays NaN; a bound that is NaN makes the result NaN (as PyTorch).
    if (min && max) {
      cpu_kernel(iter, [lo, hi](T a) -> T {
        C x = static_cast<C>(a);
        if (math::isnan(x)) return a;
        return static_cast<T>(math::min_nan(math::max_nan(x, lo), hi));
      });
    } else if (min) {
      cpu_kernel(iter, [lo](T a) -> T {
        C x = static_cast<C>(a);
        return static_cast<T>(math::isnan(x) ? x : math::max_nan(x, lo));
      });
    } else {
      cpu_kernel(iter, [hi](T a) -> T {
        C x = static_cast<C>(a);
        return static_cast<T>(math::isnan(x) ? x : math::min_nan(x, hi));
      });
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(unary_slot, CPU, unary_kernel);
// Which dtypes it computes for each op: the info table's (missing_kernels compares other backends with it).
static const bool unary_op_dtypes_registered = unary_slot.set_op_dtypes(DeviceType::CPU, kUnaryOpDTypes.data());
EMBER_REGISTER_KERNEL_FOR_DTYPES(softplus_slot, CPU, softplus_kernel, kMaskFloating);
EMBER_REGISTER_KERNEL_FOR_DTYPES(nan_to_num_slot, CPU, nan_to_num_kernel, kMaskFloating | kMaskComplex);
EMBER_REGISTER_KERNEL_FOR_DTYPES(clamp_scalar_slot, CPU, clamp_scalar_kernel, kMaskReal);

}  // namespace ember
