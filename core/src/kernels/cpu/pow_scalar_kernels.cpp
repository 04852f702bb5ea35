// CPU kernel of pow(tensor, number), PyTorch's pow_tensor_scalar: the
// exponents PyTorch special-cases run as products, sqrt and division, which
// the compiler vectorizes; other exponents run the binary pow kernel
// (Note [pow with a number exponent]).
#include <cmath>

#include "kernels/cpu/binary_kernels_typed.h"
#include "kernels/cpu/dtype_groups.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/math.h"
#include "kernels/slots/elementwise_kernels.h"

namespace ember {
namespace {

// Note [pow with a number exponent]
// torch 1.13 (aten/src/ATen/native/Pow.cpp, native/cpu/PowKernel.cpp) treats
// tensor ** number apart from tensor ** tensor:
//  - exponent 0 fills 1 and exponent 1 copies, for every dtype (so complex
//    inf ** 0 is 1, not the NaN of exp(0 * log(inf)));
//  - float32, float64, bfloat16 and complex: 0.5 is sqrt, -0.5 is 1 / sqrt,
//    -1 is 1 / x, 2 is x * x, 3 is x * x * x, -2 is 1 / (x * x). These agree
//    with pow within an ulp but differ at the edges on purpose: sqrt(-0) = -0
//    and sqrt(-inf) = NaN where pow gives +0 and +inf;
//  - float16: pow for every other exponent (0.5 of -0 is +0);
//  - integers: powi (squaring) with the exponent converted to the dtype once;
//    2 and 3 are written as products here so they vectorize (the same
//    wrapping results).
// A tensor exponent, even a zero-dim one, takes the binary pow kernel
// (torch.pow(x, torch.tensor(0.5)) of -0 is +0), so ops/binary_ops.cpp calls
// this slot only when the exponent is a wrapped number.

// Runs f over input 0 in the compute type of T (input 1, the exponent, is not read).
template <class T, class F>
void run_on_base(TensorIterator& iter, F f) {
  using C = compute_type_t<T>;
  cpu_kernel(iter, [f](T a) -> T { return static_cast<T>(f(static_cast<C>(a))); });
}

// Whether the exponent e (real) has a product/sqrt/division form for T; runs it if so.
template <class T>
bool pow_special_exponent(TensorIterator& iter, double e) {
  using C = compute_type_t<T>;
  if (e == 0) {
    run_on_base<T>(iter, [](C) { return C(1); });
    return true;
  }
  if (e == 1) {
    run_on_base<T>(iter, [](C x) { return x; });
    return true;
  }
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else if constexpr (std::is_integral_v<T>) {
    if (e == 2) run_on_base<T>(iter, [](C x) { return math::wrapping_mul(x, x); });
    else if (e == 3) run_on_base<T>(iter, [](C x) { return math::wrapping_mul(math::wrapping_mul(x, x), x); });
    else return false;
    return true;
  } else if constexpr (std::is_same_v<T, Half>) {
    return false;  // torch 1.13: std::pow for float16
  } else {
    if (e == 2) run_on_base<T>(iter, [](C x) { return x * x; });
    else if (e == 3) run_on_base<T>(iter, [](C x) { return x * x * x; });
    else if (e == -2) run_on_base<T>(iter, [](C x) { return C(1) / (x * x); });
    else if (e == -1) run_on_base<T>(iter, [](C x) { return C(1) / x; });
    else if (e == 0.5) run_on_base<T>(iter, [](C x) { return std::sqrt(x); });
    else if (e == -0.5) run_on_base<T>(iter, [](C x) { return C(1) / std::sqrt(x); });
    else return false;
    return true;
  }
}

void pow_scalar_kernel(TensorIterator& iter, const Scalar& exponent) {
  // A complex exponent with an imaginary part has no special form.
  const bool real = !exponent.is_complex() || exponent.to<complex128>().imag() == 0;
  const double e = exponent.is_complex() ? exponent.to<complex128>().real() : exponent.to<double>();
  dispatch<kMaskAll>(iter.input_dtype(0), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    if (real && pow_special_exponent<T>(iter, e)) return;
    cpu_kernels::binary_kernel_for(tag, iter, BinaryOp::Pow, Scalar(1));
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(pow_scalar_slot, CPU, pow_scalar_kernel);

}  // namespace ember
