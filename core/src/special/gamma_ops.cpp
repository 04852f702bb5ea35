// ember::special gamma / erf family: argument checks, dtype promotion, the
// iterator, and the backward formulas of PyTorch's derivatives.yaml (written
// with these same ops, so double backward works).
#include "ember/special/gamma.h"

#include <cmath>

#include "autograd/formulas.h"
#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ops/op_utils.h"
#include "kernels/slots/special_gamma_kernels.h"
#include "special/special_common.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(special_gamma_unary_slot, SpecialGammaUnaryFn, "special_gamma_unary",
                         kSpecialGammaUnaryOpNames, static_cast<int>(std::size(kSpecialGammaUnaryOpNames)));
EMBER_DEFINE_SLOT(polygamma_slot, PolygammaFn, "polygamma");
EMBER_DEFINE_FAMILY_SLOT(special_gamma_binary_slot, SpecialGammaBinaryFn, "special_gamma_binary",
                         kSpecialGammaBinaryOpNames, static_cast<int>(std::size(kSpecialGammaBinaryOpNames)));

namespace special {
namespace {

using autograd::BackwardContext;
using autograd::variable_list;

constexpr double kTwoOverSqrtPi = 1.128379167095512573896158903121545172;
constexpr double kHalfSqrtPi = 0.886226925452758013649083741671;
constexpr double kSqrt2Pi = 2.506628274631000502415765284811045253;
constexpr double kInvSqrt2Pi = 0.398942280401432677939946059934381868;

const char* op_name(SpecialGammaUnaryOp op) {
  switch (op) {
    case SpecialGammaUnaryOp::Gammaln: return "special.gammaln";
    case SpecialGammaUnaryOp::Digamma: return "special.digamma";
    case SpecialGammaUnaryOp::Erfcx: return "special.erfcx";
    case SpecialGammaUnaryOp::Erfinv: return "special.erfinv";
    case SpecialGammaUnaryOp::Ndtr: return "special.ndtr";
    case SpecialGammaUnaryOp::LogNdtr: return "special.log_ndtr";
    case SpecialGammaUnaryOp::Ndtri: return "special.ndtri";
  }
  return "special";
}

// The ATen op each function is in PyTorch: it names the backward node as
// torch does (LgammaBackward0, SpecialErfcxBackward0, IgammaBackward0, ...).
const char* aten_name(SpecialGammaUnaryOp op) {
  switch (op) {
    case SpecialGammaUnaryOp::Gammaln: return "lgamma";
    case SpecialGammaUnaryOp::Digamma: return "digamma";
    case SpecialGammaUnaryOp::Erfcx: return "special_erfcx";
    case SpecialGammaUnaryOp::Erfinv: return "erfinv";
    case SpecialGammaUnaryOp::Ndtr: return "special_ndtr";
    case SpecialGammaUnaryOp::LogNdtr: return "special_log_ndtr";
    case SpecialGammaUnaryOp::Ndtri: return "special_ndtri";
  }
  return "special";
}

using detail::check_real;
using detail::compute_unary;

// d op / dx (times the incoming gradient), as derivatives.yaml.
autograd::BackwardFn unary_backward(SpecialGammaUnaryOp op, autograd::OpRecorder& rec, const Tensor& self,
                                    const Tensor& result) {
  switch (op) {
    case SpecialGammaUnaryOp::Gammaln:
      return [sx = rec.save(self)](BackwardContext& c) {
        return variable_list{c.grads[0] * digamma(c.unpack(sx))};
      };
    case SpecialGammaUnaryOp::Digamma:
      return [sx = rec.save(self)](BackwardContext& c) {
        return variable_list{c.grads[0] * polygamma(1, c.unpack(sx))};
      };
    case SpecialGammaUnaryOp::Erfcx:  // 2 x erfcx(x) - 2/sqrt(pi)
      return [sx = rec.save(self), sr = rec.save_output(result)](BackwardContext& c) {
        return variable_list{c.grads[0] * (c.unpack(sx) * c.unpack(sr) * 2 - kTwoOverSqrtPi)};
      };
    case SpecialGammaUnaryOp::Erfinv:  // sqrt(pi)/2 exp(erfinv(y)^2)
      return [sr = rec.save_output(result)](BackwardContext& c) {
        return variable_list{c.grads[0] * c.unpack(sr).square().exp() * kHalfSqrtPi};
      };
    case SpecialGammaUnaryOp::Ndtr:  // the normal density
      return [sx = rec.save(self)](BackwardContext& c) {
        return variable_list{c.grads[0] * (c.unpack(sx).square() * -0.5).exp() * kInvSqrt2Pi};
      };
    case SpecialGammaUnaryOp::LogNdtr:  // density / cdf = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)
      return [sx = rec.save(self), sr = rec.save_output(result)](BackwardContext& c) {
        const Tensor x = c.unpack(sx);
        return variable_list{c.grads[0] * (c.unpack(sr) + x.square() * 0.5).neg().exp() * kInvSqrt2Pi};
      };
    case SpecialGammaUnaryOp::Ndtri:  // 1 / density(ndtri(p))
      return [sr = rec.save_output(result)](BackwardContext& c) {
        return variable_list{c.grads[0] * (c.unpack(sr).square() * 0.5).exp() * kSqrt2Pi};
      };
  }
  return nullptr;
}

Tensor run_unary(SpecialGammaUnaryOp op, const Tensor& self, const Tensor& out = Tensor()) {
  const char* name = op_name(op);
  EMBER_CHECK(self.defined(), name, ": got an undefined tensor");
  if (out.defined()) autograd::check_out_arguments(name, out, {self});
  autograd::OpRecorder rec(aten_name(op), {self});
  rec.allow_batched_grads();  // elementwise formula
  Tensor result = compute_unary(self, out, name,
                                [op](TensorIterator& iter) { special_gamma_unary_slot(iter.device())(iter, op); });
  if (rec) rec.record(result, unary_backward(op, rec, self, result));
  return result;
}

const char* op_name(SpecialGammaBinaryOp op) {
  switch (op) {
    case SpecialGammaBinaryOp::Zeta: return "special.zeta";
    case SpecialGammaBinaryOp::Gammainc: return "special.gammainc";
    case SpecialGammaBinaryOp::Gammaincc: return "special.gammaincc";
  }
  return "special";
}

// As PyTorch: these have no derivative in their first argument (derivatives.yaml
// `not_implemented`), which is an error when backward needs it.
[[noreturn]] void no_first_argument_derivative(SpecialGammaBinaryOp op) {
  switch (op) {
    case SpecialGammaBinaryOp::Zeta:
      EMBER_FAIL("special.zeta: the derivative with respect to x (self) is not implemented, as in PyTorch; "
                 "only q (other) is differentiable");
    case SpecialGammaBinaryOp::Gammainc:
    case SpecialGammaBinaryOp::Gammaincc:
      EMBER_FAIL(op_name(op), ": the derivative with respect to a (self, 'igamma: input') is not implemented, "
                 "as in PyTorch; only x (other) is differentiable");
  }
  EMBER_FAIL("special: unknown op");
}

Tensor run_binary(SpecialGammaBinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out = Tensor()) {
  const char* name = op_name(op);
  check_real(a, name);
  check_real(b, name);
  if (out.defined()) autograd::check_out_arguments(name, out, {a, b});
  autograd::OpRecorder rec(op == SpecialGammaBinaryOp::Zeta       ? "special_zeta"
                           : op == SpecialGammaBinaryOp::Gammainc ? "igamma"
                                                                  : "igammac",
                           {a, b});
  rec.allow_batched_grads();  // elementwise formula
  TensorIterator iter(name);
  iter.add_output(out).add_input(a).add_input(b).promote_integer_inputs_to_float();
  iter.build();
  special_gamma_binary_slot(iter.device())(iter, op);
  iter.finish();
  if (out.defined()) out.bump_version();
  Tensor result = iter.output();
  if (rec) {
    // Note [Wrapped numbers in formulas]: zeta(2.1, q) needs 2.1 + 1 in double.
    rec.record(result, [op, sa = rec.save(autograd::plain_number(a)), sb = rec.save(autograd::plain_number(b))](
                           BackwardContext& c) {
      if (c.needs(0)) no_first_argument_derivative(op);
      variable_list grads(2);
      if (!c.needs(1)) return grads;
      const Tensor s = c.unpack(sa), o = c.unpack(sb);
      if (op == SpecialGammaBinaryOp::Zeta) {
        grads[1] = c.grads[0] * s.neg() * zeta(s + 1, o);  // d/dq zeta(x, q) = -x zeta(x + 1, q)
      } else {
        // d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = -d/dx Q(a, x).
        const Tensor density = ((s - 1) * o.log() - o - gammaln(s)).exp();
        grads[1] = op == SpecialGammaBinaryOp::Gammainc ? c.grads[0] * density : c.grads[0] * density.neg();
      }
      return grads;
    });
  }
  return result;
}

Tensor wrap(const Scalar& s) { return scalar_to_tensor(s); }

}  // namespace

Tensor gammaln(const Tensor& self) { return run_unary(SpecialGammaUnaryOp::Gammaln, self); }
Tensor digamma(const Tensor& self) { return run_unary(SpecialGammaUnaryOp::Digamma, self); }
Tensor psi(const Tensor& self) { return digamma(self); }
Tensor erfcx(const Tensor& self) { return run_unary(SpecialGammaUnaryOp::Erfcx, self); }
Tensor erfinv(const Tensor& self) { return run_unary(SpecialGammaUnaryOp::Erfinv, self); }
Tensor ndtr(const Tensor& self) { return run_unary(SpecialGammaUnaryOp::Ndtr, self); }
Tensor log_ndtr(const Tensor& self) { return run_unary(SpecialGammaUnaryOp::LogNdtr, self); }
Tensor ndtri(const Tensor& self) { return run_unary(SpecialGammaUnaryOp::Ndtri, self); }
#define EMBER_SPECIAL_UNARY_OUT(E, name)                  \
  Tensor& name##_out(Tensor& out, const Tensor& self) {    \
    run_unary(SpecialGammaUnaryOp::E, self, out);          \
    return out;                                            \
  }
EMBER_SPECIAL_UNARY_OUT(Gammaln, gammaln)
EMBER_SPECIAL_UNARY_OUT(Digamma, digamma)
EMBER_SPECIAL_UNARY_OUT(Digamma, psi)
EMBER_SPECIAL_UNARY_OUT(Erfcx, erfcx)
EMBER_SPECIAL_UNARY_OUT(Erfinv, erfinv)
EMBER_SPECIAL_UNARY_OUT(Ndtr, ndtr)
EMBER_SPECIAL_UNARY_OUT(LogNdtr, log_ndtr)
EMBER_SPECIAL_UNARY_OUT(Ndtri, ndtri)
#undef EMBER_SPECIAL_UNARY_OUT
Tensor& erf_out(Tensor& out, const Tensor& self) { return ember::erf_out(out, self); }
Tensor& erfc_out(Tensor& out, const Tensor& self) { return ember::erfc_out(out, self); }

// The core ops (glibc's erf/erfc, within 1-2 ULP of the true values over the fixture grids).
Tensor erf(const Tensor& self) { return ember::erf(self); }
Tensor erfc(const Tensor& self) { return ember::erfc(self); }

namespace {
Tensor run_polygamma(int64_t n, const Tensor& self, const Tensor& out) {
  EMBER_CHECK(n >= 0, "special.polygamma: polygamma(n, x) does not support negative n (got n = ", n, ")");
  EMBER_CHECK(self.defined(), "special.polygamma: got an undefined tensor");
  if (n == 0) return run_unary(SpecialGammaUnaryOp::Digamma, self, out);
  if (out.defined()) autograd::check_out_arguments("special.polygamma", out, {self});
  autograd::OpRecorder rec("polygamma", {self});
  rec.allow_batched_grads();  // elementwise formula
  Tensor result = compute_unary(self, out, "special.polygamma",
                                [n](TensorIterator& iter) { polygamma_slot(iter.device())(iter, n); });
  if (rec)
    rec.record(result, [n, sx = rec.save(self)](BackwardContext& c) {
      return variable_list{c.grads[0] * polygamma(n + 1, c.unpack(sx))};
    });
  return result;
}
}  // namespace

Tensor polygamma(int64_t n, const Tensor& self) { return run_polygamma(n, self, Tensor()); }
Tensor& polygamma_out(Tensor& out, int64_t n, const Tensor& self) {
  run_polygamma(n, self, out);
  return out;
}

Tensor multigammaln(const Tensor& self, int64_t p) {
  const char* name = "special.multigammaln";
  check_real(self, name);
  EMBER_CHECK(self.dtype() != kBool, name, ": the input tensor may not be a boolean tensor");
  EMBER_CHECK(p >= 1, name, ": p has to be greater than or equal to 1 (got p = ", p, ")");
  const Tensor x = self.is_floating_point() ? self : self.to(default_dtype());
  const double bound = 0.5 * static_cast<double>(p - 1);
  // As torch 1.10: every element must exceed (p-1)/2 (a nan element fails too).
  if (x.numel() > 0)
    EMBER_CHECK((x > bound).all().item<bool>(), name, ": all elements must be greater than (p-1)/2 = ", bound,
                " (p = ", p, "); the smallest element is ", x.min().item<double>());
  // sum_{i<p} gammaln(x - i/2) + log(pi) p(p-1)/4 (the inner ops are not
  // recorded while `rec` is active); backward: PyTorch's mvlgamma_backward,
  // grad * sum_{i<p} digamma(x - i/2).
  autograd::OpRecorder rec("mvlgamma", {x});
  rec.allow_batched_grads();  // elementwise formula
  Tensor sum = gammaln(x);
  for (int64_t i = 1; i < p; ++i) sum = sum + gammaln(x - 0.5 * static_cast<double>(i));
  Tensor result = sum + std::log(M_PI) * 0.25 * static_cast<double>(p * (p - 1));
  if (rec)
    rec.record(result, [p, sx = rec.save(x)](BackwardContext& c) {
      const Tensor v = c.unpack(sx);
      Tensor d = digamma(v);
      for (int64_t i = 1; i < p; ++i) d = d + digamma(v - 0.5 * static_cast<double>(i));
      return variable_list{c.grads[0] * d};
    });
  return result;
}

Tensor zeta(const Tensor& self, const Tensor& other) { return run_binary(SpecialGammaBinaryOp::Zeta, self, other); }
Tensor zeta(const Scalar& self, const Tensor& other) {
  return run_binary(SpecialGammaBinaryOp::Zeta, wrap(self), other);
}
Tensor zeta(const Tensor& self, const Scalar& other) {
  return run_binary(SpecialGammaBinaryOp::Zeta, self, wrap(other));
}
Tensor gammainc(const Tensor& self, const Tensor& other) {
  return run_binary(SpecialGammaBinaryOp::Gammainc, self, other);
}
Tensor gammaincc(const Tensor& self, const Tensor& other) {
  return run_binary(SpecialGammaBinaryOp::Gammaincc, self, other);
}
Tensor& zeta_out(Tensor& out, const Tensor& self, const Tensor& other) {
  run_binary(SpecialGammaBinaryOp::Zeta, self, other, out);
  return out;
}
Tensor& gammainc_out(Tensor& out, const Tensor& self, const Tensor& other) {
  run_binary(SpecialGammaBinaryOp::Gammainc, self, other, out);
  return out;
}
Tensor& gammaincc_out(Tensor& out, const Tensor& self, const Tensor& other) {
  run_binary(SpecialGammaBinaryOp::Gammaincc, self, other, out);
  return out;
}

}  // namespace special
}  // namespace ember
