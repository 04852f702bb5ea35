// Ternary elementwise ops (lerp, addcmul, addcdiv, where) and the composites
// built from elementwise primitives (masked_fill, isclose, allclose, equal).
#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "kernels/slots/elementwise_info.h"
#include "kernels/slots/elementwise_kernels.h"
#include "ops/op_utils.h"
#include "ops/scalar_overflow.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(ternary_slot, TernaryFn, "ternary", kTernaryOpNames.data(), kNumTernaryOps);

namespace {
// The op's row in kTernaryInfo (kernels/slots/elementwise_info.h).
const char* base_name(TernaryOp op) { return op_info(op).name; }

// d(op(a, b, c)) for lerp(self, end, weight), addcmul/addcdiv(self, t1, t2, value)
// (Note [Recording an op]); gradients at broadcast shape, complex: conjugate Wirtinger.
autograd::BackwardFn ternary_backward(TernaryOp op, autograd::OpRecorder& rec, const Tensor& a, const Tensor& b,
                                      const Tensor& c, const Scalar& value) {
  using autograd::BackwardContext;
  using autograd::variable_list;
  switch (op) {
    case TernaryOp::Lerp: {
      // self + w * (end - self)
      auto sw = rec.save_if(rec.needs(0) || rec.needs(1), c);
      auto sa = rec.save_if(rec.needs(2), a), sb = rec.save_if(rec.needs(2), b);
      return [sa, sb, sw](BackwardContext& ctx) -> variable_list {
        const Tensor& g = ctx.grads[0];
        variable_list grads(3);
        if (ctx.needs(0) || ctx.needs(1)) {
          const Tensor w = ctx.unpack(sw).conj();
          if (ctx.needs(0)) grads[0] = g * (1 - w);
          if (ctx.needs(1)) grads[1] = g * w;
        }
        if (ctx.needs(2)) grads[2] = g * (ctx.unpack(sb) - ctx.unpack(sa)).conj();
        return grads;
      };
    }
    case TernaryOp::Addcmul: {
      // self + value * t1 * t2
      auto s1 = rec.save_if(rec.needs(2), b), s2 = rec.save_if(rec.needs(1), c);
      return [s1, s2, value](BackwardContext& ctx) -> variable_list {
        const Tensor& g = ctx.grads[0];
        return {ctx.needs(0) ? g : Tensor(), ctx.needs(1) ? g * (ctx.unpack(s2) * value).conj() : Tensor(),
                ctx.needs(2) ? g * (ctx.unpack(s1) * value).conj() : Tensor()};
      };
    }
    case TernaryOp::Addcdiv: {
      // self + value * t1 / t2
      auto s1 = rec.save_if(rec.needs(2), b), s2 = rec.save_if(rec.needs(1) || rec.needs(2), c);
      return [s1, s2, value](BackwardContext& ctx) -> variable_list {
        const Tensor& g = ctx.grads[0];
        variable_list grads(3);
        if (ctx.needs(0)) grads[0] = g;
        if (ctx.needs(1) || ctx.needs(2)) {
          const Tensor t2 = ctx.unpack(s2);
          if (ctx.needs(1)) grads[1] = g * (value / t2).conj();
          if (ctx.needs(2)) grads[2] = g * (ctx.unpack(s1) * value / (t2 * t2)).conj().neg();
        }
        return grads;
      };
    }
    case TernaryOp::Where:
    case TernaryOp::Clamp:
      break;  // recorded by where() and clamp() themselves (op_info(op).recorded_by_caller)
  }
  return nullptr;
}

Tensor run_ternary(TernaryOp op, const char* name, const Tensor& a, const Tensor& b, const Tensor& c,
                   const Scalar& value, Tensor out, bool inplace) {
  EMBER_CHECK(a.defined() && b.defined() && c.defined(), name, ": got an undefined tensor");
  // In-place under autograd: out of place with its node, then copied back.
  if (inplace && autograd::inplace_records(a, {b, c}))
    return autograd::assign_inplace(const_cast<Tensor&>(a),
                                    run_ternary(op, base_name(op), a, b, c, value, Tensor(), false), name);
  if (out.defined() && !inplace) autograd::check_out_arguments(name, out, {a, b, c});
  autograd::OpRecorder rec(base_name(op), {a, b, c});
  rec.allow_batched_grads();  // elementwise formula
  TensorIterator iter(name);
  iter.add_output(out).add_input(a).add_input(b).add_input(c).is_inplace(inplace);
  iter.build();
  ternary_slot(iter.device())(iter, op, value);
  iter.finish();
  if (out.defined()) out.bump_version();
  Tensor result = iter.output();
  if (rec)
    if (auto fn = ternary_backward(op, rec, a, b, c, value)) rec.record(result, std::move(fn));
  return result;
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
  autograd::OpRecorder rec("where", {self, other});
  rec.allow_batched_grads();  // elementwise formula
  TensorIterator iter("where");
  iter.add_output(Tensor()).add_input(condition).add_input(self.to(dtype)).add_input(other.to(dtype));
  iter.promote_inputs_to_common_dtype(false).output_dtype(dtype);
  iter.build();
  ternary_slot(iter.device())(iter, TernaryOp::Where, 0);
  Tensor result = iter.output();
  if (rec)  // the gradient goes to the side each element was taken from
    rec.record(result, [sc = rec.save(condition)](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      const Tensor cond = c.unpack(sc);
      return autograd::variable_list{c.needs(0) ? where(cond, g, Scalar(0)) : Tensor(),
                                     c.needs(1) ? where(cond, Scalar(0), g) : Tensor()};
    });
  return result;
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
  // uint8 masks are accepted as PyTorch 1.x does (non-zero = true; it also warns).
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, "masked_fill: expected a bool mask, got ",
              mask.dtype());
  EMBER_CHECK(value.dim() == 0, "masked_fill: only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s)");
  const Tensor m = mask.dtype() == kBool ? mask : ne(mask, 0);
  check_scalar_fits(value.item(), self.dtype(), "masked_fill");  // Note [Scalar overflow]
  EMBER_CHECK(infer_broadcast_size(self.sizes(), mask.sizes(), "masked_fill").ref() == self.sizes(),
              "masked_fill: mask of shape ", mask.sizes(), " is not broadcastable to self of shape ", self.sizes());
  autograd::OpRecorder rec("masked_fill", {self, value});
  rec.allow_batched_grads();  // elementwise formula
  // As PyTorch (self.clone(Contiguous).masked_fill_()), the result is
  // contiguous whatever self's layout.
  Tensor out = empty(self.sizes(), self.options().memory_format(MemoryFormat::Contiguous));
  TensorIterator iter("masked_fill");
  iter.add_output(out).add_input(m).add_input(value.to(self.dtype())).add_input(self);
  iter.promote_inputs_to_common_dtype(false).output_dtype(self.dtype());
  iter.build();
  ternary_slot(iter.device())(iter, TernaryOp::Where, 0);
  if (rec)  // self: the unmasked elements; value: the sum over the masked ones (the engine sums)
    rec.record(out, [sm = rec.save(m)](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      const Tensor bm = c.unpack(sm);
      return autograd::variable_list{c.needs(0) ? g.masked_fill(bm, 0) : Tensor(),
                                     c.needs(1) ? where(bm, g, Scalar(0)) : Tensor()};
    });
  return out;
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_scalar_fits(value, self.dtype(), "masked_fill");  // before full() names itself
  return masked_fill(self, mask, full({}, value, self.options()));
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const { return ember::masked_fill(*this, mask, value); }
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const { return ember::masked_fill(*this, mask, value); }
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  if (autograd::inplace_records(*this, {value}))
    return autograd::assign_inplace(*this, ember::masked_fill(*this, mask, value), "masked_fill_");
  copy_(ember::masked_fill(*this, mask, value));
  return *this;
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) {
  check_scalar_fits(value, dtype(), "masked_fill_");
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
