// CUDA kernels of the unary elementwise ops (unary_slot), for every real
// dtype and bool; 16-bit floats compute in float. Complex inputs go to
// unary_complex.cu. One kernel per (dtype,
// output kind) with the op a run-time switch (uniform across a launch, so it
// costs a jump per element, and the file compiles 20 kernels instead of 500).
#include "common.cuh"
#include "complex_kernels.h"
#include "kernels/slots/elementwise_info.h"
#include "math.cuh"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

template <class C>
__device__ __forceinline__ C unary_value(UnaryOp op, C x) {
  constexpr bool F = std::is_floating_point_v<C>;
  constexpr bool B = std::is_same_v<C, bool>;
  switch (op) {
    case UnaryOp::Abs:
      if constexpr (F) return fabs(x);
      else if constexpr (std::is_signed_v<C>) return x < 0 ? wrapping_neg(x) : x;
      else return x;
    case UnaryOp::Neg:
      if constexpr (!B) return wrapping_neg(x);
      break;
    case UnaryOp::Sign:
    case UnaryOp::Sgn:
      if constexpr (B) return x;
      else if constexpr (std::is_unsigned_v<C>) return static_cast<C>(x > 0);
      else return static_cast<C>((C(0) < x) - (x < C(0)));
    case UnaryOp::Square:
      if constexpr (!B) return wrapping_mul(x, x);
      break;
    case UnaryOp::Relu:
      if constexpr (!B) return x < C(0) ? C(0) : x;
      break;
    case UnaryOp::Floor:
      if constexpr (F) return floor(x);
      else return x;
    case UnaryOp::Ceil:
      if constexpr (F) return ceil(x);
      else return x;
    case UnaryOp::Round:
      if constexpr (F) return nearbyint(x);  // half to even, as torch.round
      else return x;
    case UnaryOp::Trunc:
      if constexpr (F) return trunc(x);
      else return x;
    case UnaryOp::BitwiseNot:
      if constexpr (B) return !x;
      else if constexpr (!F) return static_cast<C>(~x);
      break;
    case UnaryOp::Conj: return x;
    case UnaryOp::Angle:
      if constexpr (F) return x != x ? x : (x < C(0) ? C(3.14159265358979323846) : C(0));
      break;
    default: break;
  }
  if constexpr (F) {
    switch (op) {
      case UnaryOp::Exp: return exp(x);
      case UnaryOp::Exp2: return exp2(x);
      case UnaryOp::Expm1: return expm1(x);
      case UnaryOp::Log: return log(x);
      case UnaryOp::Log2: return log2(x);
      case UnaryOp::Log10: return log10(x);
      case UnaryOp::Log1p: return log1p(x);
      case UnaryOp::Sqrt: return sqrt(x);
      case UnaryOp::Rsqrt: return C(1) / sqrt(x);
      case UnaryOp::Reciprocal: return C(1) / x;
      case UnaryOp::Sin: return sin(x);
      case UnaryOp::Cos: return cos(x);
      case UnaryOp::Tan: return tan(x);
      case UnaryOp::Asin: return asin(x);
      case UnaryOp::Acos: return acos(x);
      case UnaryOp::Atan: return atan(x);
      case UnaryOp::Sinh: return sinh(x);
      case UnaryOp::Cosh: return cosh(x);
      case UnaryOp::Tanh: return tanh(x);
      case UnaryOp::Asinh: return asinh(x);
      case UnaryOp::Acosh: return acosh(x);
      case UnaryOp::Atanh: return atanh(x);
      case UnaryOp::Sigmoid: {
        // The form that cannot overflow (Note in kernels/cpu/unary_kernels_impl.h).
        if (x < C(0)) {
          const C e = exp(x);
          return e / (C(1) + e);
        }
        return C(1) / (C(1) + exp(-x));
      }
      case UnaryOp::Silu: return x / (C(1) + exp(-x));
      case UnaryOp::Erf: return erf(x);
      case UnaryOp::Erfc: return erfc(x);
      case UnaryOp::Frac: return x - trunc(x);
      case UnaryOp::GeluErf: return C(0.5) * x * (C(1) + erf(x * C(0.70710678118654752440)));
      case UnaryOp::GeluTanh: {
        const C k = C(0.7978845608028654);  // sqrt(2 / pi)
        return C(0.5) * x * (C(1) + tanh(k * (x + C(0.044715) * x * x * x)));
      }
      default: break;
    }
  }
  __trap();  // unreachable: unary_kernel checks the op's dtypes before launching
  return x;
}

template <class C>
__device__ __forceinline__ bool unary_predicate(UnaryOp op, C x) {
  constexpr bool F = std::is_floating_point_v<C>;
  switch (op) {
    case UnaryOp::LogicalNot: return !(x != C(0));
    case UnaryOp::Isnan: return is_nan(x);
    case UnaryOp::Isinf:
      if constexpr (F) return isinf(x);
      else return false;
    case UnaryOp::Isfinite:
      if constexpr (F) return isfinite(x);
      else return true;
    case UnaryOp::Isposinf:
      if constexpr (F) return isinf(x) && x > 0;
      else return false;
    case UnaryOp::Isneginf:
      if constexpr (F) return isinf(x) && x < 0;
      else return false;
    case UnaryOp::Signbit:
      if constexpr (F) return signbit(x);
      else if constexpr (std::is_same_v<C, bool> || std::is_unsigned_v<C>) return false;
      else return x < 0;
    default: break;
  }
  __trap();
  return false;
}

template <class T>
struct UnaryValueOp {
  UnaryOp op;
  __device__ T operator()(T a) const {
    using C = compute_t<T>;
    return convert<T>(unary_value<C>(op, convert<C>(a)));
  }
};
template <class T>
struct UnaryPredicateOp {
  UnaryOp op;
  __device__ bool operator()(T a) const {
    using C = compute_t<T>;
    return unary_predicate<C>(op, convert<C>(a));
  }
};

// The dtypes the CUDA kernel computes per op: the CPU's (complex in unary_complex.cu).
constexpr std::array<uint32_t, kNumUnaryOps> kCudaUnaryOpDTypes = kUnaryOpDTypes;

void unary_kernel(TensorIterator& iter, UnaryOp op) {
  const DType dt = iter.input_dtype(0);
  const UnaryInfo& info = op_info(op);
  EMBER_CHECK((kCudaUnaryOpDTypes[static_cast<size_t>(op)] & dtype_bit(dt)) != 0, info.name,
              ": no CUDA kernel for ", dt);
  if (is_complex(dt)) return unary_complex_kernel(iter, op);
  dispatch_real_bool(dt, info.name, [&](auto tag) {
    using T = decltype(tag);
    if (info.out == OutDType::Bool) {
      EMBER_CHECK(iter.dtype(0) == DType::Bool, info.name, ": CUDA kernel writes bool, the output is ", iter.dtype(0));
      elementwise_launch<bool, T>(iter, UnaryPredicateOp<T>{op});
    } else {
      EMBER_CHECK(iter.dtype(0) == dt, info.name, ": CUDA kernel writes ", dt, ", the output is ", iter.dtype(0));
      elementwise_launch<T, T>(iter, UnaryValueOp<T>{op});
    }
  });
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(unary_slot, unary_kernel, kMaskAll);
EMBER_REGISTER_CUDA_OP_DTYPES(unary_slot, kCudaUnaryOpDTypes.data());

}  // namespace ember::cuda::kernels
