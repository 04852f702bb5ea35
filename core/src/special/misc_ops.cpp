// ember::special logistic / log / sinc / entropy / rounding / softmax family.
// The functions a core op already computes delegate to it (their kernels and
// backward are the core's); sinc, entr, logit, xlog1py and round(decimals)
// have kernels of their own (special_misc_kernels.cpp) and the backward
// formulas of PyTorch's derivatives.yaml, written with these same ops so
// double backward works.
#include "ember/special/misc.h"

#include <cmath>
#include <limits>

#include "autograd/record.h"
#include "ember/nn/functional/activation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ops/op_utils.h"
#include "kernels/slots/special_misc_kernels.h"
#include "special/special_common.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(special_misc_unary_slot, SpecialMiscUnaryFn, "special_misc_unary",
                         kSpecialMiscUnaryOpNames, static_cast<int>(std::size(kSpecialMiscUnaryOpNames)));
EMBER_DEFINE_SLOT(logit_slot, LogitFn, "logit");
EMBER_DEFINE_SLOT(xlog1py_slot, Xlog1pyFn, "xlog1py");
EMBER_DEFINE_SLOT(round_decimals_slot, RoundDecimalsFn, "round_decimals");

namespace special {
namespace {

using autograd::BackwardContext;
using autograd::variable_list;

constexpr double kPi = 3.14159265358979323846;

Tensor run_misc_unary(SpecialMiscUnaryOp op, const Tensor& self, const Tensor& out) {
  const char* name = op == SpecialMiscUnaryOp::Sinc ? "special.sinc" : "special.entr";
  EMBER_CHECK(self.defined(), name, ": got an undefined tensor");
  if (out.defined()) autograd::check_out_arguments(name, out, {self});
  autograd::OpRecorder rec(op == SpecialMiscUnaryOp::Sinc ? "sinc" : "special_entr", {self});
  rec.allow_batched_grads();  // elementwise formula
  Tensor result = detail::compute_unary(
      self, out, name, [op](TensorIterator& iter) { special_misc_unary_slot(iter.device())(iter, op); });
  if (!rec) return result;
  if (op == SpecialMiscUnaryOp::Sinc) {
    // (cos(pi x) - sinc(x)) / x, 0 at x = 0.
    rec.record(result, [sx = rec.save(self), sr = rec.save_output(result)](BackwardContext& c) {
      const Tensor x = c.unpack(sx);
      const Tensor d = ((x * kPi).cos() - c.unpack(sr)) / x;
      return variable_list{c.grads[0] * where(x == 0, Scalar(0.0), d)};
    });
  } else {
    // -(1 + ln x): +inf at 0, nan for x < 0 (as torch).
    rec.record(result, [sx = rec.save(self)](BackwardContext& c) {
      return variable_list{c.grads[0] * (c.unpack(sx).log() + 1).neg()};
    });
  }
  return result;
}

Tensor run_logit(const Tensor& self, std::optional<double> eps, const Tensor& out) {
  const char* name = "special.logit";
  EMBER_CHECK(self.defined(), name, ": got an undefined tensor");
  if (eps) EMBER_CHECK(!std::isnan(*eps), name, ": eps must not be nan");
  if (out.defined()) autograd::check_out_arguments(name, out, {self});
  autograd::OpRecorder rec("logit", {self});
  rec.allow_batched_grads();  // elementwise formula
  // A negative eps means no clamping in torch too (logit_backward's eps < 0 branch).
  const double e = eps ? *eps : -1.0;
  Tensor result = detail::compute_unary(self, out, name, [e](TensorIterator& iter) { logit_slot(iter.device())(iter, e); });
  if (rec)
    // torch's logit_backward: 1 / (x (1 - x)); with eps >= 0, 0 outside
    // [eps, 1 - eps], else nan outside [0, 1].
    rec.record(result, [e, sx = rec.save(self)](BackwardContext& c) {
      const Tensor x = c.unpack(sx);
      const Tensor d = (x * (1 - x)).reciprocal();
      const Tensor g = e < 0 ? where(logical_or(x < 0, x > 1), Scalar(std::numeric_limits<double>::quiet_NaN()), d)
                             : where(logical_or(x < e, x > 1 - e), Scalar(0.0), d);
      return variable_list{c.grads[0] * g};
    });
  return result;
}

Tensor run_xlog1py(const Tensor& a, const Tensor& b, const Tensor& out) {
  const char* name = "special.xlog1py";
  detail::check_real(a, name);
  detail::check_real(b, name);
  if (out.defined()) autograd::check_out_arguments(name, out, {a, b});
  autograd::OpRecorder rec("special_xlog1py", {a, b});
  rec.allow_batched_grads();  // elementwise formula
  TensorIterator iter(name);
  iter.add_output(out).add_input(a).add_input(b).promote_integer_inputs_to_float();
  iter.build();
  xlog1py_slot(iter.device())(iter);
  iter.finish();
  if (out.defined()) out.bump_version();
  Tensor result = iter.output();
  if (rec)
    // self: xlog1py(x != 0, y); other: x / (1 + y).
    rec.record(result, [sa = rec.save(a), sb = rec.save(b)](BackwardContext& c) {
      const Tensor x = c.unpack(sa), y = c.unpack(sb);
      const Tensor& g = c.grads[0];
      return variable_list{c.needs(0) ? g * xlog1py((x != 0).to(g.dtype()), y) : Tensor(),
                           c.needs(1) ? g * x / (y + 1) : Tensor()};
    });
  return result;
}

Tensor run_round(const Tensor& self, int64_t decimals, const Tensor& out) {
  const char* name = "special.round";
  detail::check_real(self, name);
  EMBER_CHECK(self.is_floating_point(), name, ": decimals = ", decimals, " needs a floating point input (got ",
              self.dtype(), "; torch rejects integral inputs too)");
  if (out.defined()) autograd::check_out_arguments(name, out, {self});
  autograd::OpRecorder rec("round", {self});
  rec.allow_batched_grads();
  Tensor result = detail::compute_unary(
      self, out, name, [decimals](TensorIterator& iter) { round_decimals_slot(iter.device())(iter, decimals); });
  if (rec)  // piecewise constant: zero gradient
    rec.record(result, [](BackwardContext& c) { return variable_list{zeros_like(c.grads[0])}; });
  return result;
}

Tensor wrap(const Scalar& s) { return scalar_to_tensor(s); }

}  // namespace

Tensor expit(const Tensor& self) { return ember::sigmoid(self); }
Tensor exp2(const Tensor& self) { return ember::exp2(self); }
Tensor expm1(const Tensor& self) { return ember::expm1(self); }
Tensor log1p(const Tensor& self) { return ember::log1p(self); }
Tensor xlogy(const Tensor& self, const Tensor& other) { return ember::xlogy(self, other); }
Tensor xlogy(const Scalar& self, const Tensor& other) { return ember::xlogy(wrap(self), other); }
Tensor xlogy(const Tensor& self, const Scalar& other) { return ember::xlogy(self, other); }
Tensor xlog1py(const Tensor& self, const Tensor& other) { return run_xlog1py(self, other, Tensor()); }
Tensor xlog1py(const Scalar& self, const Tensor& other) { return run_xlog1py(wrap(self), other, Tensor()); }
Tensor xlog1py(const Tensor& self, const Scalar& other) { return run_xlog1py(self, wrap(other), Tensor()); }
Tensor logit(const Tensor& self, std::optional<double> eps) { return run_logit(self, eps, Tensor()); }
Tensor sinc(const Tensor& self) { return run_misc_unary(SpecialMiscUnaryOp::Sinc, self, Tensor()); }
Tensor entr(const Tensor& self) { return run_misc_unary(SpecialMiscUnaryOp::Entr, self, Tensor()); }
Tensor round(const Tensor& self, int64_t decimals) {
  return decimals == 0 ? ember::round(self) : run_round(self, decimals, Tensor());
}
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return nn::functional::softmax(self, dim, dtype);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return nn::functional::log_softmax(self, dim, dtype);
}
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim) { return ember::logsumexp(self, dims, keepdim); }

Tensor& expit_out(Tensor& out, const Tensor& self) { return ember::sigmoid_out(out, self); }
Tensor& exp2_out(Tensor& out, const Tensor& self) { return ember::exp2_out(out, self); }
Tensor& expm1_out(Tensor& out, const Tensor& self) { return ember::expm1_out(out, self); }
Tensor& log1p_out(Tensor& out, const Tensor& self) { return ember::log1p_out(out, self); }
Tensor& xlogy_out(Tensor& out, const Tensor& self, const Tensor& other) {
  return ember::xlogy_out(out, self, other);
}
Tensor& xlog1py_out(Tensor& out, const Tensor& self, const Tensor& other) {
  run_xlog1py(self, other, out);
  return out;
}
Tensor& logit_out(Tensor& out, const Tensor& self, std::optional<double> eps) {
  run_logit(self, eps, out);
  return out;
}
Tensor& sinc_out(Tensor& out, const Tensor& self) {
  run_misc_unary(SpecialMiscUnaryOp::Sinc, self, out);
  return out;
}
Tensor& entr_out(Tensor& out, const Tensor& self) {
  run_misc_unary(SpecialMiscUnaryOp::Entr, self, out);
  return out;
}
Tensor& round_out(Tensor& out, const Tensor& self, int64_t decimals) {
  if (decimals == 0) return ember::round_out(out, self);
  run_round(self, decimals, out);
  return out;
}

}  // namespace special
}  // namespace ember
