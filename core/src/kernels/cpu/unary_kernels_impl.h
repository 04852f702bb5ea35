#pragma once
// The body of the CPU unary elementwise kernel, typed on the input element type:
// unary_kernel_body<Elem>, in an anonymous namespace as before the split. Included only
// by unary_kernels_<group>.cpp, which define the per-type entry points of
// unary_kernels_typed.h on it (Note [Kernels split by dtype group] in dtype_groups.h).
#include <cmath>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/dtype_groups.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/math.h"
#include "kernels/cpu/unary_kernels_typed.h"
#include "kernels/cpu/vec_trig.h"
#include "kernels/slots/elementwise_info.h"

namespace ember {
namespace {

// Same-dtype op: computes EXPR on x (of the compute type: float for 16-bit floats).
#define EMBER_UNARY_CASE(E, EXPR)                                              \
  case UnaryOp::E:                                                             \
    dispatch_typed<op_info(UnaryOp::E).dtypes, Elem>(dt, name, [&](auto tag) { \
      using T = decltype(tag);                                                 \
      using C = compute_type_t<T>;                                             \
      cpu_kernel(iter, [](T a) -> T {                                          \
        const C x = static_cast<C>(a);                                         \
        (void)x;                                                               \
        return static_cast<T>(EXPR);                                           \
      });                                                                      \
    });                                                                        \
    return;

// Predicate: bool output.
#define EMBER_PREDICATE_CASE(E, EXPR)                                          \
  case UnaryOp::E:                                                             \
    dispatch_typed<op_info(UnaryOp::E).dtypes, Elem>(dt, name, [&](auto tag) { \
      using T = decltype(tag);                                                 \
      using C = compute_type_t<T>;                                             \
      cpu_kernel(iter, [](T a) -> bool {                                       \
        const C x = static_cast<C>(a);                                         \
        (void)x;                                                               \
        return EXPR;                                                           \
      });                                                                      \
    });                                                                        \
    return;

// 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) for x < 0: there e^-x would
// overflow (and the quotient flush to 0) long before the result underflows
// (sigmoid(-740) ~ 4e-322 in double, sigmoid(-100) ~ 4e-44 in float); both
// forms are within ~1.5 ULP (tests/core/test_special_misc.cpp, expit).
template <class C>
C sigmoid_of(C x) {
  if constexpr (is_complex_v<C>) {
    return C(1) / (C(1) + std::exp(-x));
  } else {
    if (x < C(0)) {
      const C e = std::exp(x);
      return e / (C(1) + e);
    }
    return C(1) / (C(1) + std::exp(-x));
  }
}

template <class C>
C gelu_tanh_of(C x) {
  const C k = C(0.7978845608028654);  // sqrt(2 / pi)
  return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
}

template <class T>
T sign_of(T x) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(x > 0);
  else return static_cast<T>((T(0) < x) - (x < T(0)));
}

template <class T>
T sgn_of(T x) {
  if constexpr (is_complex_v<T>) {
    auto r = std::abs(x);
    return r == 0 ? T(0) : x / r;
  } else {
    return sign_of(x);
  }
}

// exp/sigmoid on float32 with the SIMD exp: these are the hot elementwise ops.
inline void exp_float(TensorIterator& iter) {
  cpu_kernel_vec(iter, [](float x) { return std::exp(x); },
                 [](vec::Vec<float> x) { return vec::exp(x); });
}
inline void sigmoid_float(TensorIterator& iter) {
  using V = vec::Vec<float>;
  // exp(-|x|) never overflows; the numerator picks the form (see sigmoid_of).
  cpu_kernel_vec(iter, [](float x) { return sigmoid_of(x); },
                 [](V x) {
                   const V e = vec::exp(-vec::abs(x));
                   return vec::select(x < V(0.f), e, V(1.f)) / (V(1.f) + e);
                 });
}
inline void silu_float(TensorIterator& iter) {
  using V = vec::Vec<float>;
  cpu_kernel_vec(iter, [](float x) { return x / (1.f + std::exp(-x)); },
                 [](V x) { return x / (V(1.f) + vec::exp(-x)); });
}

inline void tanh_float(TensorIterator& iter) {
  cpu_kernel_vec(iter, [](float x) { return std::tanh(x); },
                 [](vec::Vec<float> x) { return vec::tanh(x); });
}
// sin/cos on float32 and float64 with the SIMD polynomial of vec_trig.h
// (Note [Vectorized sin and cos]); strided runs and tails take libm's.
template <class T>
void sin_vec(TensorIterator& iter) {
  cpu_kernel_vec(iter, [](T x) { return std::sin(x); }, [](vec::Vec<T> x) { return vec::sin(x); });
}
template <class T>
void cos_vec(TensorIterator& iter) {
  cpu_kernel_vec(iter, [](T x) { return std::cos(x); }, [](vec::Vec<T> x) { return vec::cos(x); });
}

template <class Elem>
void unary_kernel_body(TensorIterator& iter, UnaryOp op) {
  const DType dt = iter.input_dtype(0);
  const char* name = iter.op_name();
  if constexpr (std::is_same_v<Elem, float>) {
    if (op == UnaryOp::Tanh) return tanh_float(iter);
    if (op == UnaryOp::Exp) return exp_float(iter);
    if (op == UnaryOp::Sigmoid) return sigmoid_float(iter);
    if (op == UnaryOp::Silu) return silu_float(iter);
  }
  if constexpr (std::is_same_v<Elem, float> || std::is_same_v<Elem, double>) {
    if (op == UnaryOp::Sin) return sin_vec<Elem>(iter);
    if (op == UnaryOp::Cos) return cos_vec<Elem>(iter);
  }
  switch (op) {
    EMBER_UNARY_CASE(Neg, math::wrapping_neg(x))
    EMBER_UNARY_CASE(Sign, sign_of(x))
    EMBER_UNARY_CASE(Sgn, sgn_of(x))
    EMBER_UNARY_CASE(Exp, std::exp(x))
    EMBER_UNARY_CASE(Exp2, std::pow(C(2), x))
    EMBER_UNARY_CASE(Expm1, [&] {
      if constexpr (is_complex_v<C>) return std::exp(x) - C(1);
      else return std::expm1(x);
    }())
    EMBER_UNARY_CASE(Log, std::log(x))
    EMBER_UNARY_CASE(Log2, [&] {
      // Divided by a real ln 2: a complex divisor makes log(0) = -inf + 0i
      // into -inf + NaN i (C99's complex division by a complex number).
      if constexpr (is_complex_v<C>) return std::log(x) / static_cast<typename C::value_type>(std::log(2.0));
      else return std::log2(x);
    }())
    EMBER_UNARY_CASE(Log10, std::log10(x))
    EMBER_UNARY_CASE(Log1p, [&] {
      if constexpr (is_complex_v<C>) return std::log(C(1) + x);
      else return std::log1p(x);
    }())
    EMBER_UNARY_CASE(Sqrt, std::sqrt(x))
    EMBER_UNARY_CASE(Rsqrt, C(1) / std::sqrt(x))
    EMBER_UNARY_CASE(Square, math::wrapping_mul(x, x))
    EMBER_UNARY_CASE(Reciprocal, C(1) / x)
    EMBER_UNARY_CASE(Sin, std::sin(x))
    EMBER_UNARY_CASE(Cos, std::cos(x))
    EMBER_UNARY_CASE(Tan, std::tan(x))
    EMBER_UNARY_CASE(Asin, std::asin(x))
    EMBER_UNARY_CASE(Acos, std::acos(x))
    EMBER_UNARY_CASE(Atan, std::atan(x))
    EMBER_UNARY_CASE(Sinh, std::sinh(x))
    EMBER_UNARY_CASE(Cosh, std::cosh(x))
    EMBER_UNARY_CASE(Tanh, std::tanh(x))
    EMBER_UNARY_CASE(Asinh, std::asinh(x))
    EMBER_UNARY_CASE(Acosh, std::acosh(x))
    EMBER_UNARY_CASE(Atanh, std::atanh(x))
    EMBER_UNARY_CASE(Sigmoid, sigmoid_of(x))
    // x < 0, not x <= 0: relu(-0.) stays -0. as in PyTorch (clamp_min(x, 0)).
    EMBER_UNARY_CASE(Relu, x < C(0) ? C(0) : x)
    EMBER_UNARY_CASE(Silu, x * sigmoid_of(x))
    EMBER_UNARY_CASE(Erf, std::erf(x))
    EMBER_UNARY_CASE(Erfc, std::erfc(x))
    EMBER_UNARY_CASE(GeluErf, C(0.5) * x * (C(1) + std::erf(x * C(0.70710678118654752440))))
    EMBER_UNARY_CASE(GeluTanh, gelu_tanh_of(x))
    EMBER_UNARY_CASE(Floor, [&] {
      if constexpr (std::is_integral_v<C>) return x;
      else return std::floor(x);
    }())
    EMBER_UNARY_CASE(Ceil, [&] {
      if constexpr (std::is_integral_v<C>) return x;
      else return std::ceil(x);
    }())
    EMBER_UNARY_CASE(Round, [&] {
      if constexpr (std::is_integral_v<C>) return x;
      else return std::nearbyint(x);  // half to even, as torch.round
    }())
    EMBER_UNARY_CASE(Trunc, [&] {
      if constexpr (std::is_integral_v<C>) return x;
      else return std::trunc(x);
    }())
    EMBER_UNARY_CASE(Frac, x - std::trunc(x))
    EMBER_UNARY_CASE(BitwiseNot, [&] {
      if constexpr (std::is_same_v<C, bool>) return !x;
      else return static_cast<C>(~x);
    }())
    EMBER_UNARY_CASE(Conj, [&] {
      if constexpr (is_complex_v<C>) return std::conj(x);
      else return x;
    }())
    EMBER_PREDICATE_CASE(LogicalNot, !convert<bool>(x))
    EMBER_PREDICATE_CASE(Isnan, math::isnan(x))
    EMBER_PREDICATE_CASE(Isinf, [&] {
      if constexpr (is_complex_v<C>) return std::isinf(x.real()) || std::isinf(x.imag());
      else if constexpr (std::is_integral_v<C>) return false;
      else return std::isinf(x);
    }())
    EMBER_PREDICATE_CASE(Isfinite, [&] {
      if constexpr (is_complex_v<C>) return std::isfinite(x.real()) && std::isfinite(x.imag());
      else if constexpr (std::is_integral_v<C>) return true;
      else return std::isfinite(x);
    }())
    EMBER_PREDICATE_CASE(Isposinf, [&] {
      if constexpr (std::is_integral_v<C>) return false;
      else return x == std::numeric_limits<C>::infinity();
    }())
    EMBER_PREDICATE_CASE(Isneginf, [&] {
      if constexpr (std::is_integral_v<C>) return false;
      else return x == -std::numeric_limits<C>::infinity();
    }())
    EMBER_PREDICATE_CASE(Signbit, [&] {
      if constexpr (std::is_same_v<C, bool> || std::is_unsigned_v<C>) return false;
      else if constexpr (std::is_integral_v<C>) return x < 0;
      else return math::signbit(x);
    }())
    case UnaryOp::Abs:
      dispatch_typed<op_info(UnaryOp::Abs).dtypes, Elem>(dt, name, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (is_complex_v<T>) {
          cpu_kernel(iter, [](T a) { return std::abs(a); });
        } else if constexpr (std::is_unsigned_v<T>) {
          cpu_kernel(iter, [](T a) { return a; });
        } else if constexpr (std::is_integral_v<T>) {
          // abs(INT_MIN) wraps to INT_MIN, as PyTorch (std::abs would be UB).
          cpu_kernel(iter, [](T a) -> T { return a < 0 ? math::wrapping_neg(a) : a; });
        } else {
          using C = compute_type_t<T>;
          // std::abs clears the sign bit, so abs(-0.) is 0. (a compare would keep -0.).
          cpu_kernel(iter, [](T a) -> T { return static_cast<T>(std::abs(static_cast<C>(a))); });
        }
      });
      return;
    case UnaryOp::Angle:
      dispatch_typed<op_info(UnaryOp::Angle).dtypes, Elem>(dt, name, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (is_complex_v<T>) {
          cpu_kernel(iter, [](T a) { return std::arg(a); });
        } else {
          using C = compute_type_t<T>;
          cpu_kernel(iter, [](T a) -> T {
            C x = static_cast<C>(a);
            if (std::isnan(x)) return a;
            return static_cast<T>(x < C(0) ? C(M_PI) : C(0));
          });
        }
      });
      return;
  }
  EMBER_FAIL(name, ": unknown unary op");
}

}  // namespace
}  // namespace ember
