// CUDA kernels of the binary elementwise ops (binary_slot): arithmetic,
// comparisons, logical and bitwise ops for every real dtype and bool, 16-bit
// floats computing in float. The inputs arrive in their common dtype (the
// TensorIterator promoted them); the op is a run-time switch as in unary.cu.
// Integer division and modulo are not computed on the GPU: the CPU raises
// ZeroDivisionError for a zero divisor, which a kernel cannot do without a
// round trip to the host, so those ops name their dtypes in missing_kernels.
// Complex operands go to binary_complex.cu.
#include "common.cuh"
#include "complex_kernels.h"
#include "kernels/slots/elementwise_info.h"
#include "math.cuh"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

template <class C>
__device__ __forceinline__ C binary_value(BinaryOp op, C x, C y, C alpha) {
  constexpr bool F = std::is_floating_point_v<C>;
  constexpr bool B = std::is_same_v<C, bool>;
  constexpr bool I = std::is_integral_v<C> && !B;
  switch (op) {
    case BinaryOp::Add:
      if constexpr (B) return x || (alpha && y);
      else return wrapping_add(x, wrapping_mul(alpha, y));
    case BinaryOp::Mul: return wrapping_mul(x, y);
    case BinaryOp::Pow:
      if constexpr (B) return x || !y;
      else if constexpr (I) return int_pow(x, y);
      else return pow(x, y);
    case BinaryOp::Maximum: return max_nan(x, y);
    case BinaryOp::Minimum: return min_nan(x, y);
    case BinaryOp::Fmax:
      if constexpr (F) return fmax(x, y);
      else return x > y ? x : y;
    case BinaryOp::Fmin:
      if constexpr (F) return fmin(x, y);
      else return x < y ? x : y;
    case BinaryOp::BitwiseAnd:
      if constexpr (B) return x && y;
      else if constexpr (I) return static_cast<C>(x & y);
      break;
    case BinaryOp::BitwiseOr:
      if constexpr (B) return x || y;
      else if constexpr (I) return static_cast<C>(x | y);
      break;
    case BinaryOp::BitwiseXor:
      if constexpr (B) return x != y;
      else if constexpr (I) return static_cast<C>(x ^ y);
      break;
    case BinaryOp::LeftShift:
      if constexpr (I) {
        // Shifting by the width or more (or a negative amount) gives 0, as PyTorch.
        using U = std::make_unsigned_t<C>;
        if (y < 0 || y >= static_cast<C>(sizeof(C) * 8)) return 0;
        return static_cast<C>(static_cast<U>(x) << y);
      }
      break;
    case BinaryOp::RightShift:
      if constexpr (I) {
        if (y < 0 || y >= static_cast<C>(sizeof(C) * 8)) return x < 0 ? C(-1) : C(0);
        return static_cast<C>(x >> y);
      }
      break;
    default: break;
  }
  if constexpr (F) {
    switch (op) {
      case BinaryOp::Div: return x / y;
      case BinaryOp::DivTrunc: return trunc(x / y);
      case BinaryOp::DivFloor: return float_floor_div(x, y);
      case BinaryOp::Fmod: return fmod(x, y);
      case BinaryOp::Remainder: return float_remainder(x, y);
      case BinaryOp::Atan2: return atan2(x, y);
      case BinaryOp::Hypot: return hypot(x, y);
      case BinaryOp::Copysign: return copysign(x, y);
      case BinaryOp::Xlogy: return y != y ? y : (x == C(0) ? C(0) : x * log(y));
      default: break;
    }
  }
  __trap();  // unreachable: binary_kernel checks the op's dtypes before launching
  return x;
}

template <class C>
__device__ __forceinline__ bool binary_predicate(BinaryOp op, C x, C y) {
  switch (op) {
    case BinaryOp::Eq: return x == y;
    case BinaryOp::Ne: return x != y;
    case BinaryOp::Lt: return x < y;
    case BinaryOp::Le: return x <= y;
    case BinaryOp::Gt: return x > y;
    case BinaryOp::Ge: return x >= y;
    case BinaryOp::LogicalAnd: return (x != C(0)) && (y != C(0));
    case BinaryOp::LogicalOr: return (x != C(0)) || (y != C(0));
    case BinaryOp::LogicalXor: return (x != C(0)) != (y != C(0));
    default: break;
  }
  __trap();
  return false;
}

template <class T>
struct BinaryValueOp {
  BinaryOp op;
  compute_t<T> alpha;
  __device__ T operator()(T a, T b) const {
    using C = compute_t<T>;
    return convert<T>(binary_value<C>(op, convert<C>(a), convert<C>(b), alpha));
  }
};
template <class T>
struct BinaryPredicateOp {
  BinaryOp op;
  __device__ bool operator()(T a, T b) const {
    using C = compute_t<T>;
    return binary_predicate<C>(op, convert<C>(a), convert<C>(b));
  }
};

bool is_integer_division(BinaryOp op) {
  return op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor || op == BinaryOp::Fmod || op == BinaryOp::Remainder;
}

constexpr std::array<uint32_t, kNumBinaryOps> binary_op_dtypes() {
  std::array<uint32_t, kNumBinaryOps> masks{};
  for (size_t i = 0; i < kNumBinaryOps; ++i) {
    masks[i] = kBinaryInfo[i].dtypes;  // complex in binary_complex.cu
    const auto op = static_cast<BinaryOp>(i);
    if (op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor || op == BinaryOp::Fmod || op == BinaryOp::Remainder)
      masks[i] &= kMaskFloating;
  }
  return masks;
}
constexpr std::array<uint32_t, kNumBinaryOps> kCudaBinaryOpDTypes = binary_op_dtypes();

template <class C>
C host_value(const Scalar& s) {
  if constexpr (std::is_same_v<C, bool>) return s.to<bool>();
  else if constexpr (std::is_floating_point_v<C>) return static_cast<C>(s.to<double>());
  else return static_cast<C>(s.to<int64_t>());
}

void binary_kernel(TensorIterator& iter, BinaryOp op, const Scalar& alpha) {
  const DType dt = iter.input_dtype(0);
  const BinaryInfo& info = op_info(op);
  EMBER_CHECK((kCudaBinaryOpDTypes[static_cast<size_t>(op)] & dtype_bit(dt)) != 0, info.name,
              ": no CUDA kernel for ", dt,
              is_integer_division(op) ? " (integer division and modulo run on the CPU only)" : "");
  EMBER_CHECK(iter.input_dtype(1) == dt, info.name, ": CUDA kernel needs inputs of one dtype, got ", dt, " and ",
              iter.input_dtype(1));
  if (is_complex(dt)) return binary_complex_kernel(iter, op, alpha);
  dispatch_real_bool(dt, info.name, [&](auto tag) {
    using T = decltype(tag);
    if (info.out == OutDType::Bool) {
      EMBER_CHECK(iter.dtype(0) == DType::Bool, info.name, ": CUDA kernel writes bool, the output is ", iter.dtype(0));
      elementwise_launch<bool, T, T>(iter, BinaryPredicateOp<T>{op});
    } else {
      EMBER_CHECK(iter.dtype(0) == dt, info.name, ": CUDA kernel writes ", dt, ", the output is ", iter.dtype(0));
      elementwise_launch<T, T, T>(iter, BinaryValueOp<T>{op, host_value<compute_t<T>>(alpha)});
    }
  });
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(binary_slot, binary_kernel, kMaskAll);
EMBER_REGISTER_CUDA_OP_DTYPES(binary_slot, kCudaBinaryOpDTypes.data());

}  // namespace ember::cuda::kernels
