// CUDA kernels of nn::functional's elementwise activations (activation_slot,
// every ActOp) and prelu (prelu_slot), for the floating dtypes; 16-bit floats
// compute in float, as the CPU's (kernels/cpu/activation_kernels.cpp), whose
// formulas these are, edge for edge (softplus, with a slot of its own, is in
// special_misc.cu). relu, gelu, silu, sigmoid and tanh are
// unary ops (unary.cu); every activation's backward is recorded as
// elementwise Tensor ops, which run on the elementwise kernels.
#include "common.cuh"
#include "kernels/slots/activation_kernels.h"
#include "kernels/slots/elementwise_kernels.h"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

using nn::functional::ActOp;
using nn::functional::ActParams;

// std::max / std::min as the CPU's formulas call them: a NaN first argument
// comes back (fmax/fmin would drop it), so NaN propagates as on the CPU.
template <class C>
__device__ __forceinline__ C std_max(C a, C b) {
  return (a < b) ? b : a;
}
template <class C>
__device__ __forceinline__ C std_min(C a, C b) {
  return (b < a) ? b : a;
}

template <class C>
__device__ __forceinline__ C log1p_exp(C x) {  // log(1 + exp(x)), stable for large x
  return x > C(20) ? x : log1p(exp(x));
}

// One element in compute type C; the op is uniform across a launch (a
// run-time switch: one kernel per dtype, as unary.cu).
template <class C>
__device__ __forceinline__ C act_value(ActOp op, C x, C p0, C p1, C p2) {
  switch (op) {
    case ActOp::LeakyRelu: return x > C(0) ? x : x * p0;
    case ActOp::Elu: return x > C(0) ? x * p1 : expm1(x * p2) * (p0 * p1);
    case ActOp::Hardtanh: return x < p0 ? p0 : (x > p1 ? p1 : x);
    case ActOp::Hardswish: return x * std_min(std_max(x + C(3), C(0)), C(6)) / C(6);
    case ActOp::Hardsigmoid: return std_min(std_max(x + C(3), C(0)), C(6)) / C(6);
    case ActOp::Softsign: return x / (C(1) + fabs(x));
    case ActOp::Softshrink: return x > p0 ? x - p0 : (x < -p0 ? x + p0 : C(0));
    case ActOp::Hardshrink: return (x >= -p0 && x <= p0) ? C(0) : x;
    case ActOp::Tanhshrink: return x - tanh(x);
    case ActOp::Threshold: return x <= p0 ? p1 : x;
    case ActOp::Mish: return x * tanh(log1p_exp(x));
    case ActOp::LogSigmoid: return std_min(x, C(0)) - log1p(exp(-fabs(x)));
  }
  return x;
}

template <class T>
struct ActivationOp {
  ActOp op;
  compute_t<T> p0, p1, p2;
  __device__ T operator()(T a) const {
    using C = compute_t<T>;
    return convert<T>(act_value<C>(op, convert<C>(a), p0, p1, p2));
  }
};

// A NaN input takes the slope branch (NaN), as the CPU's and PyTorch's.
template <class T>
struct PreluOp {
  __device__ T operator()(T a, T w) const {
    using C = compute_t<T>;
    const C x = convert<C>(a);
    return convert<T>(x > C(0) ? x : x * convert<C>(w));
  }
};

// The floating dtypes (the activation kernels' set, as the CPU's kMaskFloating).
template <class F>
void dispatch_floating(DType dt, const char* op, F&& f) {
  switch (dt) {
    case DType::Float16: return f(__half{});
    case DType::BFloat16: return f(__nv_bfloat16{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    default: EMBER_FAIL(op, ": no CUDA kernel for ", dt, " (expected a floating point dtype)");
  }
}

void activation_kernel(TensorIterator& iter, ActOp op, const ActParams& p) {
  const DType dt = iter.input_dtype(0);
  EMBER_CHECK(iter.dtype(0) == dt, iter.op_name(), ": CUDA kernel writes ", dt, ", the output is ", iter.dtype(0));
  dispatch_floating(dt, iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    elementwise_launch<T, T>(iter, ActivationOp<T>{op, static_cast<C>(p.p0), static_cast<C>(p.p1), static_cast<C>(p.p2)});
  });
}

void prelu_kernel(TensorIterator& iter) {
  const DType dt = iter.input_dtype(0);
  EMBER_CHECK(iter.input_dtype(1) == dt && iter.dtype(0) == dt, "prelu: CUDA kernel takes one dtype, got input ", dt,
              ", weight ", iter.input_dtype(1), ", output ", iter.dtype(0));
  dispatch_floating(dt, "prelu", [&](auto tag) {
    using T = decltype(tag);
    elementwise_launch<T, T, T>(iter, PreluOp<T>{});
  });
}

constexpr uint32_t kCudaActOpDTypes[] = {kMaskFloating, kMaskFloating, kMaskFloating, kMaskFloating,
                                         kMaskFloating, kMaskFloating, kMaskFloating, kMaskFloating,
                                         kMaskFloating, kMaskFloating, kMaskFloating, kMaskFloating};
static_assert(std::size(kCudaActOpDTypes) == std::size(nn::functional::kActOpNames));

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(nn::functional::activation_slot, activation_kernel, kMaskFloating);
EMBER_REGISTER_CUDA_OP_DTYPES(nn::functional::activation_slot, kCudaActOpDTypes);
EMBER_REGISTER_CUDA_KERNEL(nn::functional::prelu_slot, prelu_kernel, kMaskFloating);

}  // namespace ember::cuda::kernels
