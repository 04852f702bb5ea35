// ember::special Bessel functions: argument checks, dtype promotion, the
// iterator, and the backward formulas (PyTorch's derivatives.yaml for i0, i0e,
// i1, i1e; J0' = -J1 and J1' = J0 - J1/x for bessel_j0/j1, which torch leaves
// without a gradient), written with these same ops so double backward works.
#include "ember/special/bessel.h"

#include <limits>

#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "kernels/slots/special_bessel_kernels.h"
#include "special/special_common.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(special_bessel_slot, SpecialBesselFn, "special_bessel", kSpecialBesselOpNames,
                         static_cast<int>(std::size(kSpecialBesselOpNames)));

namespace special {
namespace {

using autograd::BackwardContext;
using autograd::variable_list;

const char* op_name(SpecialBesselOp op) {
  switch (op) {
    case SpecialBesselOp::I0: return "special.i0";
    case SpecialBesselOp::I0e: return "special.i0e";
    case SpecialBesselOp::I1: return "special.i1";
    case SpecialBesselOp::I1e: return "special.i1e";
    case SpecialBesselOp::J0: return "special.bessel_j0";
    case SpecialBesselOp::J1: return "special.bessel_j1";
  }
  return "special";
}

// The ATen op of each function: names the backward node as torch does
// (I0Backward0, SpecialI0eBackward0, ...).
const char* aten_name(SpecialBesselOp op) {
  switch (op) {
    case SpecialBesselOp::I0: return "i0";
    case SpecialBesselOp::I0e: return "special_i0e";
    case SpecialBesselOp::I1: return "special_i1";
    case SpecialBesselOp::I1e: return "special_i1e";
    case SpecialBesselOp::J0: return "special_bessel_j0";
    case SpecialBesselOp::J1: return "special_bessel_j1";
  }
  return "special";
}

// x where |x| > eps of its dtype, else eps: the 1/x terms of i1', i1e' and
// j1' stay finite (and their gradients too) where the 1/2 limit is used
// instead (PyTorch's i1_backward; see pytorch#52248 on why `where` alone
// is not enough).
Tensor safe_divisor(const Tensor& x, const Tensor& not_tiny) {
  const double eps = x.dtype() == kFloat32 ? std::numeric_limits<float>::epsilon()
                                           : std::numeric_limits<double>::epsilon();
  return where(not_tiny, x, Scalar(eps));
}

Tensor not_tiny(const Tensor& x) {
  const double eps = x.dtype() == kFloat32 ? std::numeric_limits<float>::epsilon()
                                           : std::numeric_limits<double>::epsilon();
  return x.abs() > eps;
}

autograd::BackwardFn backward(SpecialBesselOp op, autograd::OpRecorder& rec, const Tensor& self,
                              const Tensor& result) {
  switch (op) {
    case SpecialBesselOp::I0:  // I0' = I1
      return [sx = rec.save(self)](BackwardContext& c) { return variable_list{c.grads[0] * i1(c.unpack(sx))}; };
    case SpecialBesselOp::I0e:  // i1e(x) - sgn(x) i0e(x)
      return [sx = rec.save(self), sr = rec.save_output(result)](BackwardContext& c) {
        const Tensor x = c.unpack(sx);
        return variable_list{c.grads[0] * (i1e(x) - x.sgn() * c.unpack(sr))};
      };
    case SpecialBesselOp::I1:  // I0(x) - I1(x)/x, 1/2 at 0
    case SpecialBesselOp::I1e:  // i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0
    case SpecialBesselOp::J1:  // J0(x) - J1(x)/x, 1/2 at 0
      return [op, sx = rec.save(self), sr = rec.save_output(result)](BackwardContext& c) {
        const Tensor x = c.unpack(sx), r = c.unpack(sr);
        const Tensor keep = not_tiny(x);
        const Tensor safe = safe_divisor(x, keep);
        Tensor d;
        if (op == SpecialBesselOp::I1) d = i0(safe) - r / safe;
        else if (op == SpecialBesselOp::I1e) d = i0e(safe) - r * (safe.sgn() + safe.reciprocal());
        else d = bessel_j0(safe) - r / safe;
        return variable_list{c.grads[0] * where(keep, d, Scalar(0.5))};
      };
    case SpecialBesselOp::J0:  // J0' = -J1
      return [sx = rec.save(self)](BackwardContext& c) {
        return variable_list{c.grads[0] * bessel_j1(c.unpack(sx)).neg()};
      };
  }
  return nullptr;
}

Tensor run(SpecialBesselOp op, const Tensor& self, const Tensor& out = Tensor()) {
  const char* name = op_name(op);
  EMBER_CHECK(self.defined(), name, ": got an undefined tensor");
  if (out.defined()) autograd::check_out_arguments(name, out, {self});
  autograd::OpRecorder rec(aten_name(op), {self});
  rec.allow_batched_grads();  // elementwise formula
  Tensor result = detail::compute_unary(self, out, name,
                                        [op](TensorIterator& iter) { special_bessel_slot(iter.device())(iter, op); });
  if (rec) rec.record(result, backward(op, rec, self, result));
  return result;
}

}  // namespace

Tensor i0(const Tensor& self) { return run(SpecialBesselOp::I0, self); }
Tensor i0e(const Tensor& self) { return run(SpecialBesselOp::I0e, self); }
Tensor i1(const Tensor& self) { return run(SpecialBesselOp::I1, self); }
Tensor i1e(const Tensor& self) { return run(SpecialBesselOp::I1e, self); }
Tensor bessel_j0(const Tensor& self) { return run(SpecialBesselOp::J0, self); }
Tensor bessel_j1(const Tensor& self) { return run(SpecialBesselOp::J1, self); }

#define EMBER_SPECIAL_BESSEL_OUT(E, name)               \
  Tensor& name##_out(Tensor& out, const Tensor& self) { \
    run(SpecialBesselOp::E, self, out);                 \
    return out;                                         \
  }
EMBER_SPECIAL_BESSEL_OUT(I0, i0)
EMBER_SPECIAL_BESSEL_OUT(I0e, i0e)
EMBER_SPECIAL_BESSEL_OUT(I1, i1)
EMBER_SPECIAL_BESSEL_OUT(I1e, i1e)
EMBER_SPECIAL_BESSEL_OUT(J0, bessel_j0)
EMBER_SPECIAL_BESSEL_OUT(J1, bessel_j1)
#undef EMBER_SPECIAL_BESSEL_OUT

}  // namespace special
}  // namespace ember
