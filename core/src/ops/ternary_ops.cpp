// Ternary elementwise ops (lerp, addcmul, addcdiv, where) and the composites
// built from elementwise primitives (masked_fill, isclose, allclose, equal).
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ops/elementwise_kernels.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_STUB(ternary_stub, TernaryFn, "ternary");

namespace {
Tensor run_ternary(TernaryOp op, const char* name, const Tensor& a, const Tensor& b, const Tensor& c,
                   const Scalar& value, Tensor out, bool inplace) {
  EMBER_CHECK(a.defined() && b.defined() && c.defined(), name, ": got an undefined tensor");
  TensorIterator iter(name);
  iter.add_output(out).add_input(a).add_input(b).add_input(c).is_inplace(inplace);
  iter.build();
  ternary_stub(iter.device())(iter, op, value);
  iter.finish();
  if (out.defined()) out.bump_version();
  return iter.output();
}

void check_lerp(const Tensor& self, const Tensor& end) {
  EMBER_CHECK(self.dtype() == end.dtype(), "lerp: expected dtype ", self.dtype(),
              " for `end` but got dtype ", end.dtype());
  EMBER_CHECK(self.is_floating_point() || self.is_complex(),
              "lerp: expects floating or complex inputs, got ", self.dtype());
}
}  // namespace

Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_lerp(self, end);
  EMBER_CHECK(weight.dtype() == self.dtype() || weight.dim() == 0, "lerp: expected dtype ",
              self.dtype(), " for `weight` but got dtype ", weight.dtype());
  return run_ternary(TernaryOp::Lerp, "lerp", self, end, weight.to(self.dtype()), 1, Tensor(), false);
}
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  check_lerp(self, end);
  return lerp(self, end, full({}, weight, self.options()));
}
Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const { return ember::lerp(*this, end, weight); }
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const { return ember::lerp(*this, end, weight); }

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return run_ternary(TernaryOp::Addcmul, "addcmul", self, t1, t2, value, Tensor(), false);
}
Tensor& addcmul_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  run_ternary(TernaryOp::Addcmul, "addcmul", self, t1, t2, value, out, false);
  return out;
}
namespace {
void check_addcdiv(const Tensor& t1, const Tensor& t2) {
  EMBER_CHECK(!(is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)),
              "addcdiv: integer division with addcdiv is not supported (tensor1 ", t1.dtype(),
              ", tensor2 ", t2.dtype(), "); use addcmul(input, tensor1, 1 / tensor2)");
}
}  // namespace
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  check_addcdiv(t1, t2);
  return run_ternary(TernaryOp::Addcdiv, "addcdiv", self, t1, t2, value, Tensor(), false);
}
Tensor& addcdiv_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  check_addcdiv(t1, t2);
  run_ternary(TernaryOp::Addcdiv, "addcdiv", self, t1, t2, value, out, false);
  return out;
}
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcmul(*this, t1, t2, value);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcdiv(*this, t1, t2, value);
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  run_ternary(TernaryOp::Addcmul, "addcmul_", *this, t1, t2, value, *this, true);
  return *this;
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  check_addcdiv(t1, t2);
  run_ternary(TernaryOp::Addcdiv, "addcdiv_", *this, t1, t2, value, *this, true);
  return *this;
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  EMBER_CHECK(condition.defined() && self.defined() && other.defined(), "where: got an undefined tensor");
  EMBER_CHECK(condition.dtype() == kBool, "where: expected condition to be a bool tensor, got ",
              condition.dtype());
  const DType dtype = result_type({self, other});
  TensorIterator iter("where");
  iter.add_output(Tensor()).add_input(condition).add_input(self.to(dtype)).add_input(other.to(dtype));
  iter.promote_inputs_to_common_dtype(false).output_dtype(dtype);
  iter.build();
  ternary_stub(iter.device())(iter, TernaryOp::Where, 0);
  return iter.output();
}
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return where(condition, scalar_to_tensor(self), other);
}
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return where(condition, self, scalar_to_tensor(other));
}
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return where(condition, scalar_to_tensor(self), scalar_to_tensor(other));
}
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}

// masked_fill keeps self's dtype: the value is cast, never promoted.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(mask.dtype() == kBool, "masked_fill: expected a bool mask, got ", mask.dtype());
  EMBER_CHECK(value.dim() == 0, "masked_fill: only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s)");
  Tensor v = value.to(self.dtype());
  Tensor out = where(mask, v, self);
  EMBER_CHECK(out.sizes() == self.sizes(), "masked_fill: mask of shape ", mask.sizes(),
              " is not broadcastable to self of shape ", self.sizes());
  return out;
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill(self, mask, full({}, value, self.options()));
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const { return ember::masked_fill(*this, mask, value); }
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const { return ember::masked_fill(*this, mask, value); }
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  copy_(ember::masked_fill(*this, mask, value));
  return *this;
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) {
  return masked_fill_(mask, full({}, value, options()));
}

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(self.dtype() == other.dtype(), "isclose: expected both inputs to have the same dtype, got ",
              self.dtype(), " and ", other.dtype());
  EMBER_CHECK(rtol >= 0 && atol >= 0, "isclose: rtol and atol must be non-negative, got rtol=", rtol,
              " atol=", atol);
  Tensor close = eq(self, other);
  if (equal_nan && (self.is_floating_point() || self.is_complex()))
    close = logical_or(close, logical_and(isnan(self), isnan(other)));
  if (self.dtype() == kBool || (rtol == 0 && atol == 0)) return close;
  // |a - b| <= atol + rtol * |b|, computed in a floating type; infinities only
  // match themselves (handled by `close` above).
  DType ft = self.is_floating_point() || self.is_complex() ? self.dtype() : default_dtype();
  Tensor a = self.to(ft), b = other.to(ft);
  Tensor diff = abs(sub(a, b));
  Tensor tol = add(mul(abs(b), rtol), atol);
  Tensor within = logical_and(le(diff, tol), isfinite(diff));
  return logical_or(close, within);
}
bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return isclose(self, other, rtol, atol, equal_nan).all().item<bool>();
}
bool equal(const Tensor& self, const Tensor& other) {
  if (self.sizes() != other.sizes()) return false;
  if (self.dtype() != other.dtype()) return false;
  return eq(self, other).all().item<bool>();
}
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, other, rtol, atol, equal_nan);
}
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, other, rtol, atol, equal_nan);
}
bool Tensor::equal(const Tensor& other) const { return ember::equal(*this, other); }

}  // namespace ember
