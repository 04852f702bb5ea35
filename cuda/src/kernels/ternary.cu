// CUDA kernels of where, clamp (tensor and number bounds), lerp,
// addcmul/addcdiv (ternary_slot, clamp_scalar_slot) and pow with a number
// exponent (pow_scalar_slot), with the CPU kernels' semantics: NaN in any
// clamp operand gives NaN, lerp exact at both ends, pow's exact forms for
// the exponents 0, 1, 2, 3, -1, -2, 0.5 and -0.5. Complex operands go to
// binary_complex.cu.
#include <optional>

#include "common.cuh"
#include "complex_kernels.h"
#include "kernels/slots/elementwise_info.h"
#include "math.cuh"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

template <class T>
struct WhereOp {
  __device__ T operator()(uint8_t c, T a, T b) const { return c ? a : b; }
};

template <class T>
struct ClampOp {
  __device__ T operator()(T x, T lo, T hi) const {
    using C = compute_t<T>;
    return convert<T>(min_nan(max_nan(convert<C>(x), convert<C>(lo)), convert<C>(hi)));
  }
};

template <class T>
struct LerpOp {
  __device__ T operator()(T a, T b, T w) const {
    using C = compute_t<T>;
    const C x = convert<C>(a), y = convert<C>(b), t = convert<C>(w);
    if (fabs(t) < C(0.5)) return convert<T>(x + t * (y - x));
    return convert<T>(y - (y - x) * (C(1) - t));
  }
};

template <class T>
struct AddcOp {
  compute_t<T> value;
  bool divide;
  __device__ T operator()(T a, T b, T c) const {
    using C = compute_t<T>;
    const C x = convert<C>(a), y = convert<C>(b), z = convert<C>(c);
    if (divide) return convert<T>(x + value * (y / z));
    return convert<T>(wrapping_add(x, wrapping_mul(wrapping_mul(value, y), z)));
  }
};

template <class C>
C host_value(const Scalar& s) {
  if constexpr (std::is_same_v<C, bool>) return s.to<bool>();
  else if constexpr (std::is_floating_point_v<C>) return static_cast<C>(s.to<double>());
  else return static_cast<C>(s.to<int64_t>());
}

constexpr uint32_t kCudaTernaryOpDTypes[] = {
    kMaskFloating | kMaskComplex,  // lerp
    kMaskReal | kMaskComplex,      // addcmul
    kMaskReal | kMaskComplex,      // addcdiv
    kMaskAll,                      // where
    kMaskReal | kMaskBool,       // clamp
};
static_assert(std::size(kCudaTernaryOpDTypes) == kNumTernaryOps);

void ternary_kernel(TensorIterator& iter, TernaryOp op, const Scalar& value) {
  const DType dt = iter.dtype(0);
  const char* name = op_info(op).name;
  EMBER_CHECK((kCudaTernaryOpDTypes[static_cast<size_t>(op)] & dtype_bit(dt)) != 0, name,
              ": no CUDA kernel for ", dt);
  if (is_complex(dt)) return ternary_complex_kernel(iter, op, value);
  dispatch_real_bool(dt, name, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case TernaryOp::Where:
        EMBER_CHECK(element_size(iter.input_dtype(0)) == 1, "where: the condition must be bool or uint8, got ",
                    iter.input_dtype(0));
        elementwise_launch<T, uint8_t, T, T>(iter, WhereOp<T>{});
        return;
      case TernaryOp::Clamp: elementwise_launch<T, T, T, T>(iter, ClampOp<T>{}); return;
      case TernaryOp::Lerp:
        if constexpr (std::is_floating_point_v<compute_t<T>>) elementwise_launch<T, T, T, T>(iter, LerpOp<T>{});
        return;
      case TernaryOp::Addcmul:
      case TernaryOp::Addcdiv:
        if constexpr (!std::is_same_v<T, bool>)
          elementwise_launch<T, T, T, T>(iter, AddcOp<T>{host_value<compute_t<T>>(value), op == TernaryOp::Addcdiv});
        return;
    }
  });
}

template <class T>
struct ClampScalarOp {
  compute_t<T> lo, hi;
  bool has_lo, has_hi;
  __device__ T operator()(T a) const {
    using C = compute_t<T>;
    C x = convert<C>(a);
    if (is_nan(x)) return a;
    if (has_lo) x = max_nan(x, lo);
    if (has_hi) x = min_nan(x, hi);
    return convert<T>(x);
  }
};

void clamp_scalar_kernel(TensorIterator& iter, std::optional<Scalar> min, std::optional<Scalar> max) {
  const DType dt = iter.dtype(0);
  EMBER_CHECK((kMaskReal & dtype_bit(dt)) != 0, "clamp: no CUDA kernel for ", dt);
  dispatch_real_bool(dt, "clamp", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if constexpr (!std::is_same_v<T, bool>) {
      elementwise_launch<T, T>(iter, ClampScalarOp<T>{min ? host_value<C>(*min) : C(0), max ? host_value<C>(*max) : C(0),
                                                      min.has_value(), max.has_value()});
    }
  });
}

// pow(x, e) for the exponents with an exact form (PowForm), on the base alone.
enum class PowForm : uint8_t { One, Identity, Square, Cube, Reciprocal, ReciprocalSquare, Sqrt, Rsqrt };

template <class T>
struct PowFormOp {
  PowForm form;
  __device__ T operator()(T a) const {
    using C = compute_t<T>;
    const C x = convert<C>(a);
    switch (form) {
      case PowForm::One: return convert<T>(C(1));
      case PowForm::Identity: return a;
      case PowForm::Square: return convert<T>(wrapping_mul(x, x));
      case PowForm::Cube: return convert<T>(wrapping_mul(wrapping_mul(x, x), x));
      default: break;
    }
    if constexpr (std::is_floating_point_v<C>) {
      switch (form) {
        case PowForm::Reciprocal: return convert<T>(C(1) / x);
        case PowForm::ReciprocalSquare: return convert<T>(C(1) / (x * x));
        case PowForm::Sqrt: return convert<T>(sqrt(x));
        case PowForm::Rsqrt: return convert<T>(C(1) / sqrt(x));
        default: break;
      }
    }
    return a;
  }
};

template <class T>
std::optional<PowForm> pow_form(double e) {
  if (e == 0) return PowForm::One;
  if (e == 1) return PowForm::Identity;
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, __half>) {
    return std::nullopt;  // bool: the generic rule; float16: powf, as torch 1.13
  } else {
    if (e == 2) return PowForm::Square;
    if (e == 3) return PowForm::Cube;
    if constexpr (std::is_floating_point_v<compute_t<T>>) {
      if (e == -1) return PowForm::Reciprocal;
      if (e == -2) return PowForm::ReciprocalSquare;
      if (e == 0.5) return PowForm::Sqrt;
      if (e == -0.5) return PowForm::Rsqrt;
    }
    return std::nullopt;
  }
}

void pow_scalar_kernel(TensorIterator& iter, const Scalar& exponent) {
  const DType dt = iter.input_dtype(0);
  if (is_complex(dt)) return pow_scalar_complex_kernel(iter, exponent);
  EMBER_CHECK(!exponent.is_complex(), "pow: no CUDA kernel for ", dt, " with a complex exponent");
  bool done = false;
  dispatch_real_bool(dt, "pow", [&](auto tag) {
    using T = decltype(tag);
    if (auto form = pow_form<T>(exponent.to<double>())) {
      elementwise_launch<T, T>(iter, PowFormOp<T>{*form});
      done = true;
    }
  });
  if (!done) binary_slot.kernel(iter.device())(iter, BinaryOp::Pow, Scalar(1));
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(ternary_slot, ternary_kernel, kMaskAll);
EMBER_REGISTER_CUDA_OP_DTYPES(ternary_slot, kCudaTernaryOpDTypes);
EMBER_REGISTER_CUDA_KERNEL(clamp_scalar_slot, clamp_scalar_kernel, kMaskReal);
EMBER_REGISTER_CUDA_KERNEL(pow_scalar_slot, pow_scalar_kernel, kMaskAll);

}  // namespace ember::cuda::kernels
