// The per-op info tables (core/src/kernels/slots/elementwise_info.h) checked against
// what the ops do: for every row and every dtype, the op runs exactly when the
// row's dtype mask accepts the computation dtype, with the output dtype the
// row gives, and otherwise raises an ember::Error naming the op; an op's
// result requires grad exactly when the row says it is differentiable; and an
// in-place op under autograd gives the same gradients as the out-of-place one,
// which fails (a saved tensor modified in place) when a row's save rule says
// backward does not read an input it reads.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include <ember/ember.h>

#include "kernels/slots/elementwise_info.h"
#include "tensor_expect.h"

namespace ember {
namespace elementwise_info_test {

constexpr DType kAllDTypes[] = {kBool,    kUInt8,    kInt8,    kInt16,   kInt32,     kInt64,
                                kFloat16, kBFloat16, kFloat32, kFloat64, kComplex64, kComplex128};

// Values inside every op's domain where it matters (acosh gives NaN, which the
// gradient comparisons allow).
Tensor sample(DType d) {
  if (d == kBool) return tensor({1.0, 0.0, 1.0}).to(kBool);
  if (is_integral(d)) return tensor({1.0, 2.0, 3.0}).to(d);
  return tensor({0.25, 0.5, 0.75}).to(d);
}

DType compute_dtype(Promotion p, DType d) {
  switch (p) {
    case Promotion::None: return d;
    case Promotion::IntToFloat: return is_integral(d, true) ? default_dtype() : d;
    case Promotion::BoolToLong: return d == kBool ? kInt64 : d;
  }
  return d;
}

DType output_dtype(OutDType out, DType compute) {
  switch (out) {
    case OutDType::Same: return compute;
    case OutDType::Bool: return kBool;
    case OutDType::Real: return to_real_dtype(compute);
  }
  return compute;
}

bool accepts(uint32_t mask, DType d) { return (mask & dtype_bit(d)) != 0; }

// The function form of each unary op (a switch with no default: a new op
// needs a line here).
Tensor call(UnaryOp op, const Tensor& x) {
  switch (op) {
#define EMBER_CALL(E, name) \
  case UnaryOp::E: return name(x);
    EMBER_CALL(Abs, abs) EMBER_CALL(Neg, neg) EMBER_CALL(Sign, sign) EMBER_CALL(Sgn, sgn)
    EMBER_CALL(Exp, exp) EMBER_CALL(Exp2, exp2) EMBER_CALL(Expm1, expm1) EMBER_CALL(Log, log)
    EMBER_CALL(Log2, log2) EMBER_CALL(Log10, log10) EMBER_CALL(Log1p, log1p) EMBER_CALL(Sqrt, sqrt)
    EMBER_CALL(Rsqrt, rsqrt) EMBER_CALL(Square, square) EMBER_CALL(Reciprocal, reciprocal)
    EMBER_CALL(Sin, sin) EMBER_CALL(Cos, cos) EMBER_CALL(Tan, tan) EMBER_CALL(Asin, asin)
    EMBER_CALL(Acos, acos) EMBER_CALL(Atan, atan) EMBER_CALL(Sinh, sinh) EMBER_CALL(Cosh, cosh)
    EMBER_CALL(Tanh, tanh) EMBER_CALL(Asinh, asinh) EMBER_CALL(Acosh, acosh) EMBER_CALL(Atanh, atanh)
    EMBER_CALL(Sigmoid, sigmoid) EMBER_CALL(Relu, relu) EMBER_CALL(Silu, silu) EMBER_CALL(Erf, erf)
    EMBER_CALL(Erfc, erfc) EMBER_CALL(Floor, floor) EMBER_CALL(Ceil, ceil) EMBER_CALL(Round, round)
    EMBER_CALL(Trunc, trunc) EMBER_CALL(Frac, frac) EMBER_CALL(LogicalNot, logical_not)
    EMBER_CALL(BitwiseNot, bitwise_not) EMBER_CALL(Isnan, isnan) EMBER_CALL(Isinf, isinf)
    EMBER_CALL(Isfinite, isfinite) EMBER_CALL(Isposinf, isposinf) EMBER_CALL(Isneginf, isneginf)
    EMBER_CALL(Signbit, signbit) EMBER_CALL(Angle, angle)
#undef EMBER_CALL
    case UnaryOp::GeluErf: return gelu(x, "none");
    case UnaryOp::GeluTanh: return gelu(x, "tanh");
    // conj() is a view; conj_physical runs the kernel (for complex inputs).
    case UnaryOp::Conj: return conj_physical(x);
  }
  ADD_FAILURE() << "no call for unary op " << static_cast<int>(op);
  return x;
}

// The in-place form, where the op has one.
std::optional<Tensor> call_inplace(UnaryOp op, Tensor x) {
  switch (op) {
#define EMBER_CALL(E, name) \
  case UnaryOp::E: return x.name##_();
    EMBER_CALL(Abs, abs) EMBER_CALL(Neg, neg) EMBER_CALL(Sign, sign) EMBER_CALL(Sgn, sgn)
    EMBER_CALL(Exp, exp) EMBER_CALL(Exp2, exp2) EMBER_CALL(Expm1, expm1) EMBER_CALL(Log, log)
    EMBER_CALL(Log2, log2) EMBER_CALL(Log10, log10) EMBER_CALL(Log1p, log1p) EMBER_CALL(Sqrt, sqrt)
    EMBER_CALL(Rsqrt, rsqrt) EMBER_CALL(Square, square) EMBER_CALL(Reciprocal, reciprocal)
    EMBER_CALL(Sin, sin) EMBER_CALL(Cos, cos) EMBER_CALL(Tan, tan) EMBER_CALL(Asin, asin)
    EMBER_CALL(Acos, acos) EMBER_CALL(Atan, atan) EMBER_CALL(Sinh, sinh) EMBER_CALL(Cosh, cosh)
    EMBER_CALL(Tanh, tanh) EMBER_CALL(Asinh, asinh) EMBER_CALL(Acosh, acosh) EMBER_CALL(Atanh, atanh)
    EMBER_CALL(Sigmoid, sigmoid) EMBER_CALL(Relu, relu) EMBER_CALL(Silu, silu) EMBER_CALL(Erf, erf)
    EMBER_CALL(Erfc, erfc) EMBER_CALL(Floor, floor) EMBER_CALL(Ceil, ceil) EMBER_CALL(Round, round)
    EMBER_CALL(Trunc, trunc) EMBER_CALL(Frac, frac) EMBER_CALL(LogicalNot, logical_not)
    EMBER_CALL(BitwiseNot, bitwise_not) EMBER_CALL(Conj, conj_physical)
#undef EMBER_CALL
    case UnaryOp::GeluErf: case UnaryOp::GeluTanh: case UnaryOp::Isnan: case UnaryOp::Isinf:
    case UnaryOp::Isfinite: case UnaryOp::Isposinf: case UnaryOp::Isneginf: case UnaryOp::Signbit:
    case UnaryOp::Angle:
      return std::nullopt;
  }
  return std::nullopt;
}

Tensor call(BinaryOp op, const Tensor& a, const Tensor& b) {
  switch (op) {
    case BinaryOp::Add: return add(a, b);
    case BinaryOp::DivTrunc: return div(a, b, "trunc");
    case BinaryOp::DivFloor: return div(a, b, "floor");
    case BinaryOp::LeftShift: return bitwise_left_shift(a, b);
    case BinaryOp::RightShift: return bitwise_right_shift(a, b);
#define EMBER_CALL(E, name) \
  case BinaryOp::E: return name(a, b);
    EMBER_CALL(Mul, mul) EMBER_CALL(Div, div) EMBER_CALL(Fmod, fmod) EMBER_CALL(Remainder, remainder)
    EMBER_CALL(Pow, pow) EMBER_CALL(Atan2, atan2) EMBER_CALL(Maximum, maximum) EMBER_CALL(Minimum, minimum)
    EMBER_CALL(Fmax, fmax) EMBER_CALL(Fmin, fmin) EMBER_CALL(Hypot, hypot) EMBER_CALL(Copysign, copysign)
    EMBER_CALL(Xlogy, xlogy) EMBER_CALL(Eq, eq) EMBER_CALL(Ne, ne) EMBER_CALL(Lt, lt) EMBER_CALL(Le, le)
    EMBER_CALL(Gt, gt) EMBER_CALL(Ge, ge) EMBER_CALL(LogicalAnd, logical_and) EMBER_CALL(LogicalOr, logical_or)
    EMBER_CALL(LogicalXor, logical_xor) EMBER_CALL(BitwiseAnd, bitwise_and) EMBER_CALL(BitwiseOr, bitwise_or)
    EMBER_CALL(BitwiseXor, bitwise_xor)
#undef EMBER_CALL
  }
  ADD_FAILURE() << "no call for binary op " << static_cast<int>(op);
  return a;
}

std::optional<Tensor> call_inplace(BinaryOp op, Tensor a, const Tensor& b) {
  switch (op) {
    case BinaryOp::Add: return a.add_(b);
#define EMBER_CALL(E, name) \
  case BinaryOp::E: return a.name##_(b);
    EMBER_CALL(Mul, mul) EMBER_CALL(Div, div) EMBER_CALL(Fmod, fmod) EMBER_CALL(Remainder, remainder)
    EMBER_CALL(Pow, pow) EMBER_CALL(Atan2, atan2) EMBER_CALL(Maximum, maximum) EMBER_CALL(Minimum, minimum)
    EMBER_CALL(Fmax, fmax) EMBER_CALL(Fmin, fmin) EMBER_CALL(Hypot, hypot) EMBER_CALL(Copysign, copysign)
    EMBER_CALL(Xlogy, xlogy)
#undef EMBER_CALL
    // No in-place form with a rounding mode (floor_divide_ records no gradient);
    // the rest are not differentiable.
    case BinaryOp::DivTrunc: case BinaryOp::DivFloor: case BinaryOp::Eq: case BinaryOp::Ne:
    case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge: case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr: case BinaryOp::LogicalXor: case BinaryOp::BitwiseAnd: case BinaryOp::BitwiseOr:
    case BinaryOp::BitwiseXor: case BinaryOp::LeftShift: case BinaryOp::RightShift:
      return std::nullopt;
  }
  return std::nullopt;
}

Tensor call(TernaryOp op, const Tensor& a, const Tensor& b, const Tensor& c) {
  switch (op) {
    case TernaryOp::Lerp: return lerp(a, b, c);
    case TernaryOp::Addcmul: return addcmul(a, b, c);
    case TernaryOp::Addcdiv: return addcdiv(a, b, c);
    case TernaryOp::Where: return where(c.to(kBool), a, b);
    case TernaryOp::Clamp: return clamp(a, b, c);
  }
  ADD_FAILURE() << "no call for ternary op " << static_cast<int>(op);
  return a;
}

void expect_grads_equal(const Tensor& expected, const Tensor& got, const std::string& what) {
  ASSERT_EQ(expected.defined(), got.defined()) << what;
  if (expected.defined()) {
    EXPECT_TRUE(allclose(expected, got, 0, 0, /*equal_nan=*/true)) << what;
  }
}

TEST(ElementwiseInfo, UnaryDTypesAndOutputDTypes) {
  for (const UnaryInfo& row : kUnaryInfo) {
    for (DType d : kAllDTypes) {
      SCOPED_TRACE(std::string(row.name) + " on " + std::string(dtype_name(d)));
      const DType c = compute_dtype(row.promotion, d);
      // conj_physical of a real tensor is a copy: it never reaches the kernel.
      if (row.op == UnaryOp::Conj && !is_complex(d)) continue;
      if (accepts(row.dtypes, c)) {
        Tensor y;
        EXPECT_NO_THROW(y = call(row.op, sample(d)));
        if (y.defined()) {
          EXPECT_EQ(y.dtype(), output_dtype(row.out, c));
        }
      } else {
        testing::expect_error([&] { call(row.op, sample(d)); }, row.name);
      }
    }
  }
}

TEST(ElementwiseInfo, BinaryDTypesAndOutputDTypes) {
  for (const BinaryInfo& row : kBinaryInfo) {
    for (DType d : kAllDTypes) {
      SCOPED_TRACE(std::string(row.name) + " on " + std::string(dtype_name(d)));
      const DType c = compute_dtype(row.promotion, d);
      if (accepts(row.dtypes, c)) {
        Tensor y;
        EXPECT_NO_THROW(y = call(row.op, sample(d), sample(d)));
        if (y.defined()) {
          EXPECT_EQ(y.dtype(), output_dtype(row.out, c));
        }
      } else {
        testing::expect_error([&] { call(row.op, sample(d), sample(d)); }, row.name);
      }
    }
  }
}

TEST(ElementwiseInfo, TernaryDTypes) {
  for (const TernaryInfo& row : kTernaryInfo) {
    for (DType d : kAllDTypes) {
      SCOPED_TRACE(std::string(row.name) + " on " + std::string(dtype_name(d)));
      // The op files add their own checks before the kernel: lerp needs
      // floating or complex tensors, addcdiv refuses integer division.
      const bool refused_by_op = row.op == TernaryOp::Addcdiv && is_integral(d, true);
      if (accepts(row.dtypes, d) && !refused_by_op) {
        Tensor y;
        EXPECT_NO_THROW(y = call(row.op, sample(d), sample(d), sample(d)));
        if (y.defined()) {
          EXPECT_EQ(y.dtype(), d);
        }
      } else {
        testing::expect_error([&] { call(row.op, sample(d), sample(d), sample(d)); }, row.name);
      }
    }
  }
}

// A float64 (else complex128) input: one that can require grad.
std::optional<DType> grad_dtype(uint32_t mask) {
  if (accepts(mask, kFloat64)) return kFloat64;
  if (accepts(mask, kComplex128)) return kComplex128;
  return std::nullopt;
}

TEST(ElementwiseInfo, UnaryDifferentiableAndSavedInput) {
  for (const UnaryInfo& row : kUnaryInfo) {
    SCOPED_TRACE(row.name);
    const std::optional<DType> d = grad_dtype(row.dtypes);
    if (!d) {
      EXPECT_FALSE(row.differentiable) << "a differentiable op needs a floating or complex dtype";
      continue;
    }
    for (DType dt : {kFloat64, kComplex128}) {
      if (!accepts(row.dtypes, dt)) continue;
      SCOPED_TRACE(std::string(dtype_name(dt)));
      const Tensor x = sample(dt).requires_grad_();
      const Tensor y = call(row.op, x * 1);
      EXPECT_EQ(y.requires_grad(), row.differentiable);
      if (!row.differentiable) continue;
      // Real-valued loss of the (maybe complex) result.
      auto loss = [](const Tensor& r) { return r.is_complex() ? view_as_real(r).sum() : r.sum(); };
      loss(y).backward();
      const Tensor expected = x.grad().clone();
      // A real result can't be stored in a complex input (abs_ refuses).
      if (row.out == OutDType::Real && is_complex(dt)) continue;
      const Tensor x2 = sample(dt).requires_grad_();
      const std::optional<Tensor> y2 = call_inplace(row.op, x2 * 1);
      if (!y2) continue;
      // A save rule that leaves out an input backward reads fails here: the
      // write-back modifies the saved tensor.
      EXPECT_NO_THROW(loss(*y2).backward());
      expect_grads_equal(expected, x2.grad(), "in-place gradient");
    }
  }
}

TEST(ElementwiseInfo, BinaryDifferentiableAndSavedSelf) {
  for (const BinaryInfo& row : kBinaryInfo) {
    SCOPED_TRACE(row.name);
    const std::optional<DType> d = grad_dtype(row.dtypes);
    if (!d) {
      EXPECT_FALSE(row.differentiable) << "a differentiable op needs a floating or complex dtype";
      continue;
    }
    const Tensor a = sample(*d).requires_grad_(), b = (sample(*d) + 0.5).requires_grad_();
    EXPECT_EQ(call(row.op, a * 1, b).requires_grad(), row.differentiable);
    if (!row.differentiable) continue;
    for (bool b_requires_grad : {true, false}) {
      SCOPED_TRACE(b_requires_grad ? "other requires grad" : "other constant");
      auto fresh = [&] {
        Tensor a0 = sample(*d).requires_grad_();
        Tensor b0 = sample(*d) + 0.5;
        if (b_requires_grad) b0.requires_grad_();
        return std::pair{a0, b0};
      };
      auto [a1, b1] = fresh();
      call(row.op, a1 * 1, b1).sum().backward();
      auto [a2, b2] = fresh();
      const std::optional<Tensor> y2 = call_inplace(row.op, a2 * 1, b2);
      if (!y2) continue;
      EXPECT_NO_THROW(y2->sum().backward());
      expect_grads_equal(a1.grad(), a2.grad(), "gradient of self");
      if (b_requires_grad) expect_grads_equal(b1.grad(), b2.grad(), "gradient of other");
    }
  }
}

TEST(ElementwiseInfo, TernaryDifferentiable) {
  for (const TernaryInfo& row : kTernaryInfo) {
    SCOPED_TRACE(row.name);
    const Tensor a = sample(kFloat64).requires_grad_(), b = sample(kFloat64).requires_grad_();
    const Tensor c = sample(kFloat64) + 0.5;
    EXPECT_EQ(call(row.op, a, b, c).requires_grad(), row.differentiable);
  }
}

}  // namespace elementwise_info_test
}  // namespace ember
