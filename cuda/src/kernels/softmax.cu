// CUDA kernels of softmax / log_softmax and their backward (softmax_slot,
// softmax_backward_slot), the floating dtypes. Tensors are contiguous and
// viewed as [outer, n, inner] around the softmax dim, as the CPU's
// (kernels/cpu/softmax_kernels.cpp), whose numerics these follow:
//  - inner == 1 (the last dim): rows of n <= 1024 take a warp each (no shared
//    memory, no __syncthreads); longer rows a block of 512 threads each. Three
//    passes over the row (max; sum of exponentials; write), the row staying in
//    L1/L2 between them.
//  - inner > 1: a thread per (outer, inner) column walks down the dim; adjacent
//    threads read adjacent lanes, so the loads coalesce.
// 16-bit floats compute in float, float32 in float, float64 in double. As on
// the CPU: a row whose max is not finite (all -inf, or holding +inf or NaN) is
// all NaN; the exponentials of the elements equal to the max (exactly 1 each)
// are counted, not summed, so log_softmax takes log1p of the others' sum; in
// double the rounding error of x - max is carried into exp and into
// log_softmax (TwoSum).
#include <math_constants.h>

#include <cmath>
#include <limits>

#include "common.cuh"
#include "kernels/slots/activation_kernels.h"
#include "math.cuh"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

constexpr int kWarp = 32;
constexpr int kRowThreads = 512;      // block-per-row kernels
constexpr int kWarpRowsPerBlock = 4;  // warp-per-row kernels: 128 threads
constexpr int64_t kMaxWarpRow = 1024;
constexpr int64_t kMaxBlocks = int64_t{1} << 20;  // grid-stride beyond

// ---- numerics (the CPU's, per element) ----
template <class C>
__device__ __forceinline__ C exp_shifted(C x, C m) {
  const C d = x - m;
  const C e = exp(d);
  if constexpr (!std::is_same_v<C, double>) {
    return e;
  } else {
    if (!(d > -CUDART_INF)) return e;  // x = -inf (0) or NaN
    const C bb = d - x;
    const C err = (x - (d - bb)) + (-m - bb);
    return e + e * err;
  }
}

template <class C>
__device__ __forceinline__ C log_softmax_of(C x, C m, C lse) {
  const C d = x - m;
  if (!isfinite(d)) return d - lse;  // x = -inf
  const C bb = d - x;
  const C err = (x - (d - bb)) + (-m - bb);
  return (d - lse) + err;
}

template <class C>
__device__ __forceinline__ C quiet_nan() {
  return std::numeric_limits<C>::quiet_NaN();
}

template <class C>
__device__ __forceinline__ C neg_inf() {
  if constexpr (std::is_same_v<C, float>) return -CUDART_INF_F;
  else return -CUDART_INF;
}

// ---- warp and block reductions ----
template <class C>
__device__ __forceinline__ C warp_max(C v) {
#pragma unroll
  for (int o = kWarp / 2; o > 0; o /= 2) v = max_nan(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
template <class C>
__device__ __forceinline__ C warp_sum(C v) {
#pragma unroll
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Every thread of the block gets the result. `shared` holds kRowThreads / 32
// values; the trailing __syncthreads lets the caller reuse it at once.
template <class C, bool Max>
__device__ C block_reduce(C v, C* shared) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  v = Max ? warp_max(v) : warp_sum(v);
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  C r = Max ? neg_inf<C>() : C(0);
  for (int w = 0; w < warps; ++w) r = Max ? max_nan(r, shared[w]) : r + shared[w];  // fixed order: deterministic
  __syncthreads();
  return r;
}

// The threads of one row: a warp (Block = false) or the whole block.
template <class C, bool Block>
struct RowReducer {
  C* shared;
  __device__ C max(C v) const {
    if constexpr (Block) return block_reduce<C, true>(v, shared);
    else return warp_max(v);
  }
  __device__ C sum(C v) const {
    if constexpr (Block) return block_reduce<C, false>(v, shared);
    else return warp_sum(v);
  }
};

// ---- forward, last dim ----
// One row x[0..n) -> y, by `count` threads (the row's warp or block), this
// one being `tid`. Rows in a grid-stride loop.
template <class T, bool Block>
__device__ void softmax_row(const T* x, T* y, int64_t n, int tid, int count, bool log, const RowReducer<compute_t<T>, Block>& red) {
  using C = compute_t<T>;
  C m = neg_inf<C>();
  for (int64_t i = tid; i < n; i += count) m = max_nan(m, convert<C>(x[i]));
  m = red.max(m);
  if (!isfinite(m)) {
    for (int64_t i = tid; i < n; i += count) y[i] = convert<T>(quiet_nan<C>());
    return;
  }
  C others = 0, at_max = 0;
  for (int64_t i = tid; i < n; i += count) {
    const C v = convert<C>(x[i]);
    if (v == m) at_max += C(1);
    else others += exp_shifted(v, m);
  }
  others = red.sum(others);
  at_max = red.sum(at_max);
  if (log) {
    const C lse = log1p(others + (at_max - C(1)));  // logsumexp - m; at_max >= 1
    for (int64_t i = tid; i < n; i += count) y[i] = convert<T>(log_softmax_of(convert<C>(x[i]), m, lse));
  } else {
    const C inv = C(1) / (others + at_max);
    for (int64_t i = tid; i < n; i += count) y[i] = convert<T>(exp_shifted(convert<C>(x[i]), m) * inv);
  }
}

template <class T>
__global__ void softmax_warp_rows_kernel(const T* in, T* out, int64_t rows, int64_t n, bool log) {
  const int lane = threadIdx.x % kWarp;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kWarpRowsPerBlock + threadIdx.x / kWarp;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kWarpRowsPerBlock;
  const RowReducer<compute_t<T>, false> red{nullptr};
  for (int64_t r = first; r < rows; r += step) softmax_row<T, false>(in + r * n, out + r * n, n, lane, kWarp, log, red);
}

template <class T>
__global__ void softmax_block_rows_kernel(const T* in, T* out, int64_t rows, int64_t n, bool log) {
  __shared__ compute_t<T> shared[kRowThreads / kWarp];
  const RowReducer<compute_t<T>, true> red{shared};
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
    softmax_row<T, true>(in + r * n, out + r * n, n, threadIdx.x, blockDim.x, log, red);
}

// ---- forward, inner > 1: a thread per column ----
template <class T>
__global__ void softmax_columns_kernel(const T* in, T* out, int64_t outer, int64_t n, int64_t inner, bool log) {
  using C = compute_t<T>;
  const int64_t columns = outer * inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < columns; c += step) {
    const int64_t o = c / inner, j = c % inner;
    const T* x = in + o * n * inner + j;
    T* y = out + o * n * inner + j;
    C m = neg_inf<C>();
    for (int64_t i = 0; i < n; ++i) m = max_nan(m, convert<C>(x[i * inner]));
    if (!isfinite(m)) {
      for (int64_t i = 0; i < n; ++i) y[i * inner] = convert<T>(quiet_nan<C>());
      continue;
    }
    C others = 0, at_max = 0;
    for (int64_t i = 0; i < n; ++i) {
      const C v = convert<C>(x[i * inner]);
      if (v == m) at_max += C(1);
      else others += exp_shifted(v, m);
    }
    if (log) {
      const C lse = log1p(others + (at_max - C(1)));
      for (int64_t i = 0; i < n; ++i) y[i * inner] = convert<T>(log_softmax_of(convert<C>(x[i * inner]), m, lse));
    } else {
      const C inv = C(1) / (others + at_max);
      for (int64_t i = 0; i < n; ++i) y[i * inner] = convert<T>(exp_shifted(convert<C>(x[i * inner]), m) * inv);
    }
  }
}

// ---- backward: softmax gx = y (g - sum(g y)); log_softmax gx = g - exp(y) sum(g) ----
template <class T, bool Block>
__device__ void backward_row(const T* g, const T* y, T* o, int64_t n, int tid, int count, bool log,
                             const RowReducer<compute_t<T>, Block>& red) {
  using C = compute_t<T>;
  C s = 0;
  for (int64_t i = tid; i < n; i += count) s += log ? convert<C>(g[i]) : convert<C>(g[i]) * convert<C>(y[i]);
  s = red.sum(s);
  for (int64_t i = tid; i < n; i += count) {
    const C gi = convert<C>(g[i]), yi = convert<C>(y[i]);
    o[i] = convert<T>(log ? gi - exp(yi) * s : yi * (gi - s));
  }
}

template <class T>
__global__ void backward_warp_rows_kernel(const T* g, const T* y, T* out, int64_t rows, int64_t n, bool log) {
  const int lane = threadIdx.x % kWarp;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kWarpRowsPerBlock + threadIdx.x / kWarp;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kWarpRowsPerBlock;
  const RowReducer<compute_t<T>, false> red{nullptr};
  for (int64_t r = first; r < rows; r += step)
    backward_row<T, false>(g + r * n, y + r * n, out + r * n, n, lane, kWarp, log, red);
}

template <class T>
__global__ void backward_block_rows_kernel(const T* g, const T* y, T* out, int64_t rows, int64_t n, bool log) {
  __shared__ compute_t<T> shared[kRowThreads / kWarp];
  const RowReducer<compute_t<T>, true> red{shared};
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
    backward_row<T, true>(g + r * n, y + r * n, out + r * n, n, threadIdx.x, blockDim.x, log, red);
}

template <class T>
__global__ void backward_columns_kernel(const T* g, const T* y, T* out, int64_t outer, int64_t n, int64_t inner,
                                        bool log) {
  using C = compute_t<T>;
  const int64_t columns = outer * inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < columns; c += step) {
    const int64_t base = (c / inner) * n * inner + c % inner;
    C s = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = base + i * inner;
      s += log ? convert<C>(g[k]) : convert<C>(g[k]) * convert<C>(y[k]);
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = base + i * inner;
      const C gk = convert<C>(g[k]), yk = convert<C>(y[k]);
      out[k] = convert<T>(log ? gk - exp(yk) * s : yk * (gk - s));
    }
  }
}

// ---- host side ----
struct Shape {
  int64_t outer = 1, n = 1, inner = 1;
  Shape(const Tensor& t, int64_t dim) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d < dim) outer *= t.size(d);
      else if (d > dim) inner *= t.size(d);
    }
    n = t.dim() == 0 ? 1 : t.size(dim);
  }
};

unsigned blocks_for(int64_t units, int64_t per_block) {
  const int64_t b = (units + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

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

void check_operands(const char* op, std::initializer_list<const Tensor*> ts) {
  const Tensor& first = **ts.begin();
  for (const Tensor* t : ts) {
    EMBER_CHECK(t->device().is_cuda() && t->device() == first.device(), op, ": CUDA kernel needs every tensor on ",
                first.device(), ", got one on ", t->device());
    EMBER_CHECK(t->is_contiguous() && t->dtype() == first.dtype() && t->sizes() == first.sizes(), op,
                ": CUDA kernel needs contiguous tensors of one dtype and shape");
  }
}

void softmax_kernel(const Tensor& in, Tensor& out, int64_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  check_operands(op, {&in, &out});
  if (in.numel() == 0) return;
  const Shape s(in, dim);
  const int16_t index = launch_device(in.device());
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  dispatch_floating(in.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    if (s.inner == 1 && s.n <= kMaxWarpRow)
      softmax_warp_rows_kernel<T><<<blocks_for(s.outer, kWarpRowsPerBlock), kWarp * kWarpRowsPerBlock, 0, stream>>>(
          x, y, s.outer, s.n, log);
    else if (s.inner == 1)
      softmax_block_rows_kernel<T><<<blocks_for(s.outer, 1), kRowThreads, 0, stream>>>(x, y, s.outer, s.n, log);
    else
      softmax_columns_kernel<T><<<blocks_for(s.outer * s.inner, kThreads), kThreads, 0, stream>>>(
          x, y, s.outer, s.n, s.inner, log);
  });
  check_launch(op);
}

void softmax_backward_kernel(const Tensor& grad, const Tensor& y, Tensor& out, int64_t dim, bool log) {
  const char* op = log ? "log_softmax_backward" : "softmax_backward";
  check_operands(op, {&y, &grad, &out});
  if (y.numel() == 0) return;
  const Shape s(y, dim);
  const int16_t index = launch_device(y.device());
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  dispatch_floating(y.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* g = static_cast<const T*>(grad.data_ptr());
    const T* yp = static_cast<const T*>(y.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    if (s.inner == 1 && s.n <= kMaxWarpRow)
      backward_warp_rows_kernel<T><<<blocks_for(s.outer, kWarpRowsPerBlock), kWarp * kWarpRowsPerBlock, 0, stream>>>(
          g, yp, o, s.outer, s.n, log);
    else if (s.inner == 1)
      backward_block_rows_kernel<T><<<blocks_for(s.outer, 1), kRowThreads, 0, stream>>>(g, yp, o, s.outer, s.n, log);
    else
      backward_columns_kernel<T><<<blocks_for(s.outer * s.inner, kThreads), kThreads, 0, stream>>>(
          g, yp, o, s.outer, s.n, s.inner, log);
  });
  check_launch(op);
}

constexpr uint32_t kCudaSoftmaxOpDTypes[] = {kMaskFloating, kMaskFloating};
static_assert(std::size(kCudaSoftmaxOpDTypes) == std::size(nn::functional::kSoftmaxOpNames));

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(nn::functional::softmax_slot, softmax_kernel, kMaskFloating);
EMBER_REGISTER_CUDA_OP_DTYPES(nn::functional::softmax_slot, kCudaSoftmaxOpDTypes);
EMBER_REGISTER_CUDA_KERNEL(nn::functional::softmax_backward_slot, softmax_backward_kernel, kMaskFloating);
EMBER_REGISTER_CUDA_OP_DTYPES(nn::functional::softmax_backward_slot, kCudaSoftmaxOpDTypes);

}  // namespace ember::cuda::kernels
