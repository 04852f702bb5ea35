#pragma once
// The body of the CPU binary elementwise kernel, typed on the input element type:
// binary_kernel_body<Elem>, in an anonymous namespace as before the split. Included only
// by binary_kernels_<group>.cpp, which define the per-type entry points of
// binary_kernels_typed.h on it (Note [Kernels split by dtype group] in dtype_groups.h).
#include <cmath>

#include "kernels/cpu/binary_kernels_typed.h"
#include "kernels/cpu/convert.h"
#include "kernels/cpu/dtype_groups.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/math.h"
#include "kernels/slots/elementwise_info.h"

namespace ember {
namespace {

// out = EXPR(x, y) in the compute type C of T (float for 16-bit floats).
#define EMBER_BINARY_CASE(E, EXPR)                                              \
  case BinaryOp::E:                                                             \
    dispatch_typed<op_info(BinaryOp::E).dtypes, Elem>(dt, name, [&](auto tag) { \
      using T = decltype(tag);                                                  \
      using C = compute_type_t<T>;                                              \
      cpu_kernel(iter, [](T a, T b) -> T {                                      \
        const C x = static_cast<C>(a), y = static_cast<C>(b);                   \
        return static_cast<T>(EXPR);                                            \
      });                                                                       \
    });                                                                         \
    return;

#define EMBER_COMPARE_CASE(E, EXPR)                                             \
  case BinaryOp::E:                                                             \
    dispatch_typed<op_info(BinaryOp::E).dtypes, Elem>(dt, name, [&](auto tag) { \
      using T = decltype(tag);                                                  \
      using C = compute_type_t<T>;                                              \
      cpu_kernel(iter, [](T a, T b) -> bool {                                   \
        const C x = static_cast<C>(a), y = static_cast<C>(b);                   \
        return EXPR;                                                            \
      });                                                                       \
    });                                                                         \
    return;

template <class T>
void add_kernel(TensorIterator& iter, const Scalar& alpha_s) {
  using C = compute_type_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    const bool alpha = alpha_s.to<bool>();
    cpu_kernel(iter, [alpha](bool a, bool b) -> bool { return a || (alpha && b); });
  } else {
    const C alpha = alpha_s.to<C>();
    if (alpha == C(1)) {
      cpu_kernel(iter, [](T a, T b) -> T { return static_cast<T>(math::wrapping_add(static_cast<C>(a), static_cast<C>(b))); });
    } else {
      cpu_kernel(iter, [alpha](T a, T b) -> T {
        return static_cast<T>(math::wrapping_add(static_cast<C>(a), math::wrapping_mul(alpha, static_cast<C>(b))));
      });
    }
  }
}

template <class C>
C pow_of(C x, C y) {
  if constexpr (std::is_same_v<C, bool>) return x || !y;
  else if constexpr (std::is_integral_v<C>) return math::int_pow(x, y);
  else return std::pow(x, y);
}

template <class C>
C shift_left(C x, C y) {
  // Shifting by the width or more (or a negative amount) gives 0, as PyTorch.
  using U = std::make_unsigned_t<C>;
  if (y < 0 || y >= static_cast<C>(sizeof(C) * 8)) return 0;
  return static_cast<C>(static_cast<U>(x) << y);
}
template <class C>
C shift_right(C x, C y) {
  if (y < 0 || y >= static_cast<C>(sizeof(C) * 8)) return x < 0 ? C(-1) : C(0);
  return static_cast<C>(x >> y);
}

template <class Elem>
void binary_kernel_body(TensorIterator& iter, BinaryOp op, const Scalar& alpha) {
  const DType dt = iter.input_dtype(0);
  const char* name = iter.op_name();
  switch (op) {
    case BinaryOp::Add:
      dispatch_typed<op_info(BinaryOp::Add).dtypes, Elem>(dt, name, [&](auto tag) { add_kernel<decltype(tag)>(iter, alpha); });
      return;
    EMBER_BINARY_CASE(Mul, [&] {
      if constexpr (std::is_same_v<C, bool>) return x && y;
      else return math::wrapping_mul(x, y);
    }())
    EMBER_BINARY_CASE(Div, x / y)
    EMBER_BINARY_CASE(DivTrunc, [&] {
      if constexpr (std::is_integral_v<C>) return math::int_trunc_div(x, y);
      else return std::trunc(x / y);
    }())
    EMBER_BINARY_CASE(DivFloor, [&] {
      if constexpr (std::is_integral_v<C>) return math::int_floor_div(x, y);
      else return math::float_floor_div(x, y);
    }())
    EMBER_BINARY_CASE(Fmod, [&] {
      if constexpr (std::is_integral_v<C>) return math::int_fmod(x, y);
      else return std::fmod(x, y);
    }())
    EMBER_BINARY_CASE(Remainder, [&] {
      if constexpr (std::is_integral_v<C>) return math::int_remainder(x, y);
      else return math::float_remainder(x, y);
    }())
    EMBER_BINARY_CASE(Pow, pow_of(x, y))
    EMBER_BINARY_CASE(Atan2, std::atan2(x, y))
    EMBER_BINARY_CASE(Hypot, std::hypot(x, y))
    EMBER_BINARY_CASE(Copysign, std::copysign(x, y))
    EMBER_BINARY_CASE(Xlogy, math::isnan(y) ? y : (x == C(0) ? C(0) : x * std::log(y)))
    EMBER_BINARY_CASE(Maximum, math::max_nan(x, y))
    EMBER_BINARY_CASE(Minimum, math::min_nan(x, y))
    EMBER_BINARY_CASE(Fmax, [&] {
      if constexpr (std::is_integral_v<C>) return x > y ? x : y;
      else return std::fmax(x, y);
    }())
    EMBER_BINARY_CASE(Fmin, [&] {
      if constexpr (std::is_integral_v<C>) return x < y ? x : y;
      else return std::fmin(x, y);
    }())
    EMBER_BINARY_CASE(BitwiseAnd, x & y)
    EMBER_BINARY_CASE(BitwiseOr, x | y)
    EMBER_BINARY_CASE(BitwiseXor, x ^ y)
    EMBER_BINARY_CASE(LeftShift, shift_left(x, y))
    EMBER_BINARY_CASE(RightShift, shift_right(x, y))
    EMBER_COMPARE_CASE(Eq, x == y)
    EMBER_COMPARE_CASE(Ne, x != y)
    EMBER_COMPARE_CASE(Lt, x < y)
    EMBER_COMPARE_CASE(Le, x <= y)
    EMBER_COMPARE_CASE(Gt, x > y)
    EMBER_COMPARE_CASE(Ge, x >= y)
    EMBER_COMPARE_CASE(LogicalAnd, convert<bool>(x) && convert<bool>(y))
    EMBER_COMPARE_CASE(LogicalOr, convert<bool>(x) || convert<bool>(y))
    EMBER_COMPARE_CASE(LogicalXor, convert<bool>(x) != convert<bool>(y))
  }
  EMBER_FAIL(name, ": unknown binary op");
}

}  // namespace
}  // namespace ember
