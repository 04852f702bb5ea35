// CUDA kernels of the unary ops on complex64 and complex128 (unary.cu sends
// complex inputs here): the CPU's formulas (kernels/cpu/unary_kernels_impl.h)
// on complex_math.cuh's functions, one kernel per (dtype, output kind) with
// the op a run-time switch as in unary.cu.
#include "common.cuh"
#include "complex_kernels.h"
#include "complex_math.cuh"
#include "kernels/slots/elementwise_info.h"

namespace ember::cuda::kernels {
namespace {

using namespace cmath;

template <class R>
__device__ __noinline__ C<R> unary_complex_value(UnaryOp op, C<R> x) {
  const C<R> one{R(1), R(0)};
  switch (op) {
    case UnaryOp::Neg: return c_neg(x);
    case UnaryOp::Conj: return c_conj(x);
    case UnaryOp::Sgn: {
      const R r = c_abs(x);
      return r == R(0) ? C<R>{R(0), R(0)} : c_div_real(x, r);
    }
    case UnaryOp::Square: return c_mul(x, x);
    case UnaryOp::Reciprocal: return c_div(one, x);
    case UnaryOp::Exp: return c_exp(x);
    case UnaryOp::Exp2: return c_pow(C<R>{R(2), R(0)}, x);  // std::pow(C(2), x): cpow
    case UnaryOp::Expm1: return c_sub(c_exp(x), one);
    case UnaryOp::Log: return c_log(x);
    // Divided by a real number, as the CPU (a complex divisor would turn
    // log(0) = -inf + 0i into -inf + NaN i).
    case UnaryOp::Log2: return c_div_real(c_log(x), static_cast<R>(0.69314718055994530942));
    case UnaryOp::Log10: return c_div_real(c_log(x), static_cast<R>(log(R(10))));
    case UnaryOp::Log1p: return c_log(c_add(one, x));  // 1 + x: +0 + -0i is +0i, as the CPU
    case UnaryOp::Sqrt: return c_sqrt(x);
    case UnaryOp::Rsqrt: return c_div(one, c_sqrt(x));
    case UnaryOp::Sin: return c_sin(x);
    case UnaryOp::Cos: return c_cos(x);
    case UnaryOp::Tan: return c_tan(x);
    case UnaryOp::Asin: return c_asin(x);
    case UnaryOp::Acos: return c_acos(x);
    case UnaryOp::Atan: return c_atan(x);
    case UnaryOp::Sinh: return c_sinh(x);
    case UnaryOp::Cosh: return c_cosh(x);
    case UnaryOp::Tanh: return c_tanh(x);
    case UnaryOp::Asinh: return c_asinh(x);
    case UnaryOp::Acosh: return c_acosh(x);
    case UnaryOp::Atanh: return c_atanh(x);
    case UnaryOp::Sigmoid: return c_div(one, c_add(one, c_exp(c_neg(x))));
    case UnaryOp::Silu: return c_mul(x, c_div(one, c_add(one, c_exp(c_neg(x)))));
    default: break;
  }
  __trap();  // unreachable: unary_complex_kernel checks the op's dtypes before launching
  return x;
}

template <class R>
__device__ __forceinline__ bool unary_complex_predicate(UnaryOp op, C<R> x) {
  switch (op) {
    case UnaryOp::LogicalNot: return x.re == R(0) && x.im == R(0);
    case UnaryOp::Isnan: return c_isnan(x);
    case UnaryOp::Isinf: return isinf(x.re) || isinf(x.im);
    case UnaryOp::Isfinite: return isfinite(x.re) && isfinite(x.im);
    default: break;
  }
  __trap();
  return false;
}

template <class R>
struct UnaryComplexValueOp {
  UnaryOp op;
  __device__ C<R> operator()(C<R> a) const { return unary_complex_value<R>(op, a); }
};
// abs and angle: real results.
template <class R>
struct UnaryComplexRealOp {
  bool angle;
  __device__ R operator()(C<R> a) const { return angle ? c_arg(a) : c_abs(a); }
};
template <class R>
struct UnaryComplexPredicateOp {
  UnaryOp op;
  __device__ bool operator()(C<R> a) const { return unary_complex_predicate<R>(op, a); }
};

template <class R>
void launch_unary_complex(TensorIterator& iter, UnaryOp op) {
  const UnaryInfo& info = op_info(op);
  const DType real_dt = std::is_same_v<R, float> ? kFloat32 : kFloat64;
  switch (info.out) {
    case OutDType::Bool:
      EMBER_CHECK(iter.dtype(0) == DType::Bool, info.name, ": CUDA kernel writes bool, the output is ", iter.dtype(0));
      elementwise_launch<bool, C<R>>(iter, UnaryComplexPredicateOp<R>{op});
      return;
    case OutDType::Real:
      EMBER_CHECK(iter.dtype(0) == real_dt, info.name, ": CUDA kernel writes ", real_dt, ", the output is ",
                  iter.dtype(0));
      elementwise_launch<R, C<R>>(iter, UnaryComplexRealOp<R>{op == UnaryOp::Angle});
      return;
    case OutDType::Same:
      EMBER_CHECK(iter.dtype(0) == iter.input_dtype(0), info.name, ": CUDA kernel writes ", iter.input_dtype(0),
                  ", the output is ", iter.dtype(0));
      elementwise_launch<C<R>, C<R>>(iter, UnaryComplexValueOp<R>{op});
      return;
  }
}

}  // namespace

void unary_complex_kernel(TensorIterator& iter, UnaryOp op) {
  const DType dt = iter.input_dtype(0);
  const UnaryInfo& info = op_info(op);
  EMBER_CHECK(is_complex(dt) && (info.dtypes & dtype_bit(dt)) != 0, info.name, ": no CUDA kernel for ", dt);
  if (dt == kComplex64) launch_unary_complex<float>(iter, op);
  else launch_unary_complex<double>(iter, op);
}

}  // namespace ember::cuda::kernels
