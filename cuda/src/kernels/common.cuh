#pragma once
// What the CUDA kernels share: device element types per DType, the launch of a
// function over a TensorIterator's operands (elementwise_launch), and the
// dtype dispatch. Included only by .cu files.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "../check.h"
#include "complex_type.h"  // Complex<R>: device-side complex values
#include "../stream_internal.h"
#include "iter/tensor_iterator.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::cuda::kernels {

template <DType D> struct device_type;
template <> struct device_type<DType::Bool> { using type = bool; };
template <> struct device_type<DType::UInt8> { using type = uint8_t; };
template <> struct device_type<DType::Int8> { using type = int8_t; };
template <> struct device_type<DType::Int16> { using type = int16_t; };
template <> struct device_type<DType::Int32> { using type = int32_t; };
template <> struct device_type<DType::Int64> { using type = int64_t; };
template <> struct device_type<DType::Float16> { using type = __half; };
template <> struct device_type<DType::BFloat16> { using type = __nv_bfloat16; };
template <> struct device_type<DType::Float32> { using type = float; };
template <> struct device_type<DType::Float64> { using type = double; };
template <> struct device_type<DType::Complex64> { using type = Complex<float>; };
template <> struct device_type<DType::Complex128> { using type = Complex<double>; };
template <DType D> using device_t = typename device_type<D>::type;

// The type a value of T is computed in: float for the 16-bit floats.
template <class T> struct compute_type { using type = T; };
template <> struct compute_type<__half> { using type = float; };
template <> struct compute_type<__nv_bfloat16> { using type = float; };
template <class T> using compute_t = typename compute_type<T>::type;

template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T>;

// Conversions between any two element types, as the CPU's (kernels/cpu/convert.h):
// complex to real takes the real part, anything to bool tests for non-zero,
// 16-bit floats go through float.
template <class To, class From>
__device__ __forceinline__ To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, Complex<float>> || std::is_same_v<From, Complex<double>>) {
    if constexpr (std::is_same_v<To, Complex<float>> || std::is_same_v<To, Complex<double>>) {
      return To{static_cast<decltype(To::re)>(v.re), static_cast<decltype(To::re)>(v.im)};
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.re != 0 || v.im != 0;  // non-zero, as kernels/cpu/convert.h
    } else {
      return convert<To>(v.re);
    }
  } else if constexpr (std::is_same_v<To, Complex<float>> || std::is_same_v<To, Complex<double>>) {
    using R = decltype(To::re);
    return To{convert<R>(v), R(0)};
  } else if constexpr (std::is_same_v<From, __half> || std::is_same_v<From, __nv_bfloat16>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, __half>) {
    // Through float, as c10::Half(double) and the CPU's Half: double -> float -> half.
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else {
    return static_cast<To>(v);
  }
}

// Calls f(tag) with tag a value of the device type of `dt` (any of the 12).
template <class F>
void dispatch_all(DType dt, F&& f) {
  switch (dt) {
    case DType::Bool: return f(bool{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int8: return f(int8_t{});
    case DType::Int16: return f(int16_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float16: return f(__half{});
    case DType::BFloat16: return f(__nv_bfloat16{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Complex64: return f(Complex<float>{});
    case DType::Complex128: return f(Complex<double>{});
  }
}
// The real dtypes and bool (what the arithmetic kernels compute).
template <class F>
void dispatch_real_bool(DType dt, const char* op, F&& f) {
  EMBER_CHECK(dt != DType::Complex64 && dt != DType::Complex128, op, ": no CUDA kernel for ", dt);
  dispatch_all(dt, [&](auto tag) {
    if constexpr (!std::is_same_v<decltype(tag), Complex<float>> && !std::is_same_v<decltype(tag), Complex<double>>)
      f(tag);
  });
}

// ---- elementwise launch ----
inline constexpr int kMaxDims = 16;
inline constexpr int kMaxArgs = 4;

// A TensorIterator's operands as a kernel sees them. An operand that is a CPU
// scalar (a 0-dim CPU tensor meeting device tensors, as PyTorch allows) is
// carried by value in `scalar` and read from there.
struct Geometry {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxArgs][kMaxDims] = {};
  char* data[kMaxArgs] = {};
  unsigned host_scalars = 0;  // bit i: operand i is carried in scalar[i]
  alignas(16) unsigned char scalar[kMaxArgs][16] = {};
};

Geometry make_geometry(const TensorIterator& iter);  // launch.cu
int16_t launch_device(Device device);               // launch.cu: the index, resolved
// Blocks for n elements at 256 threads, each thread striding over several.
int grid_for(int64_t n);                            // launch.cu
inline constexpr int kThreads = 256;

__device__ __forceinline__ void offsets_of(const Geometry& g, int64_t i, int nargs, int64_t* off) {
  if (g.ndim == 1) {
    for (int k = 0; k < nargs; ++k) off[k] = i * g.strides[k][0];
    return;
  }
  for (int k = 0; k < nargs; ++k) off[k] = 0;
  for (int d = 0; d < g.ndim; ++d) {
    const int64_t c = i % g.sizes[d];
    i /= g.sizes[d];
    for (int k = 0; k < nargs; ++k) off[k] += c * g.strides[k][d];
  }
}

// An input taken as the address of its element, for functors that read a
// dtype known only at run time (the copy kernel's conversions).
struct RawElement {
  const char* p;
};

template <class T>
__device__ __forceinline__ T load_arg(const Geometry& g, int k, int64_t off) {
  if constexpr (std::is_same_v<T, RawElement>) {
    if ((g.host_scalars >> k) & 1u) return RawElement{reinterpret_cast<const char*>(g.scalar[k])};
    return RawElement{g.data[k] + off};
  } else {
    if ((g.host_scalars >> k) & 1u) return *reinterpret_cast<const T*>(g.scalar[k]);
    return *reinterpret_cast<const T*>(g.data[k] + off);
  }
}

template <class... T>
struct TypeList {};

// Output 0 of type Out = f(inputs of types In...).
template <class Out, class... In, class F, size_t... I>
__device__ __forceinline__ void apply_at(const Geometry& g, int64_t i, const F& f, TypeList<In...>,
                                         std::index_sequence<I...>) {
  int64_t off[sizeof...(In) + 1];
  offsets_of(g, i, sizeof...(In) + 1, off);
  *reinterpret_cast<Out*>(g.data[0] + off[0]) = f(load_arg<In>(g, I + 1, off[I + 1])...);
}

// (nvcc wants a __global__ template's pack last: the input types come as a TypeList.)
template <class Out, class Ins, class F>
__global__ void elementwise_kernel(Geometry g, F f) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.numel; i += stride)
    [&]<class... In>(TypeList<In...> types) {
      apply_at<Out>(g, i, f, types, std::index_sequence_for<In...>{});
    }(Ins{});
}

// Every operand contiguous (or a scalar carried by value), one dimension:
// each thread computes kUnroll elements a block-width apart (coalesced), all
// loads of a round issued before its stores, so several are in flight at once.
inline constexpr int kUnroll = 4;

template <class T>
__device__ __forceinline__ T load_contiguous(const Geometry& g, int k, int64_t i) {
  if ((g.host_scalars >> k) & 1u) return *reinterpret_cast<const T*>(g.scalar[k]);
  return reinterpret_cast<const T*>(g.data[k])[i];
}

template <class Out, class... In, class F, size_t... I>
__device__ __forceinline__ Out compute_contiguous(const Geometry& g, int64_t i, const F& f, TypeList<In...>,
                                                  std::index_sequence<I...>) {
  return f(load_contiguous<In>(g, I + 1, i)...);
}

template <class Out, class Ins, class F>
__global__ void elementwise_contiguous_kernel(Geometry g, F f) {
  Out* out = reinterpret_cast<Out*>(g.data[0]);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x * kUnroll;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x * kUnroll + threadIdx.x; base < g.numel;
       base += step) {
    Out results[kUnroll];
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const int64_t i = base + static_cast<int64_t>(j) * blockDim.x;
      if (i < g.numel)
        results[j] = [&]<class... In>(TypeList<In...> types) {
          return compute_contiguous<Out>(g, i, f, types, std::index_sequence_for<In...>{});
        }(Ins{});
    }
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const int64_t i = base + static_cast<int64_t>(j) * blockDim.x;
      if (i < g.numel) out[i] = results[j];
    }
  }
}

// Whether every operand is contiguous in the one dimension (element sizes as strides).
// (An input read as RawElement always takes the general path: its element
// size is a run-time value; elementwise_launch does not ask.)
template <class Out, class... In>
bool is_contiguous_launch(const Geometry& g) {
  if (g.ndim != 1) return false;
  const int64_t sizes[] = {static_cast<int64_t>(sizeof(Out)), static_cast<int64_t>(sizeof(In))...};
  for (int k = 0; k < static_cast<int>(sizeof...(In)) + 1; ++k)
    if (!((g.host_scalars >> k) & 1u) && g.strides[k][0] != sizes[k]) return false;
  return true;
}

void check_launch(const char* op);  // launch.cu: raises the launch's error, if any

// Runs f (a functor with a __device__ operator(), not a lambda: nvcc refuses
// device lambdas inside the generic lambdas of the dtype dispatch) over the iterator's elements on the current stream of its device:
// output 0 of type Out, inputs of types In... (the device types of the
// operands' dtypes).
template <class Out, class... In, class F>
void elementwise_launch(const TensorIterator& iter, const F& f) {
  if (iter.numel() == 0) return;
  const Geometry g = make_geometry(iter);
  const int16_t index = launch_device(iter.device());
  detail::ScopedDevice on(index, iter.op_name());
  cudaStream_t stream = detail::current_cuda_stream(index);
  if constexpr (!(std::is_same_v<In, RawElement> || ...)) {
    if (is_contiguous_launch<Out, In...>(g)) {
      elementwise_contiguous_kernel<Out, TypeList<In...>><<<grid_for(iter.numel()), kThreads, 0, stream>>>(g, f);
      check_launch(iter.op_name());
      return;
    }
  }
  elementwise_kernel<Out, TypeList<In...>><<<grid_for(iter.numel()), kThreads, 0, stream>>>(g, f);
  check_launch(iter.op_name());
}

}  // namespace ember::cuda::kernels
