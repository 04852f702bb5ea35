#pragma once
// Kernel slots of the elementwise family. Ops (unary_ops.cpp, binary_ops.cpp,
// ternary_ops.cpp) check arguments and build the TensorIterator; kernels
// (kernels/cpu/*_kernels.cpp, later kernels/cuda/) only compute.
#include <optional>

#include "iter/tensor_iterator.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

// X(Enum, name): ops whose kernels take no parameters.
#define EMBER_UNARY_OPS(X)                                                          \
  X(Abs, abs) X(Neg, neg) X(Sign, sign) X(Sgn, sgn) X(Exp, exp) X(Exp2, exp2)       \
  X(Expm1, expm1) X(Log, log) X(Log2, log2) X(Log10, log10) X(Log1p, log1p)         \
  X(Sqrt, sqrt) X(Rsqrt, rsqrt) X(Square, square) X(Reciprocal, reciprocal)         \
  X(Sin, sin) X(Cos, cos) X(Tan, tan) X(Asin, asin) X(Acos, acos) X(Atan, atan)     \
  X(Sinh, sinh) X(Cosh, cosh) X(Tanh, tanh) X(Asinh, asinh) X(Acosh, acosh)         \
  X(Atanh, atanh) X(Sigmoid, sigmoid) X(Relu, relu) X(Silu, silu) X(Erf, erf)       \
  X(Erfc, erfc) X(Floor, floor) X(Ceil, ceil) X(Round, round) X(Trunc, trunc)       \
  X(Frac, frac) X(LogicalNot, logical_not) X(BitwiseNot, bitwise_not)               \
  X(GeluErf, gelu) X(GeluTanh, gelu) X(Isnan, isnan) X(Isinf, isinf)                \
  X(Isfinite, isfinite) X(Isposinf, isposinf) X(Isneginf, isneginf)                 \
  X(Signbit, signbit) X(Conj, conj) X(Angle, angle)

enum class UnaryOp {
#define EMBER_ENUM(E, n) E,
  EMBER_UNARY_OPS(EMBER_ENUM)
#undef EMBER_ENUM
};

#define EMBER_BINARY_OPS(X)                                                            \
  X(Add, add) X(Mul, mul) X(Div, div) X(DivTrunc, div) X(DivFloor, div)                \
  X(Fmod, fmod) X(Remainder, remainder) X(Pow, pow) X(Atan2, atan2)                    \
  X(Maximum, maximum) X(Minimum, minimum) X(Fmax, fmax) X(Fmin, fmin) X(Hypot, hypot)  \
  X(Copysign, copysign) X(Xlogy, xlogy) X(Eq, eq) X(Ne, ne) X(Lt, lt) X(Le, le)        \
  X(Gt, gt) X(Ge, ge) X(LogicalAnd, logical_and) X(LogicalOr, logical_or)              \
  X(LogicalXor, logical_xor) X(BitwiseAnd, bitwise_and) X(BitwiseOr, bitwise_or)       \
  X(BitwiseXor, bitwise_xor) X(LeftShift, bitwise_left_shift)                          \
  X(RightShift, bitwise_right_shift)

enum class BinaryOp {
#define EMBER_ENUM(E, n) E,
  EMBER_BINARY_OPS(EMBER_ENUM)
#undef EMBER_ENUM
};

// Input 0 -> output 0.
using UnaryFn = void(TensorIterator&, UnaryOp);
extern KernelSlot<UnaryFn> unary_slot;
// Inputs 0, 1 -> output 0. alpha is used by Add only (out = a + alpha * b).
using BinaryFn = void(TensorIterator&, BinaryOp, const Scalar& alpha);
extern KernelSlot<BinaryFn> binary_slot;

// pow(tensor, number) (PyTorch's pow_tensor_scalar; Note [pow with a number
// exponent] in kernels/cpu/pow_scalar_kernels.cpp): the iterator is pow's
// binary one, output 0 and inputs (base, the number broadcast in the common
// dtype); `exponent` is the number as given. A kernel may read only the base.
using PowScalarFn = void(TensorIterator&, const Scalar& exponent);
extern KernelSlot<PowScalarFn> pow_scalar_slot;

// Parametrized unary ops.
using SoftplusFn = void(TensorIterator&, const Scalar& beta, const Scalar& threshold);
extern KernelSlot<SoftplusFn> softplus_slot;
using NanToNumFn = void(TensorIterator&, double nan, std::optional<double> posinf,
                        std::optional<double> neginf);
extern KernelSlot<NanToNumFn> nan_to_num_slot;
using ClampScalarFn = void(TensorIterator&, std::optional<Scalar> min, std::optional<Scalar> max);
extern KernelSlot<ClampScalarFn> clamp_scalar_slot;

// Ternary ops over (output, input0, input1, input2).
// Lerp: self + weight * (end - self); Addcmul/Addcdiv: self + value * t1 (* or /) t2;
// Where: inputs (condition, self, other); Clamp: inputs (self, min, max), NaN
// in any of them gives NaN (as maximum then minimum).
enum class TernaryOp { Lerp, Addcmul, Addcdiv, Where, Clamp };
using TernaryFn = void(TensorIterator&, TernaryOp, const Scalar& value);
extern KernelSlot<TernaryFn> ternary_slot;

}  // namespace ember
