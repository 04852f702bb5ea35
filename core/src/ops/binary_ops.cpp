// Binary elementwise ops and the Tensor operators built on them.
#include "autograd/formulas.h"
#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "kernels/slots/elementwise_info.h"
#include "kernels/slots/elementwise_kernels.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(binary_slot, BinaryFn, "binary", kBinaryOpNames.data(), kNumBinaryOps);
EMBER_DEFINE_SLOT(pow_scalar_slot, PowScalarFn, "pow_scalar");

namespace {
// The facts about each op (name, dtypes, promotion, what backward saves) are
// its row in kBinaryInfo (kernels/slots/elementwise_info.h).
const char* op_name(BinaryOp op) { return op_info(op).name; }

// record_grad = false: the op records nothing (floor_divide).
Tensor run_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor out, bool inplace,
                  const Scalar& alpha = 1, bool record_grad = true);
Tensor compute_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor out, bool inplace,
                      const Scalar& alpha);

// d(op(a, b)) for the differentiable binary ops (Note [Recording an op]):
// gradients w.r.t. a and b, at full (broadcast) shape; the engine reduces
// them to the inputs' shapes. Complex: the conjugate Wirtinger convention.
autograd::BackwardFn binary_backward(BinaryOp op, autograd::OpRecorder& rec, const Tensor& a_in, const Tensor& b_in,
                                     const Tensor& result, const Scalar& alpha) {
  using autograd::BackwardContext;
  using autograd::variable_list;
  // Note [Wrapped numbers in formulas] (autograd/formulas.h).
  const Tensor a = autograd::plain_number(a_in), b = autograd::plain_number(b_in);
  switch (op) {
    case BinaryOp::Add: {
      const bool unit = !alpha.is_complex() && alpha.to<double>() == 1.0;
      const Scalar alpha_conj = alpha.is_complex() ? Scalar(std::conj(alpha.to<complex128>())) : alpha;
      return [unit, alpha_conj](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        return {g, c.needs(1) ? (unit ? g : g * alpha_conj) : Tensor()};
      };
    }
    case BinaryOp::Mul: {
      auto sa = rec.save_if(rec.needs(1), a), sb = rec.save_if(rec.needs(0), b);
      return [sa, sb](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        return {c.needs(0) ? g * c.unpack(sb).conj() : Tensor(), c.needs(1) ? g * c.unpack(sa).conj() : Tensor()};
      };
    }
    case BinaryOp::Div: {
      auto sa = rec.save_if(rec.needs(1), a), sb = rec.save(b);
      return [sa, sb](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        const Tensor bb = c.unpack(sb).conj();
        // (a / b) / b as PyTorch: b * b underflows for tiny b (bfloat16 1e-30) where a / b / b is 0.
        return {c.needs(0) ? g / bb : Tensor(), c.needs(1) ? g * (c.unpack(sa).conj() / bb / bb) * -1.0 : Tensor()};
      };
    }
    case BinaryOp::DivTrunc: case BinaryOp::DivFloor:
      // div with a rounding mode: piecewise constant, zero gradients (as PyTorch).
      return [](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        return {c.needs(0) ? zeros_like(g) : Tensor(), c.needs(1) ? zeros_like(g) : Tensor()};
      };
    case BinaryOp::Fmod: case BinaryOp::Remainder: {
      // a - b * q with q = trunc(a/b) (fmod) or floor(a/b) (remainder), q piecewise constant.
      const char* mode = op == BinaryOp::Fmod ? "trunc" : "floor";
      auto sa = rec.save_if(rec.needs(1), a), sb = rec.save_if(rec.needs(1), b);
      return [sa, sb, mode](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        return {c.needs(0) ? g : Tensor(),
                c.needs(1) ? g.neg() * c.unpack(sa).div(c.unpack(sb), mode) : Tensor()};
      };
    }
    case BinaryOp::Pow: {
      if (b_in.impl()->is_wrapped_number()) {
        // tensor ** number: e * a^(e-1), and 0 for e == 0 (even at a == 0).
        const Scalar e = b.item();
        const bool zero = e.is_complex() ? e.to<complex128>() == complex128(0) : e.to<double>() == 0.0;
        const Scalar e_minus_1 =
            e.is_complex() ? Scalar(e.to<complex128>() - 1.0) : e.is_floating_point() ? Scalar(e.to<double>() - 1) : Scalar(e.to<int64_t>() - 1);
        return [sa = rec.save(a), e, zero, e_minus_1](BackwardContext& c) -> variable_list {
          const Tensor& g = c.grads[0];
          if (zero) return {zeros_like(g), Tensor()};
          return {g * (c.unpack(sa).pow(e_minus_1) * e).conj(), Tensor()};
        };
      }
      auto sa = rec.save(a), sb = rec.save(b);
      auto sr = rec.needs(1) ? rec.save_output(result) : autograd::SavedVariable();
      const bool base_is_number = a_in.impl()->is_wrapped_number();
      return [sa, sb, sr, base_is_number](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        const Tensor x = c.unpack(sa), y = c.unpack(sb);
        variable_list grads(2);
        // d/da: y * a^(y-1), 0 where y == 0.
        if (c.needs(0)) grads[0] = where(y == 0, Scalar(0), g * (y * x.pow(y - 1)).conj());
        // d/db: a^b * log(a), 0 where a == 0 and b >= 0 (real b).
        if (c.needs(1)) {
          const Tensor r = c.unpack(sr);
          const Tensor zero_base = logical_and(
              x == 0, y.is_complex() ? logical_and(y.imag() == 0, y.real() >= 0) : y >= 0);
          // A number base's log is taken in double (complex double for a
          // complex result), as PyTorch's Scalar::log(); a tensor base is
          // first promoted to the result's dtype.
          const Tensor base = base_is_number ? x.to(r.is_complex() ? kComplex128 : kFloat64)
                              : x.dtype() == r.dtype() ? x : x.to(r.dtype());
          grads[1] = g * where(zero_base, Scalar(0), (r * base.log()).conj());
        }
        return grads;
      };
    }
    case BinaryOp::Atan2: {
      auto sa = rec.save(a), sb = rec.save(b);
      return [sa, sb](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        // A wrapped number (atan2(t, 0.1)) times itself is a float32 product
        // (the result type of two numbers): square it at the gradient's dtype.
        // (A new 0-dim tensor: to() of the same dtype would return the wrapped one.)
        auto at_grad_dtype = [&g](const Tensor& t) {
          return t.impl()->is_wrapped_number() ? scalar_tensor(t.item(), TensorOptions(g.dtype())) : t;
        };
        const Tensor x = at_grad_dtype(c.unpack(sa)), y = at_grad_dtype(c.unpack(sb));
        const Tensor recip = (x * x + y * y).reciprocal();
        return {c.needs(0) ? g * y * recip : Tensor(), c.needs(1) ? g * x.neg() * recip : Tensor()};
      };
    }
    case BinaryOp::Maximum: case BinaryOp::Minimum: {
      // Ties split the gradient evenly; where one side is NaN both get it (as PyTorch).
      const bool is_max = op == BinaryOp::Maximum;
      auto sa = rec.save(a), sb = rec.save(b);
      return [sa, sb, is_max](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        const Tensor x = c.unpack(sa), y = c.unpack(sb);
        const Tensor shared = where(x == y, g / 2, g);
        return {c.needs(0) ? shared.masked_fill(is_max ? x < y : x > y, 0) : Tensor(),
                c.needs(1) ? shared.masked_fill(is_max ? x > y : x < y, 0) : Tensor()};
      };
    }
    case BinaryOp::Fmax: case BinaryOp::Fmin: {
      // Ties go to a; a NaN side gives its gradient to the other.
      const bool is_max = op == BinaryOp::Fmax;
      auto sa = rec.save(a), sb = rec.save(b);
      return [sa, sb, is_max](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        const Tensor x = c.unpack(sa), y = c.unpack(sb);
        const Tensor to_a = logical_or(is_max ? x >= y : x <= y, y.isnan());
        return {c.needs(0) ? g.masked_fill(logical_not(to_a), 0) : Tensor(),
                c.needs(1) ? g.masked_fill(to_a, 0) : Tensor()};
      };
    }
    case BinaryOp::Hypot: {
      auto sa = rec.save_if(rec.needs(0), a), sb = rec.save_if(rec.needs(1), b);
      return [sa, sb, sr = rec.save_output(result)](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        const Tensor r = c.unpack(sr);
        return {c.needs(0) ? g * c.unpack(sa) / r : Tensor(), c.needs(1) ? g * c.unpack(sb) / r : Tensor()};
      };
    }
    case BinaryOp::Copysign: {
      // d/da = result / a (the sign applied), 0 at a == 0; nothing flows to b.
      auto sa = rec.save_if(rec.needs(0), a);
      auto sr = rec.needs(0) ? rec.save_output(result) : autograd::SavedVariable();
      return [sa, sr](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        Tensor ga;
        if (c.needs(0)) {
          const Tensor x = c.unpack(sa);
          ga = g * (c.unpack(sr) / x).masked_fill(x == 0, 0);
        }
        return {ga, c.needs(1) ? zeros_like(g) : Tensor()};
      };
    }
    case BinaryOp::Xlogy: {
      auto sa = rec.save(a), sb = rec.save(b);
      return [sa, sb](BackwardContext& c) -> variable_list {
        const Tensor& g = c.grads[0];
        const Tensor x = c.unpack(sa), y = c.unpack(sb);
        return {c.needs(0) ? xlogy(g, y).masked_fill(logical_and(x == 0, y <= 0), 0) : Tensor(),
                c.needs(1) ? g * x / y : Tensor()};
      };
    }
    case BinaryOp::Eq: case BinaryOp::Ne: case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt:
    case BinaryOp::Ge: case BinaryOp::LogicalAnd: case BinaryOp::LogicalOr: case BinaryOp::LogicalXor:
    case BinaryOp::BitwiseAnd: case BinaryOp::BitwiseOr: case BinaryOp::BitwiseXor:
    case BinaryOp::LeftShift: case BinaryOp::RightShift:
      return nullptr;  // not differentiable
  }
  return nullptr;
}

// Whether binary_backward saves a (the first input).
bool backward_reads_self(BinaryOp op, const Tensor& a, const Tensor& b) {
  switch (op_info(op).saves_self) {
    case SavesInput::Never: return false;
    case SavesInput::Always: return true;
    case SavesInput::IfComplex: return a.is_complex();
    case SavesInput::IfOtherRequiresGrad: return b.requires_grad();
  }
  return true;
}

// The forward with autograd around it: in-place ops under autograd run out of
// place and copy back (Note [In-place writes and views]); out= variants take
// no part in autograd.
Tensor run_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor out, bool inplace,
                  const Scalar& alpha, bool record_grad) {
  const char* name = op_name(op);
  EMBER_CHECK(a.defined() && b.defined(), name, ": got an undefined tensor");
  if (inplace && autograd::inplace_records(a, {b})) {
    // A formula that saves a would see it modified by the write back: it gets
    // a copy of a instead (PyTorch's original_self).
    const bool saves_a = record_grad && backward_reads_self(op, a, b);
    return autograd::assign_inplace(const_cast<Tensor&>(a),
                                    run_binary(op, saves_a ? a.clone() : a, b, Tensor(), false, alpha, record_grad),
                                    name);
  }
  // Non-differentiable ops take out= arguments that require grad, as PyTorch.
  if (!record_grad || !op_info(op).differentiable) return compute_binary(op, a, b, out, inplace, alpha);
  if (out.defined() && !inplace) autograd::check_out_arguments(name, out, {a, b});
  autograd::OpRecorder rec(name, {a, b});
  rec.allow_batched_grads();  // elementwise formula
  Tensor result = compute_binary(op, a, b, out, inplace, alpha);
  if (rec)
    if (auto fn = binary_backward(op, rec, a, b, result, alpha)) rec.record(result, std::move(fn));
  return result;
}

Tensor compute_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor out, bool inplace,
                      const Scalar& alpha) {
  const char* name = op_name(op);
  TensorIterator iter(name);
  iter.add_output(out).add_input(a).add_input(b).is_inplace(inplace);
  const BinaryInfo& row = op_info(op);
  switch (row.promotion) {
    case Promotion::None: break;
    case Promotion::IntToFloat: iter.promote_integer_inputs_to_float(); break;
    case Promotion::BoolToLong: EMBER_FAIL(name, ": binary ops have no bool-to-int64 promotion");
  }
  switch (row.out) {
    case OutDType::Same: break;
    case OutDType::Bool: iter.output_dtype(kBool); break;
    case OutDType::Real: EMBER_FAIL(name, ": binary ops have no complex-to-real output");
  }
  iter.build();
  const DType common = iter.common_dtype();
  if (op == BinaryOp::Add) {
    if (is_integral(common, true))
      EMBER_CHECK(alpha.is_integral(true), name, ": for integral input tensors, argument alpha must not be a floating point number (got ", alpha, ")");
    // As PyTorch: a bool alpha needs a bool result; a bool result takes any integral alpha.
    EMBER_CHECK(!alpha.is_boolean() || common == kBool, name,
                ": boolean alpha only supported for bool results (got ", common, ")");
    if (!is_complex(common))
      EMBER_CHECK(!alpha.is_complex(), name, ": complex alpha needs a complex result, got ", common);
  }
  if (!row.supports_complex())
    EMBER_CHECK(!is_complex(common), name, ": is not supported for complex inputs (got ", a.dtype(),
                " and ", b.dtype(), ")");
  // As PyTorch: int_tensor ** -1 (a number) is an error, not 0; tensor exponents give 0.
  if (op == BinaryOp::Pow && b.impl()->is_wrapped_number() && is_integral(common, true))
    EMBER_CHECK(b.item<int64_t>() >= 0, name,
                ": integers to negative integer powers are not allowed (exponent ", b.item<int64_t>(), ")");
  // tensor ** number has its own kernel (products, sqrt, division for the
  // exponents PyTorch special-cases); a tensor exponent never takes it.
  if (op == BinaryOp::Pow && b.impl()->is_wrapped_number())
    pow_scalar_slot(iter.device())(iter, b.item());
  else
    binary_slot(iter.device())(iter, op, alpha);
  iter.finish();
  if (out.defined()) out.bump_version();
  return iter.output();
}

Tensor wrap(const Scalar& s) { return scalar_to_tensor(s); }
}  // namespace

#define EMBER_DEFINE_BINARY(E, name)                                                      \
  Tensor name(const Tensor& self, const Tensor& other) {                                  \
    return run_binary(BinaryOp::E, self, other, Tensor(), false);                         \
  }                                                                                       \
  Tensor name(const Tensor& self, const Scalar& other) {                                  \
    return run_binary(BinaryOp::E, self, wrap(other), Tensor(), false);                   \
  }                                                                                       \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) {              \
    run_binary(BinaryOp::E, self, other, out, false);                                     \
    return out;                                                                           \
  }                                                                                       \
  Tensor Tensor::name(const Tensor& other) const { return ember::name(*this, other); }    \
  Tensor Tensor::name(const Scalar& other) const { return ember::name(*this, other); }    \
  Tensor& Tensor::name##_(const Tensor& other) {                                          \
    run_binary(BinaryOp::E, *this, other, *this, true);                                   \
    return *this;                                                                         \
  }                                                                                       \
  Tensor& Tensor::name##_(const Scalar& other) {                                          \
    run_binary(BinaryOp::E, *this, wrap(other), *this, true);                             \
    return *this;                                                                         \
  }
EMBER_DEFINE_BINARY(Mul, mul)
EMBER_DEFINE_BINARY(Div, div)
EMBER_DEFINE_BINARY(Fmod, fmod)
EMBER_DEFINE_BINARY(Remainder, remainder)
EMBER_DEFINE_BINARY(Pow, pow)
EMBER_DEFINE_BINARY(Atan2, atan2)
EMBER_DEFINE_BINARY(Maximum, maximum)
EMBER_DEFINE_BINARY(Minimum, minimum)
EMBER_DEFINE_BINARY(Fmax, fmax)
EMBER_DEFINE_BINARY(Fmin, fmin)
EMBER_DEFINE_BINARY(Hypot, hypot)
EMBER_DEFINE_BINARY(Copysign, copysign)
EMBER_DEFINE_BINARY(Xlogy, xlogy)
EMBER_DEFINE_BINARY(Eq, eq)
EMBER_DEFINE_BINARY(Ne, ne)
EMBER_DEFINE_BINARY(Lt, lt)
EMBER_DEFINE_BINARY(Le, le)
EMBER_DEFINE_BINARY(Gt, gt)
EMBER_DEFINE_BINARY(Ge, ge)
EMBER_DEFINE_BINARY(LogicalAnd, logical_and)
EMBER_DEFINE_BINARY(LogicalOr, logical_or)
EMBER_DEFINE_BINARY(LogicalXor, logical_xor)
EMBER_DEFINE_BINARY(BitwiseAnd, bitwise_and)
EMBER_DEFINE_BINARY(BitwiseOr, bitwise_or)
EMBER_DEFINE_BINARY(BitwiseXor, bitwise_xor)
EMBER_DEFINE_BINARY(LeftShift, bitwise_left_shift)
EMBER_DEFINE_BINARY(RightShift, bitwise_right_shift)
#undef EMBER_DEFINE_BINARY

// floor_divide: integer-valued, not differentiable (its output does not require grad).
Tensor floor_divide(const Tensor& self, const Tensor& other) {
  return run_binary(BinaryOp::DivFloor, self, other, Tensor(), false, 1, false);
}
Tensor floor_divide(const Tensor& self, const Scalar& other) { return floor_divide(self, wrap(other)); }
Tensor& floor_divide_out(Tensor& out, const Tensor& self, const Tensor& other) {
  run_binary(BinaryOp::DivFloor, self, other, out, false, 1, false);
  return out;
}
Tensor Tensor::floor_divide(const Tensor& other) const { return ember::floor_divide(*this, other); }
Tensor Tensor::floor_divide(const Scalar& other) const { return ember::floor_divide(*this, other); }
Tensor& Tensor::floor_divide_(const Tensor& other) {
  run_binary(BinaryOp::DivFloor, *this, other, *this, true, 1, false);
  return *this;
}
Tensor& Tensor::floor_divide_(const Scalar& other) { return floor_divide_(wrap(other)); }

Tensor pow(const Scalar& self, const Tensor& exponent) {
  Tensor r = run_binary(BinaryOp::Pow, wrap(self), exponent, Tensor(), false);
  // PyTorch allocates this overload's result contiguous whatever the
  // exponent's layout (a channels-last exponent gives a contiguous result).
  return r.is_contiguous() ? r : r.contiguous();
}

// ---- add / sub (with alpha) ----
namespace {
void check_sub(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() != kBool && b.dtype() != kBool,
              "sub: subtraction, the `-` operator, with a bool tensor is not supported. "
              "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}
}  // namespace

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return run_binary(BinaryOp::Add, self, other, Tensor(), false, alpha);
}
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return run_binary(BinaryOp::Add, self, wrap(other), Tensor(), false, alpha);
}
Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  run_binary(BinaryOp::Add, self, other, out, false, alpha);
  return out;
}
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other);
  return run_binary(BinaryOp::Add, self, other, Tensor(), false, -alpha);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub(self, wrap(other), alpha);
}
Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other);
  run_binary(BinaryOp::Add, self, other, out, false, -alpha);
  return out;
}
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return sub(other, self, alpha);
}
Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const { return ember::add(*this, other, alpha); }
Tensor Tensor::add(const Scalar& other, const Scalar& alpha) const { return ember::add(*this, other, alpha); }
Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) {
  run_binary(BinaryOp::Add, *this, other, *this, true, alpha);
  return *this;
}
Tensor& Tensor::add_(const Scalar& other, const Scalar& alpha) { return add_(wrap(other), alpha); }
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const { return ember::sub(*this, other, alpha); }
Tensor Tensor::sub(const Scalar& other, const Scalar& alpha) const { return ember::sub(*this, other, alpha); }
Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) {
  check_sub(*this, other);
  run_binary(BinaryOp::Add, *this, other, *this, true, -alpha);
  return *this;
}
Tensor& Tensor::sub_(const Scalar& other, const Scalar& alpha) { return sub_(wrap(other), alpha); }

// ---- div with rounding mode ----
namespace {
BinaryOp div_op(const std::string& mode) {
  if (mode.empty() || mode == "true") return BinaryOp::Div;
  if (mode == "trunc") return BinaryOp::DivTrunc;
  if (mode == "floor") return BinaryOp::DivFloor;
  EMBER_FAIL("div: expected rounding_mode to be one of '', 'trunc', or 'floor' but found '", mode, "'");
}
}  // namespace
Tensor div(const Tensor& self, const Tensor& other, const std::string& rounding_mode) {
  return run_binary(div_op(rounding_mode), self, other, Tensor(), false);
}
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other, const std::string& rounding_mode) {
  run_binary(div_op(rounding_mode), self, other, out, false);
  return out;
}
Tensor Tensor::div(const Tensor& other, const std::string& rounding_mode) const {
  return ember::div(*this, other, rounding_mode);
}

// ---- operators ----
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Scalar& a, const Tensor& b) { return sub(wrap(a), b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(wrap(a), b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }
Tensor operator!(const Tensor& a) { return logical_not(a); }
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace ember
