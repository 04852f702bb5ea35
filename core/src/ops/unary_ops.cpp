// Unary elementwise ops: argument checks, output dtype, iterator; kernels compute.
#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ops/elementwise_kernels.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_STUB(unary_stub, UnaryFn, "unary");
EMBER_DEFINE_STUB(softplus_stub, SoftplusFn, "softplus");
EMBER_DEFINE_STUB(nan_to_num_stub, NanToNumFn, "nan_to_num");
EMBER_DEFINE_STUB(clamp_scalar_stub, ClampScalarFn, "clamp");

namespace {
// How an op's output dtype follows from its input's.
enum class OutKind {
  Same,     // same dtype as the input
  Float,    // integral/bool inputs compute in the default float dtype
  Bool,     // bool result (predicates)
  Real,     // complex input gives the matching real dtype (abs)
};

OutKind out_kind(UnaryOp op) {
  switch (op) {
    case UnaryOp::Abs: return OutKind::Real;
    case UnaryOp::Neg: case UnaryOp::Sign: case UnaryOp::Sgn: case UnaryOp::Square:
    case UnaryOp::Relu: case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round:
    case UnaryOp::Trunc: case UnaryOp::Frac: case UnaryOp::BitwiseNot: case UnaryOp::Conj:
      return OutKind::Same;
    case UnaryOp::LogicalNot: case UnaryOp::Isnan: case UnaryOp::Isinf: case UnaryOp::Isfinite:
    case UnaryOp::Isposinf: case UnaryOp::Isneginf: case UnaryOp::Signbit:
      return OutKind::Bool;
    default: return OutKind::Float;
  }
}

const char* op_name(UnaryOp op) {
  switch (op) {
#define EMBER_NAME(E, n) case UnaryOp::E: return #n;
    EMBER_UNARY_OPS(EMBER_NAME)
#undef EMBER_NAME
  }
  return "unary";
}

// d(op(x)) for the differentiable unary ops (Note [Recording an op]);
// complex inputs: the conjugate Wirtinger convention (grad * conj(f'(x))).
autograd::BackwardFn unary_backward(UnaryOp op, autograd::OpRecorder& rec, const Tensor& self,
                                    const Tensor& result) {
  using autograd::BackwardContext;
  using autograd::variable_list;
  switch (op) {
    case UnaryOp::Neg:
      return [](BackwardContext& c) -> variable_list { return {c.grads[0].neg()}; };
    case UnaryOp::Conj:
      return [](BackwardContext& c) -> variable_list { return {c.grads[0].conj()}; };
    case UnaryOp::Exp:
      return [r = rec.save_output(result)](BackwardContext& c) -> variable_list {
        return {c.grads[0] * c.unpack(r).conj()};
      };
    default:
      return nullptr;  // not differentiable (or not yet: see the autograd issue)
  }
  (void)self;
}

Tensor compute_unary(UnaryOp op, const Tensor& self, Tensor out, bool inplace);

// The forward with autograd around it (as run_binary in binary_ops.cpp).
Tensor run_unary(UnaryOp op, const Tensor& self, Tensor out, bool inplace) {
  const char* name = op_name(op);
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  if (inplace && autograd::inplace_records(self))
    return autograd::assign_inplace(const_cast<Tensor&>(self), run_unary(op, self, Tensor(), false), name);
  if (out.defined() && !inplace) autograd::check_out_arguments(name, out, {self});
  autograd::OpRecorder rec(name, {self});
  Tensor result = compute_unary(op, self, out, inplace);
  if (rec)
    if (auto fn = unary_backward(op, rec, self, result)) rec.record(result, std::move(fn));
  return result;
}

Tensor compute_unary(UnaryOp op, const Tensor& self, Tensor out, bool inplace) {
  const char* name = op_name(op);
  if (op == UnaryOp::Neg)
    EMBER_CHECK(self.dtype() != kBool, "neg: negation, the `-` operator, on a bool tensor is not supported. "
                "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  TensorIterator iter(name);
  iter.add_output(out).add_input(self).is_inplace(inplace);
  switch (out_kind(op)) {
    case OutKind::Same: break;
    case OutKind::Float: iter.promote_integer_inputs_to_float(); break;
    case OutKind::Bool: iter.output_dtype(kBool); break;
    case OutKind::Real:
      if (self.is_complex()) iter.output_dtype(to_real_dtype(self.dtype()));
      break;
  }
  // square is pow(x, 2) in PyTorch: a bool input squares to int64.
  if (op == UnaryOp::Square && self.dtype() == kBool) iter.compute_dtype(kInt64);
  iter.build();
  unary_stub(iter.device())(iter, op);
  iter.finish();
  Tensor result = iter.output();
  if (out.defined()) out.bump_version();
  return result;
}
}  // namespace

#define EMBER_DEFINE_UNARY(E, name)                                                     \
  Tensor name(const Tensor& self) { return run_unary(UnaryOp::E, self, Tensor(), false); } \
  Tensor& name##_(Tensor& self) {                                                       \
    run_unary(UnaryOp::E, self, self, true);                                            \
    return self;                                                                        \
  }                                                                                     \
  Tensor& name##_out(Tensor& out, const Tensor& self) {                                 \
    run_unary(UnaryOp::E, self, out, false);                                            \
    return out;                                                                         \
  }                                                                                     \
  Tensor Tensor::name() const { return ember::name(*this); }                            \
  Tensor& Tensor::name##_() { return ember::name##_(*this); }
EMBER_DEFINE_UNARY(Abs, abs)
EMBER_DEFINE_UNARY(Neg, neg)
EMBER_DEFINE_UNARY(Sign, sign)
EMBER_DEFINE_UNARY(Sgn, sgn)
EMBER_DEFINE_UNARY(Exp, exp)
EMBER_DEFINE_UNARY(Exp2, exp2)
EMBER_DEFINE_UNARY(Expm1, expm1)
EMBER_DEFINE_UNARY(Log, log)
EMBER_DEFINE_UNARY(Log2, log2)
EMBER_DEFINE_UNARY(Log10, log10)
EMBER_DEFINE_UNARY(Log1p, log1p)
EMBER_DEFINE_UNARY(Sqrt, sqrt)
EMBER_DEFINE_UNARY(Rsqrt, rsqrt)
EMBER_DEFINE_UNARY(Square, square)
EMBER_DEFINE_UNARY(Reciprocal, reciprocal)
EMBER_DEFINE_UNARY(Sin, sin)
EMBER_DEFINE_UNARY(Cos, cos)
EMBER_DEFINE_UNARY(Tan, tan)
EMBER_DEFINE_UNARY(Asin, asin)
EMBER_DEFINE_UNARY(Acos, acos)
EMBER_DEFINE_UNARY(Atan, atan)
EMBER_DEFINE_UNARY(Sinh, sinh)
EMBER_DEFINE_UNARY(Cosh, cosh)
EMBER_DEFINE_UNARY(Tanh, tanh)
EMBER_DEFINE_UNARY(Asinh, asinh)
EMBER_DEFINE_UNARY(Acosh, acosh)
EMBER_DEFINE_UNARY(Atanh, atanh)
EMBER_DEFINE_UNARY(Sigmoid, sigmoid)
EMBER_DEFINE_UNARY(Relu, relu)
EMBER_DEFINE_UNARY(Silu, silu)
EMBER_DEFINE_UNARY(Erf, erf)
EMBER_DEFINE_UNARY(Erfc, erfc)
EMBER_DEFINE_UNARY(Floor, floor)
EMBER_DEFINE_UNARY(Ceil, ceil)
EMBER_DEFINE_UNARY(Round, round)
EMBER_DEFINE_UNARY(Trunc, trunc)
EMBER_DEFINE_UNARY(Frac, frac)
EMBER_DEFINE_UNARY(LogicalNot, logical_not)
EMBER_DEFINE_UNARY(BitwiseNot, bitwise_not)
#undef EMBER_DEFINE_UNARY

namespace {
UnaryOp gelu_op(const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  return approximate == "none" ? UnaryOp::GeluErf : UnaryOp::GeluTanh;
}
}  // namespace

Tensor gelu(const Tensor& self, const std::string& approximate) {
  return run_unary(gelu_op(approximate), self, Tensor(), false);
}
Tensor& gelu_out(Tensor& out, const Tensor& self, const std::string& approximate) {
  run_unary(gelu_op(approximate), self, out, false);
  return out;
}
Tensor Tensor::gelu(const std::string& approximate) const { return ember::gelu(*this, approximate); }

Tensor isnan(const Tensor& self) { return run_unary(UnaryOp::Isnan, self, Tensor(), false); }
Tensor isinf(const Tensor& self) { return run_unary(UnaryOp::Isinf, self, Tensor(), false); }
Tensor isfinite(const Tensor& self) { return run_unary(UnaryOp::Isfinite, self, Tensor(), false); }
Tensor isposinf(const Tensor& self) { return run_unary(UnaryOp::Isposinf, self, Tensor(), false); }
Tensor isneginf(const Tensor& self) { return run_unary(UnaryOp::Isneginf, self, Tensor(), false); }
Tensor signbit(const Tensor& self) { return run_unary(UnaryOp::Signbit, self, Tensor(), false); }
Tensor conj(const Tensor& self) {
  return self.is_complex() ? run_unary(UnaryOp::Conj, self, Tensor(), false) : self;
}
Tensor angle(const Tensor& self) {
  // Complex -> real dtype; real inputs -> 0 or pi in a floating dtype.
  TensorIterator iter("angle");
  iter.add_output(Tensor()).add_input(self);
  if (self.is_complex()) iter.output_dtype(to_real_dtype(self.dtype()));
  else iter.promote_integer_inputs_to_float();
  iter.build();
  unary_stub(iter.device())(iter, UnaryOp::Angle);
  return iter.output();
}
Tensor Tensor::isnan() const { return ember::isnan(*this); }
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::signbit() const { return ember::signbit(*this); }
Tensor Tensor::conj() const { return ember::conj(*this); }
Tensor Tensor::angle() const { return ember::angle(*this); }

Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  TensorIterator iter("softplus");
  iter.add_output(Tensor()).add_input(self).promote_integer_inputs_to_float();
  iter.build();
  softplus_stub(iter.device())(iter, beta, threshold);
  return iter.output();
}
Tensor Tensor::softplus(const Scalar& beta, const Scalar& threshold) const {
  return ember::softplus(*this, beta, threshold);
}

Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!self.is_floating_point() && !self.is_complex()) return self.clone();
  TensorIterator iter("nan_to_num");
  iter.add_output(Tensor()).add_input(self);
  iter.build();
  nan_to_num_stub(iter.device())(iter, nan.value_or(0.0), posinf, neginf);
  return iter.output();
}
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}

namespace {
Tensor run_clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max, Tensor out,
                 bool inplace) {
  EMBER_CHECK(min || max, "clamp: at least one of 'min' or 'max' must not be None");
  EMBER_CHECK(!self.is_complex(), "clamp: is not supported for complex types (got ", self.dtype(), ")");
  // Result dtype follows type promotion with the bounds, as PyTorch 1.13+.
  std::vector<Tensor> operands{self};
  if (min) operands.push_back(scalar_to_tensor(*min));
  if (max) operands.push_back(scalar_to_tensor(*max));
  const DType dtype = result_type(operands);
  TensorIterator iter("clamp");
  iter.add_output(out).add_input(self).compute_dtype(dtype).is_inplace(inplace);
  iter.build();
  clamp_scalar_stub(iter.device())(iter, min, max);
  iter.finish();
  if (out.defined()) out.bump_version();
  return iter.output();
}
}  // namespace

Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  return run_clamp(self, min, max, Tensor(), false);
}
Tensor& clamp_out(Tensor& out, const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  run_clamp(self, min, max, out, false);
  return out;
}
Tensor clamp(const Tensor& self, const Tensor& min, const Tensor& max) {
  Tensor r = self;
  if (min.defined()) r = maximum(r, min);
  if (max.defined()) r = minimum(r, max);
  return r;
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  run_clamp(*this, min, max, *this, true);
  return *this;
}
Tensor Tensor::clamp(const Tensor& min, const Tensor& max) const { return ember::clamp(*this, min, max); }
Tensor Tensor::clamp_min(const Scalar& min) const { return ember::clamp(*this, min, std::nullopt); }
Tensor Tensor::clamp_max(const Scalar& max) const { return ember::clamp(*this, std::nullopt, max); }

}  // namespace ember
