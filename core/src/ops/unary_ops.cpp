// Unary elementwise ops: argument checks, output dtype, iterator; kernels compute.
#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "kernels/slots/elementwise_info.h"
#include "kernels/slots/elementwise_kernels.h"
#include "ops/op_utils.h"
#include "ops/scalar_overflow.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(unary_slot, UnaryFn, "unary", kUnaryOpNames.data(), kNumUnaryOps);
EMBER_DEFINE_SLOT(softplus_slot, SoftplusFn, "softplus");
EMBER_DEFINE_SLOT(nan_to_num_slot, NanToNumFn, "nan_to_num");
EMBER_DEFINE_SLOT(clamp_scalar_slot, ClampScalarFn, "clamp");

namespace {
// The facts about each op (name, dtypes, promotion, what backward saves) are
// its row in kUnaryInfo (kernels/slots/elementwise_info.h).
const char* op_name(UnaryOp op) { return op_info(op).name; }

// Whether unary_backward saves the input (not only the output).
bool backward_reads_input(UnaryOp op, const Tensor& self) {
  switch (op_info(op).saves_input) {
    case SavesInput::Never: return false;
    case SavesInput::Always: return true;
    case SavesInput::IfComplex: return self.is_complex();
    case SavesInput::IfOtherRequiresGrad: break;  // binary ops only
  }
  EMBER_FAIL(op_name(op), ": unary op with a binary save rule");
}

constexpr double kLn2 = 0.693147180559945309417232121458176568;
constexpr double kLn10 = 2.302585092994045684017991454684364208;
constexpr double kTwoOverSqrtPi = 1.128379167095512573896158903121545172;
constexpr double kSqrt1_2 = 0.707106781186547524400844362104849039;
constexpr double kInvSqrt2Pi = 0.398942280401432677939946059934381868;
constexpr double kSqrt2OverPi = 0.797884560802865355879892119868763737;
constexpr double kGeluTanhCoeff = 0.044715;

// Re(a * conj(b)) as a tensor of a's complex dtype (real tensors: a * b).
Tensor real_dot(const Tensor& a, const Tensor& b) {
  if (!a.is_complex() && !b.is_complex()) return a * b;
  return (a * b.conj() + a.conj() * b) * 0.5;
}
// d gelu / dx (x real), written with Tensor ops so that it has a derivative itself.
Tensor gelu_derivative(const Tensor& x, bool tanh_form) {
  if (!tanh_form) {
    Tensor cdf = (erf(x * kSqrt1_2) + 1) * 0.5;
    Tensor pdf = exp(x * x * -0.5) * kInvSqrt2Pi;
    return cdf + x * pdf;
  }
  Tensor x2 = x * x;
  Tensor t = tanh((x + x2 * x * kGeluTanhCoeff) * kSqrt2OverPi);
  Tensor left_derivative = (t + 1) * 0.5;
  Tensor right_derivative = x * 0.5 * (1 - t * t) * kSqrt2OverPi * (x2 * (3 * kGeluTanhCoeff) + 1);
  return left_derivative + right_derivative;
}

// d(op(x)) for the differentiable unary ops (Note [Recording an op]), as
// PyTorch's derivatives.yaml; complex inputs: the conjugate Wirtinger
// convention (grad * conj(f'(x))).
autograd::BackwardFn unary_backward(UnaryOp op, autograd::OpRecorder& rec, const Tensor& self,
                                    const Tensor& result) {
  using autograd::BackwardContext;
  using autograd::variable_list;
  // g * conj(f'(x)) with f' computed from the saved input.
  auto from_input = [&](Tensor (*df)(const Tensor&)) -> autograd::BackwardFn {
    return [sx = rec.save(self), df](BackwardContext& c) -> variable_list {
      return {c.grads[0] * df(c.unpack(sx)).conj()};
    };
  };
  // g * conj(f'(x)) with f' computed from the saved output.
  auto from_output = [&](Tensor (*df)(const Tensor&)) -> autograd::BackwardFn {
    return [sr = rec.save_output(result), df](BackwardContext& c) -> variable_list {
      return {c.grads[0] * df(c.unpack(sr)).conj()};
    };
  };
  auto zero = [](BackwardContext& c) -> variable_list { return {zeros_like(c.grads[0])}; };
  switch (op) {
    case UnaryOp::Neg:
      return [](BackwardContext& c) -> variable_list { return {c.grads[0].neg()}; };
    case UnaryOp::Conj:
      return [](BackwardContext& c) -> variable_list { return {c.grads[0].conj()}; };
    case UnaryOp::Frac:
      return [](BackwardContext& c) -> variable_list { return {c.grads[0]}; };
    case UnaryOp::Sign: case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round: case UnaryOp::Trunc:
      return zero;
    case UnaryOp::Abs:  // abs'(0) = sgn(0) = 0
      return [sx = rec.save(self)](BackwardContext& c) -> variable_list {
        return {c.grads[0] * c.unpack(sx).sgn()};
      };
    case UnaryOp::Sgn: {
      if (!self.is_complex()) return zero;
      // sgn(z) = z/|z|: dL/dz = (g - sgn * Re(g * conj(sgn))) / |z|, 0 at z = 0.
      return [sx = rec.save(self), sr = rec.save_output(result)](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        const Tensor x = c.unpack(sx), s = c.unpack(sr);
        const Tensor a = x.abs();
        return {where(a == 0, Scalar(0), (g - s * real_dot(g, s)) / a)};
      };
    }
    case UnaryOp::Exp:
      return from_output([](const Tensor& r) { return r; });
    case UnaryOp::Exp2:
      return from_output([](const Tensor& r) { return r * kLn2; });
    case UnaryOp::Expm1:
      return from_output([](const Tensor& r) { return r + 1; });
    case UnaryOp::Log:
      return from_input([](const Tensor& x) { return x.reciprocal(); });
    case UnaryOp::Log2:
      return from_input([](const Tensor& x) { return (x * kLn2).reciprocal(); });
    case UnaryOp::Log10:
      return from_input([](const Tensor& x) { return (x * kLn10).reciprocal(); });
    case UnaryOp::Log1p:
      return from_input([](const Tensor& x) { return (x + 1).reciprocal(); });
    case UnaryOp::Sqrt:  // inf at 0, as PyTorch
      return from_output([](const Tensor& r) { return (r * 2).reciprocal(); });
    case UnaryOp::Rsqrt:
      return from_output([](const Tensor& r) { return r * r * r * -0.5; });
    case UnaryOp::Square:
      return from_input([](const Tensor& x) { return x * 2; });
    case UnaryOp::Reciprocal:
      return from_output([](const Tensor& r) { return (r * r).neg(); });
    case UnaryOp::Sin:
      return from_input([](const Tensor& x) { return x.cos(); });
    case UnaryOp::Cos:
      return from_input([](const Tensor& x) { return x.sin().neg(); });
    case UnaryOp::Tan:
      return from_output([](const Tensor& r) { return r * r + 1; });
    case UnaryOp::Asin:
      return from_input([](const Tensor& x) { return (1 - x * x).rsqrt(); });
    case UnaryOp::Acos:
      return from_input([](const Tensor& x) { return (1 - x * x).rsqrt().neg(); });
    case UnaryOp::Atan:
      return from_input([](const Tensor& x) { return (x * x + 1).reciprocal(); });
    case UnaryOp::Sinh:
      return from_input([](const Tensor& x) { return x.cosh(); });
    case UnaryOp::Cosh:
      return from_input([](const Tensor& x) { return x.sinh(); });
    case UnaryOp::Tanh:
      return from_output([](const Tensor& r) { return 1 - r * r; });
    case UnaryOp::Asinh:
      return from_input([](const Tensor& x) { return (x * x + 1).rsqrt(); });
    case UnaryOp::Acosh:
      // 1/(sqrt(z-1) sqrt(z+1)): the same as (z^2-1)^(-1/2) for real z > 1, and
      // the derivative of the principal branch for complex z.
      return from_input([](const Tensor& x) {
        return x.is_complex() ? ((x - 1).sqrt() * (x + 1).sqrt()).reciprocal() : (x * x - 1).rsqrt();
      });
    case UnaryOp::Atanh:
      return from_input([](const Tensor& x) { return (1 - x * x).reciprocal(); });
    case UnaryOp::Sigmoid:
      return from_output([](const Tensor& r) { return r * (1 - r); });
    case UnaryOp::Relu:  // relu'(0) = 0 and relu'(NaN) = 1 (threshold_backward: result <= 0 gives 0)
      return [sr = rec.save_output(result)](BackwardContext& c) -> variable_list {
        return {where(c.unpack(sr) <= 0, Scalar(0), c.grads[0])};
      };
    case UnaryOp::Silu:
      return from_input([](const Tensor& x) {
        Tensor s = x.sigmoid();
        return s * (1 + x * (1 - s));
      });
    case UnaryOp::Erf:
      return from_input([](const Tensor& x) { return (x * x).neg().exp() * kTwoOverSqrtPi; });
    case UnaryOp::Erfc:
      return from_input([](const Tensor& x) { return (x * x).neg().exp() * -kTwoOverSqrtPi; });
    case UnaryOp::GeluErf:
      return from_input([](const Tensor& x) { return gelu_derivative(x, false); });
    case UnaryOp::GeluTanh:
      return from_input([](const Tensor& x) { return gelu_derivative(x, true); });
    case UnaryOp::Angle:  // recorded by angle() itself
    case UnaryOp::LogicalNot: case UnaryOp::BitwiseNot: case UnaryOp::Isnan: case UnaryOp::Isinf:
    case UnaryOp::Isfinite: case UnaryOp::Isposinf: case UnaryOp::Isneginf: case UnaryOp::Signbit:
      return nullptr;  // not differentiable
  }
  return nullptr;
}

Tensor compute_unary(UnaryOp op, const Tensor& self, Tensor out, bool inplace);

// The forward with autograd around it (as run_binary in binary_ops.cpp).
Tensor run_unary(UnaryOp op, const Tensor& self, Tensor out, bool inplace) {
  const char* name = op_name(op);
  EMBER_CHECK(self.defined(), name, ": input tensor is undefined");
  // A real result can't be stored in a complex self (PyTorch's abs_ error).
  EMBER_CHECK(!(inplace && self.is_complex() && op_info(op).out == OutDType::Real), "In-place ", name,
              " is not supported for complex tensors.");
  if (inplace && autograd::inplace_records(self)) {
    // A formula that reads the input saves it, and writing the result back
    // bumps its version: it gets a copy instead (PyTorch's original_self).
    const Tensor src = backward_reads_input(op, self) ? self.clone() : self;
    return autograd::assign_inplace(const_cast<Tensor&>(self), run_unary(op, src, Tensor(), false), name);
  }
  if (!op_info(op).differentiable) return compute_unary(op, self, out, inplace);
  if (out.defined() && !inplace) autograd::check_out_arguments(name, out, {self});
  autograd::OpRecorder rec(name, {self});
  rec.allow_batched_grads();  // elementwise formula
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
  switch (op_info(op).promotion) {
    case Promotion::None: break;
    case Promotion::IntToFloat: iter.promote_integer_inputs_to_float(); break;
    case Promotion::BoolToLong:  // square is pow(x, 2) in PyTorch: a bool input squares to int64
      if (self.dtype() == kBool) iter.compute_dtype(kInt64);
      break;
  }
  switch (op_info(op).out) {
    case OutDType::Same: break;
    case OutDType::Bool: iter.output_dtype(kBool); break;
    case OutDType::Real:
      if (self.is_complex()) iter.output_dtype(to_real_dtype(self.dtype()));
      break;
  }
  iter.build();
  unary_slot(iter.device())(iter, op);
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
// conj() is a view (view_ops.cpp); conj_physical computes, into new memory or in place.
Tensor conj_physical(const Tensor& self) {
  return self.is_complex() ? run_unary(UnaryOp::Conj, self, Tensor(), false) : self.clone();
}
Tensor& conj_physical_(Tensor& self) {
  if (self.is_complex()) run_unary(UnaryOp::Conj, self, self, true);
  return self;
}
Tensor Tensor::conj_physical() const { return ember::conj_physical(*this); }
Tensor& Tensor::conj_physical_() { return ember::conj_physical_(*this); }
Tensor angle(const Tensor& self) {
  autograd::OpRecorder rec("angle", {self});
  rec.allow_batched_grads();  // elementwise formula
  // Complex -> real dtype; real inputs -> 0 or pi in a floating dtype.
  TensorIterator iter("angle");
  iter.add_output(Tensor()).add_input(self);
  if (self.is_complex()) iter.output_dtype(to_real_dtype(self.dtype()));
  else iter.promote_integer_inputs_to_float();
  iter.build();
  unary_slot(iter.device())(iter, UnaryOp::Angle);
  Tensor result = iter.output();
  if (rec) {
    // Real inputs: a step function (zero gradient). Complex: angle = atan2(y, x),
    // dL/dz = g * i * z / |z|^2, and 0 at z = 0.
    const bool complex = self.is_complex();
    rec.record(result, [complex, sx = rec.save_if(complex, self)](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      if (!complex) return autograd::variable_list{zeros_like(g)};
      const Tensor x = c.unpack(sx);
      return autograd::variable_list{
          where(x == 0, Scalar(0), g * x / x.abs().square() * Scalar(complex128(0, 1)))};
    });
  }
  return result;
}
Tensor Tensor::isnan() const { return ember::isnan(*this); }
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::signbit() const { return ember::signbit(*this); }
Tensor Tensor::angle() const { return ember::angle(*this); }

Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  autograd::OpRecorder rec("softplus", {self});
  rec.allow_batched_grads();  // elementwise formula
  TensorIterator iter("softplus");
  iter.add_output(Tensor()).add_input(self).promote_integer_inputs_to_float();
  iter.build();
  softplus_slot(iter.device())(iter, beta, threshold);
  Tensor result = iter.output();
  if (rec)  // sigmoid(beta x), or 1 where beta x > threshold (the linear branch)
    rec.record(result, [beta, threshold, sx = rec.save(self)](autograd::BackwardContext& c) {
      const Tensor z = c.unpack(sx) * beta;
      return autograd::variable_list{c.grads[0] * where(z > threshold, Scalar(1), z.sigmoid())};
    });
  return result;
}
Tensor Tensor::softplus(const Scalar& beta, const Scalar& threshold) const {
  return ember::softplus(*this, beta, threshold);
}

Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!self.is_floating_point() && !self.is_complex()) return self.clone();
  autograd::OpRecorder rec("nan_to_num", {self});
  rec.allow_batched_grads();  // elementwise formula
  TensorIterator iter("nan_to_num");
  iter.add_output(Tensor()).add_input(self);
  iter.build();
  nan_to_num_slot(iter.device())(iter, nan.value_or(0.0), posinf, neginf);
  Tensor result = iter.output();
  if (rec)  // the gradient passes where x is finite; replaced values are constants
    rec.record(result, [sx = rec.save(self)](autograd::BackwardContext& c) {
      return autograd::variable_list{c.grads[0] * c.unpack(sx).isfinite()};
    });
  return result;
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
  const char* name = min && max ? "clamp" : min ? "clamp_min" : "clamp_max";
  if (inplace && autograd::inplace_records(self))  // the formula saves the input: a copy (see run_unary)
    return autograd::assign_inplace(const_cast<Tensor&>(self), run_clamp(self.clone(), min, max, Tensor(), false),
                                    "clamp_");
  if (out.defined() && !inplace) autograd::check_out_arguments(name, out, {self});
  autograd::OpRecorder rec(name, {self});
  rec.allow_batched_grads();  // elementwise formula
  // Result dtype follows type promotion with the bounds, as PyTorch 1.13+.
  std::vector<Tensor> operands{self};
  if (min) operands.push_back(scalar_to_tensor(*min));
  if (max) operands.push_back(scalar_to_tensor(*max));
  const DType dtype = result_type(operands);
  // The bounds must fit the result dtype (Note [Scalar overflow]): uint8 clamp(max=300) raises.
  if (min) check_scalar_fits(*min, dtype, name);
  if (max) check_scalar_fits(*max, dtype, name);
  TensorIterator iter("clamp");
  iter.add_output(out).add_input(self).compute_dtype(dtype).is_inplace(inplace);
  iter.build();
  clamp_scalar_slot(iter.device())(iter, min, max);
  iter.finish();
  if (out.defined()) out.bump_version();
  Tensor result = iter.output();
  if (rec)  // as PyTorch: the gradient passes where min <= x <= max (bounds included)
    rec.record(result, [min, max, sx = rec.save(self)](autograd::BackwardContext& c) {
      const Tensor x = c.unpack(sx);
      Tensor keep = min ? x >= *min : x <= *max;
      if (min && max) keep = logical_and(keep, x <= *max);
      return autograd::variable_list{where(keep, c.grads[0], Scalar(0))};
    });
  return result;
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
  if (!min.defined() && !max.defined()) return self;
  const bool has_min = min.defined(), has_max = max.defined();
  autograd::OpRecorder rec(!has_max ? "clamp_min" : !has_min ? "clamp_max" : "clamp", {self, min, max});
  rec.allow_batched_grads();  // elementwise formula
  Tensor r;
  if (has_min && has_max) {
    // One pass over (self, min, max), as PyTorch: the result dtype promotes all
    // three at once (maximum then minimum would round a float64 0-dim min to a
    // float32 self's dtype before a float64 max promoted the result), and the
    // output layout follows all three operands.
    TensorIterator iter("clamp");
    iter.add_output(Tensor()).add_input(self).add_input(min).add_input(max);
    iter.build();
    EMBER_CHECK(!is_complex(iter.common_dtype()), "clamp: is not supported for complex types (got ",
                iter.common_dtype(), ")");
    ternary_slot(iter.device())(iter, TernaryOp::Clamp, 0);
    r = iter.output();
  } else {
    r = has_min ? maximum(self, min) : minimum(self, max);
  }
  if (rec) {
    // As PyTorch's clamp_backward_min_max: self gets the gradient where
    // min <= x <= max; min where x < min (and min < max); max where x > max
    // (or max < min, where the result is max).
    rec.record(r, [has_min, has_max, sx = rec.save(self), smin = rec.save_if(has_min, min),
                   smax = rec.save_if(has_max, max)](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      const Tensor x = c.unpack(sx);
      const Tensor lo = has_min ? c.unpack(smin) : Tensor(), hi = has_max ? c.unpack(smax) : Tensor();
      autograd::variable_list grads(3);
      if (c.needs(0)) {
        Tensor keep = has_min ? x >= lo : x <= hi;
        if (has_min && has_max) keep = logical_and(keep, x <= hi);
        grads[0] = where(keep, g, Scalar(0));
      }
      if (has_min && c.needs(1))
        grads[1] = where(has_max ? logical_and(x < lo, lo < hi) : x < lo, g, Scalar(0));
      if (has_max && c.needs(2))
        grads[2] = where(has_min ? logical_or(x > hi, hi < lo) : x > hi, g, Scalar(0));
      return grads;
    });
  }
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
