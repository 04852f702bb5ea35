// CUDA kernels of softplus and nan_to_num (kernels/cpu/unary_kernels.cpp) and
// of ember::special's sinc, entr, logit, xlog1py and round(decimals)
// (kernels/cpu/special_misc_kernels.cpp, special_math_misc.h), with the CPU's
// algorithms. The CPU evaluates sinc, entr, logit and xlog1py in long double
// and rounds once; the GPU has no long double and evaluates them in double,
// so float32 and the 16-bit floats agree exactly up to a double rounding and
// float64 within a few ulps. softplus and round(decimals) compute in the
// dtype's own arithmetic (float for the 16-bit floats), as the CPU.
#include <limits>
#include <optional>

#include "common.cuh"
#include "complex_math.cuh"
#include "kernels/slots/elementwise_kernels.h"
#include "kernels/slots/special_misc_kernels.h"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

// Calls f(tag) for the floating dtypes (float16, bfloat16, float32, float64).
template <class F>
void dispatch_floating(DType dt, const char* op, F&& f) {
  EMBER_CHECK(is_floating_point(dt), op, ": no CUDA kernel for ", dt);
  dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<compute_t<T>>) f(tag);
  });
}

// ---- the scalar functions of special_math_misc.h, in double ----
constexpr double kPi = 3.14159265358979323846;

// sin(pi x) / (pi x) with the argument reduced exactly (see the CPU's sinc).
__device__ double sinc_of(double x) {
  if (isnan(x)) return x;
  if (isinf(x)) return std::numeric_limits<double>::quiet_NaN();
  const double ax = fabs(x);
  if (ax == 0) return 1.0;
  double r = ax - 2 * nearbyint(ax / 2);  // exact, in [-1, 1]
  if (r > 0.5) r = 1 - r;
  else if (r < -0.5) r = -1 - r;
  // sinpi(r) is sin(pi r) without rounding pi r first (the CPU's long double pi r).
  return sinpi(r) / (kPi * ax);
}
__device__ double entr_of(double x) {
  if (isnan(x)) return x;
  if (x < 0) return -std::numeric_limits<double>::infinity();
  if (x == 0) return 0.0;
  return -x * log(x);
}
__device__ double logit_of(double x) {
  if (x >= 0.25) return 2 * atanh(2 * x - 1);
  return log(x / (1 - x));
}
__device__ double xlog1py_of(double x, double y) {
  if (isnan(y)) return y;
  if (x == 0) return 0.0;
  return x * log1p(y);
}

enum class MiscKind : uint8_t { Sinc, Entr, Logit, LogitClamped };

template <class T>
struct MiscUnaryOp {
  MiscKind kind;
  compute_t<T> lo, hi;  // logit's clamp bounds
  __device__ T operator()(T a) const {
    using C = compute_t<T>;
    switch (kind) {
      case MiscKind::Sinc: return convert<T>(sinc_of(convert<double>(a)));
      case MiscKind::Entr: return convert<T>(entr_of(convert<double>(a)));
      case MiscKind::Logit: return convert<T>(logit_of(convert<double>(a)));
      case MiscKind::LogitClamped: {
        const C x = convert<C>(a);
        const C z = x < lo ? lo : (x > hi ? hi : x);  // NaN passes unchanged
        return convert<T>(logit_of(static_cast<double>(z)));
      }
    }
    return a;
  }
};

template <class T>
struct Xlog1pyOp {
  __device__ T operator()(T a, T b) const { return convert<T>(xlog1py_of(convert<double>(a), convert<double>(b))); }
};

template <class T>
struct RoundDecimalsOp {
  compute_t<T> ten_pow;
  bool negative;
  __device__ T operator()(T a) const {
    const compute_t<T> x = convert<compute_t<T>>(a);
    return convert<T>(negative ? nearbyint(x / ten_pow) * ten_pow : nearbyint(x * ten_pow) / ten_pow);
  }
};

template <class T>
struct SoftplusOp {
  compute_t<T> beta, threshold;
  __device__ T operator()(T a) const {
    const compute_t<T> x = convert<compute_t<T>>(a);
    return convert<T>(x * beta > threshold ? x : log1p(exp(x * beta)) / beta);
  }
};

template <class R>
struct NanToNumFix {
  R nan, posinf, neginf;
  __device__ R operator()(R x) const {
    return x != x ? nan : x == R(INFINITY) ? posinf : x == R(-INFINITY) ? neginf : x;
  }
};
template <class T>
struct NanToNumOp {
  NanToNumFix<compute_t<T>> fix;
  __device__ T operator()(T a) const { return convert<T>(fix(convert<compute_t<T>>(a))); }
};
template <class R>
struct NanToNumComplexOp {
  NanToNumFix<R> fix;
  __device__ Complex<R> operator()(Complex<R> a) const { return {fix(a.re), fix(a.im)}; }
};

// The largest finite value of the element type T (float16 and bfloat16 included).
template <class T>
double largest_of() {
  if constexpr (std::is_same_v<T, __half>) return 65504.0;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return 3.3895313892515355e38;
  else return static_cast<double>(std::numeric_limits<T>::max());
}

void special_misc_unary_kernel(TensorIterator& iter, SpecialMiscUnaryOp op) {
  dispatch_floating(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    const MiscKind kind = op == SpecialMiscUnaryOp::Sinc ? MiscKind::Sinc : MiscKind::Entr;
    elementwise_launch<T, T>(iter, MiscUnaryOp<T>{kind, 0, 0});
  });
}

void logit_kernel(TensorIterator& iter, double eps) {
  dispatch_floating(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if (eps < 0) {
      elementwise_launch<T, T>(iter, MiscUnaryOp<T>{MiscKind::Logit, C(0), C(0)});
      return;
    }
    // The bounds in the dtype's arithmetic, as the CPU (lo = eps, hi = 1 - eps).
    auto round_to_t = [](double v) -> C {
      if constexpr (std::is_same_v<T, __half>) return __half2float(__float2half_rn(static_cast<float>(v)));
      else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(__float2bfloat16_rn(static_cast<float>(v)));
      else return static_cast<C>(v);
    };
    const C lo = round_to_t(eps);
    const C hi = round_to_t(static_cast<double>(C(1) - lo));
    elementwise_launch<T, T>(iter, MiscUnaryOp<T>{MiscKind::LogitClamped, lo, hi});
  });
}

void xlog1py_kernel(TensorIterator& iter) {
  dispatch_floating(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    EMBER_CHECK(iter.input_dtype(0) == iter.input_dtype(1), iter.op_name(), ": CUDA kernel needs inputs of one dtype, got ",
                iter.input_dtype(0), " and ", iter.input_dtype(1));
    elementwise_launch<T, T, T>(iter, Xlog1pyOp<T>{});
  });
}

void round_decimals_kernel(TensorIterator& iter, int64_t decimals) {
  dispatch_floating(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const bool negative = decimals < 0;
    // 10^|d| in double, then in C: inf beyond C's range, as the CPU's static_cast<T>(std::pow(10.0, d)).
    const C ten_pow = static_cast<C>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals)));
    elementwise_launch<T, T>(iter, RoundDecimalsOp<T>{ten_pow, negative});
  });
}

void softplus_kernel(TensorIterator& iter, const Scalar& beta, const Scalar& threshold) {
  dispatch_floating(iter.dtype(0), "softplus", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    elementwise_launch<T, T>(iter, SoftplusOp<T>{static_cast<C>(beta.to<double>()), static_cast<C>(threshold.to<double>())});
  });
}

void nan_to_num_kernel(TensorIterator& iter, double nan, std::optional<double> posinf, std::optional<double> neginf) {
  const DType dt = iter.dtype(0);
  EMBER_CHECK(is_floating_point(dt) || is_complex(dt), "nan_to_num: no CUDA kernel for ", dt);
  if (is_complex(dt)) {
    auto run = [&](auto rtag) {
      using R = decltype(rtag);
      const NanToNumFix<R> fix{static_cast<R>(nan), static_cast<R>(posinf ? *posinf : largest_of<R>()),
                               static_cast<R>(neginf ? *neginf : -largest_of<R>())};
      elementwise_launch<Complex<R>, Complex<R>>(iter, NanToNumComplexOp<R>{fix});
    };
    if (dt == kComplex64) run(float{});
    else run(double{});
    return;
  }
  dispatch_floating(dt, "nan_to_num", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    // The defaults are the dtype's largest values (65504 for float16), as the CPU's numeric_limits<S>.
    const NanToNumFix<C> fix{static_cast<C>(nan), static_cast<C>(posinf ? *posinf : largest_of<T>()),
                             static_cast<C>(neginf ? *neginf : -largest_of<T>())};
    elementwise_launch<T, T>(iter, NanToNumOp<T>{fix});
  });
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(softplus_slot, softplus_kernel, kMaskFloating);
EMBER_REGISTER_CUDA_KERNEL(nan_to_num_slot, nan_to_num_kernel, kMaskFloating | kMaskComplex);
EMBER_REGISTER_CUDA_KERNEL(special_misc_unary_slot, special_misc_unary_kernel, kMaskFloating);
EMBER_REGISTER_CUDA_KERNEL(logit_slot, logit_kernel, kMaskFloating);
EMBER_REGISTER_CUDA_KERNEL(xlog1py_slot, xlog1py_kernel, kMaskFloating);
EMBER_REGISTER_CUDA_KERNEL(round_decimals_slot, round_decimals_kernel, kMaskFloating);

}  // namespace ember::cuda::kernels
