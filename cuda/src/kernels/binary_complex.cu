// CUDA kernels of the binary and ternary ops and of pow with a number
// exponent on complex64 and complex128 (binary.cu, ternary.cu send complex
// operands here), with the CPU's formulas (kernels/cpu/binary_kernels_impl.h,
// ternary_kernels_impl.h, pow_scalar_kernels.cpp) on complex_math.cuh.
#include "common.cuh"
#include "complex_kernels.h"
#include "complex_math.cuh"
#include "kernels/slots/elementwise_info.h"

namespace ember::cuda::kernels {
namespace {

using namespace cmath;

template <class R>
C<R> host_complex(const Scalar& s) {
  const complex128 v = s.toComplexDouble();
  return {static_cast<R>(v.real()), static_cast<R>(v.imag())};
}

// ---- binary ----
template <class R>
struct BinaryComplexValueOp {
  BinaryOp op;
  C<R> alpha;
  bool alpha_is_one;
  __device__ C<R> operator()(C<R> x, C<R> y) const {
    switch (op) {
      // x + y when alpha is 1 (not x + 1 * y: 1 * (inf + 0i) has a NaN part), as the CPU.
      case BinaryOp::Add: return alpha_is_one ? c_add(x, y) : c_add(x, c_mul(alpha, y));
      case BinaryOp::Mul: return c_mul(x, y);
      case BinaryOp::Div: return c_div(x, y);
      case BinaryOp::Pow: return c_pow(x, y);
      default: break;
    }
    __trap();  // unreachable: binary_complex_kernel checks the op's dtypes before launching
    return x;
  }
};

template <class R>
struct BinaryComplexPredicateOp {
  BinaryOp op;
  __device__ bool operator()(C<R> x, C<R> y) const {
    const bool xnz = x.re != R(0) || x.im != R(0), ynz = y.re != R(0) || y.im != R(0);
    switch (op) {
      case BinaryOp::Eq: return x.re == y.re && x.im == y.im;
      case BinaryOp::Ne: return !(x.re == y.re && x.im == y.im);
      case BinaryOp::LogicalAnd: return xnz && ynz;
      case BinaryOp::LogicalOr: return xnz || ynz;
      case BinaryOp::LogicalXor: return xnz != ynz;
      default: break;
    }
    __trap();
    return false;
  }
};

template <class R>
void launch_binary_complex(TensorIterator& iter, BinaryOp op, const Scalar& alpha) {
  const BinaryInfo& info = op_info(op);
  if (info.out == OutDType::Bool) {
    EMBER_CHECK(iter.dtype(0) == DType::Bool, info.name, ": CUDA kernel writes bool, the output is ", iter.dtype(0));
    elementwise_launch<bool, C<R>, C<R>>(iter, BinaryComplexPredicateOp<R>{op});
  } else {
    EMBER_CHECK(iter.dtype(0) == iter.input_dtype(0), info.name, ": CUDA kernel writes ", iter.input_dtype(0),
                ", the output is ", iter.dtype(0));
    const C<R> a = host_complex<R>(alpha);
    elementwise_launch<C<R>, C<R>, C<R>>(iter, BinaryComplexValueOp<R>{op, a, a.re == R(1) && a.im == R(0)});
  }
}

// ---- ternary ----
template <class R>
struct LerpComplexOp {
  __device__ C<R> operator()(C<R> x, C<R> y, C<R> t) const {
    // Two forms keep lerp exact at both ends; complex weights pick by |weight|, as the CPU.
    if (c_abs(t) < R(0.5)) return c_add(x, c_mul(t, c_sub(y, x)));
    return c_sub(y, c_mul(c_sub(y, x), c_sub(C<R>{R(1), R(0)}, t)));
  }
};
template <class R>
struct AddcComplexOp {
  C<R> value;
  bool divide;
  __device__ C<R> operator()(C<R> a, C<R> b, C<R> c) const {
    if (divide) return c_add(a, c_mul(value, c_div(b, c)));
    return c_add(a, c_mul(c_mul(value, b), c));
  }
};
template <class T>
struct WhereComplexOp {
  __device__ T operator()(uint8_t c, T a, T b) const { return c ? a : b; }
};

// ---- pow(tensor, number): Note [pow with a number exponent] in kernels/cpu/pow_scalar_kernels.cpp ----
enum class ComplexPowForm : uint8_t { One, Identity, Square, Cube, ReciprocalSquare, Reciprocal, Sqrt, Rsqrt };

template <class R>
struct PowFormComplexOp {
  ComplexPowForm form;
  __device__ C<R> operator()(C<R> x) const {
    const C<R> one{R(1), R(0)};
    switch (form) {
      case ComplexPowForm::One: return one;
      case ComplexPowForm::Identity: return x;
      case ComplexPowForm::Square: return c_mul(x, x);
      case ComplexPowForm::Cube: return c_mul(c_mul(x, x), x);
      case ComplexPowForm::ReciprocalSquare: return c_div(one, c_mul(x, x));
      case ComplexPowForm::Reciprocal: return c_div(one, x);
      case ComplexPowForm::Sqrt: return c_sqrt(x);
      case ComplexPowForm::Rsqrt: return c_div(one, c_sqrt(x));
    }
    return x;
  }
};

std::optional<ComplexPowForm> complex_pow_form(double e) {
  if (e == 0) return ComplexPowForm::One;
  if (e == 1) return ComplexPowForm::Identity;
  if (e == 2) return ComplexPowForm::Square;
  if (e == 3) return ComplexPowForm::Cube;
  if (e == -2) return ComplexPowForm::ReciprocalSquare;
  if (e == -1) return ComplexPowForm::Reciprocal;
  if (e == 0.5) return ComplexPowForm::Sqrt;
  if (e == -0.5) return ComplexPowForm::Rsqrt;
  return std::nullopt;
}

}  // namespace

void binary_complex_kernel(TensorIterator& iter, BinaryOp op, const Scalar& alpha) {
  const DType dt = iter.input_dtype(0);
  const BinaryInfo& info = op_info(op);
  EMBER_CHECK(is_complex(dt) && (info.dtypes & dtype_bit(dt)) != 0, info.name, ": no CUDA kernel for ", dt);
  EMBER_CHECK(iter.input_dtype(1) == dt, info.name, ": CUDA kernel needs inputs of one dtype, got ", dt, " and ",
              iter.input_dtype(1));
  if (dt == kComplex64) launch_binary_complex<float>(iter, op, alpha);
  else launch_binary_complex<double>(iter, op, alpha);
}

void ternary_complex_kernel(TensorIterator& iter, TernaryOp op, const Scalar& value) {
  const DType dt = iter.dtype(0);
  const char* name = op_info(op).name;
  EMBER_CHECK(is_complex(dt) && (op_info(op).dtypes & dtype_bit(dt)) != 0, name, ": no CUDA kernel for ", dt);
  auto run = [&](auto tag) {
    using R = decltype(tag);
    switch (op) {
      case TernaryOp::Where:
        EMBER_CHECK(element_size(iter.input_dtype(0)) == 1, "where: the condition must be bool or uint8, got ",
                    iter.input_dtype(0));
        elementwise_launch<C<R>, uint8_t, C<R>, C<R>>(iter, WhereComplexOp<C<R>>{});
        return;
      case TernaryOp::Lerp: elementwise_launch<C<R>, C<R>, C<R>, C<R>>(iter, LerpComplexOp<R>{}); return;
      case TernaryOp::Addcmul:
      case TernaryOp::Addcdiv:
        elementwise_launch<C<R>, C<R>, C<R>, C<R>>(
            iter, AddcComplexOp<R>{host_complex<R>(value), op == TernaryOp::Addcdiv});
        return;
      case TernaryOp::Clamp: break;
    }
    EMBER_FAIL(name, ": no CUDA kernel for ", dt);
  };
  if (dt == kComplex64) run(float{});
  else run(double{});
}

void pow_scalar_complex_kernel(TensorIterator& iter, const Scalar& exponent) {
  const DType dt = iter.input_dtype(0);
  EMBER_CHECK(is_complex(dt), "pow: no CUDA kernel for ", dt);
  // A complex exponent with an imaginary part has no exact form (as the CPU).
  const complex128 e = exponent.toComplexDouble();
  const std::optional<ComplexPowForm> form = e.imag() == 0 ? complex_pow_form(e.real()) : std::nullopt;
  if (!form) return binary_complex_kernel(iter, BinaryOp::Pow, Scalar(1));
  if (dt == kComplex64) elementwise_launch<C<float>, C<float>>(iter, PowFormComplexOp<float>{*form});
  else elementwise_launch<C<double>, C<double>>(iter, PowFormComplexOp<double>{*form});
}

}  // namespace ember::cuda::kernels
