// CPU kernels of nn::functional's elementwise activations. Each computes in
// the compute type (float for 16-bit floats); float32 ops built on exp/tanh
// use the SIMD versions of vec.h, the others are selects the compiler
// vectorizes by itself.
#include <cmath>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/math.h"
#include "kernels/slots/activation_kernels.h"

namespace ember::nn::functional {
namespace {

using vec::Vec;

template <class C>
C log1p_exp(C x) {  // log(1 + exp(x)), stable for large |x|
  return x > C(20) ? x : std::log1p(std::exp(x));
}

// op(x) for one element of compute type C; the op is a template parameter
// so the loops hold no switch and vectorize.
template <ActOp Op, class C>
inline C act(C x, C p0, C p1, C p2) {
  (void)p0, (void)p1, (void)p2;
  if constexpr (Op == ActOp::LeakyRelu) return x > C(0) ? x : x * p0;
  else if constexpr (Op == ActOp::Elu) return x > C(0) ? x * p1 : std::expm1(x * p2) * (p0 * p1);
  else if constexpr (Op == ActOp::Hardtanh) return x < p0 ? p0 : (x > p1 ? p1 : x);
  else if constexpr (Op == ActOp::Hardswish) return x * std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
  else if constexpr (Op == ActOp::Hardsigmoid) return std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
  else if constexpr (Op == ActOp::Softsign) return x / (C(1) + std::abs(x));
  else if constexpr (Op == ActOp::Softshrink) return x > p0 ? x - p0 : (x < -p0 ? x + p0 : C(0));
  else if constexpr (Op == ActOp::Hardshrink) return (x >= -p0 && x <= p0) ? C(0) : x;
  else if constexpr (Op == ActOp::Tanhshrink) return x - std::tanh(x);
  else if constexpr (Op == ActOp::Threshold) return x <= p0 ? p1 : x;
  else if constexpr (Op == ActOp::Mish) return x * std::tanh(log1p_exp(x));
  else return std::min(x, C(0)) - std::log1p(std::exp(-std::abs(x)));  // LogSigmoid
}

template <class T, ActOp Op>
void run_typed(TensorIterator& iter, const ActParams& p) {
  using C = compute_type_t<T>;
  const C p0(p.p0), p1(p.p1), p2(p.p2);
  auto scalar = [=](T a) -> T { return static_cast<T>(act<Op>(static_cast<C>(a), p0, p1, p2)); };
  if constexpr (std::is_same_v<T, float>) {
    using V = Vec<float>;
    if constexpr (Op == ActOp::Elu) {
      const V a(p0 * p1), sc(p1), is(p2);
      return cpu_kernel_vec(iter, scalar, [=](V x) {
        return vec::select(x > V(0.f), x * sc, (vec::exp(x * is) - V(1.f)) * a);
      });
    } else if constexpr (Op == ActOp::Tanhshrink) {
      return cpu_kernel_vec(iter, scalar, [](V x) { return x - vec::tanh(x); });
    }
  }
  cpu_kernel(iter, scalar);
}

template <class T>
void activation_typed(TensorIterator& iter, ActOp op, const ActParams& p) {
  switch (op) {
#define EMBER_ACT(E) case ActOp::E: return run_typed<T, ActOp::E>(iter, p);
    EMBER_ACT(LeakyRelu) EMBER_ACT(Elu) EMBER_ACT(Hardtanh) EMBER_ACT(Hardswish) EMBER_ACT(Hardsigmoid)
    EMBER_ACT(Softsign) EMBER_ACT(Softshrink) EMBER_ACT(Hardshrink) EMBER_ACT(Tanhshrink)
    EMBER_ACT(Threshold) EMBER_ACT(Mish) EMBER_ACT(LogSigmoid)
#undef EMBER_ACT
  }
}

void activation_kernel(TensorIterator& iter, ActOp op, const ActParams& p) {
  dispatch<kMaskFloating>(iter.input_dtype(0), iter.op_name(),
                          [&](auto t) { activation_typed<decltype(t)>(iter, op, p); });
}

// One pass (the composite where(x > 0, x, x * w) took three and two
// temporaries: ConvTasNet runs 48 PReLUs per step). A NaN input takes the
// slope branch, giving NaN as PyTorch's kernel does.
void prelu_kernel(TensorIterator& iter) {
  dispatch<kMaskFloating>(iter.input_dtype(0), iter.op_name(), [&](auto t) {
    using T = decltype(t);
    using C = compute_type_t<T>;
    cpu_kernel(iter, [](T a, T w) -> T {
      const C x = static_cast<C>(a);
      return static_cast<T>(x > C(0) ? x : x * static_cast<C>(w));
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(activation_slot, CPU, &activation_kernel);
EMBER_REGISTER_KERNEL_FOR_DTYPES(prelu_slot, CPU, &prelu_kernel, kMaskFloating);
// Every activation computes the floating dtypes (activation_kernel's dispatch).
constexpr uint32_t kActOpDTypes[] = {kMaskFloating, kMaskFloating, kMaskFloating, kMaskFloating,
                                     kMaskFloating, kMaskFloating, kMaskFloating, kMaskFloating,
                                     kMaskFloating, kMaskFloating, kMaskFloating, kMaskFloating};
static_assert(std::size(kActOpDTypes) == std::size(kActOpNames));
static const bool activation_op_dtypes_registered = activation_slot.set_op_dtypes(DeviceType::CPU, kActOpDTypes);

}  // namespace ember::nn::functional
