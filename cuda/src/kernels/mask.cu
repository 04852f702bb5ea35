// CUDA kernels of masked_select, nonzero and masked_scatter_. Their output
// size (or, for masked_scatter_, the check of source's size) depends on the
// data: each marks the selected elements (0/1 as int64), takes an inclusive
// prefix sum (CUB's scan; element i's output slot is sum[i] - 1), reads the
// total back to the host (a wait for the current stream, as PyTorch's CUDA
// nonzero and masked_select do), allocates the result, then fills it.
#include "ember/ops/factories.h"
#include "index_common.cuh"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

// As PyTorch's CUDA nonzero (MAX_DIMS).
constexpr int kMaxNonzeroDims = 25;
struct NonzeroSizes {
  int nd;
  int64_t sizes[kMaxNonzeroDims];
};

template <class T>
__device__ __forceinline__ bool nonzero_value(T v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else if constexpr (is_complex_device_v<T>) return v.re != 0 || v.im != 0;
  else if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return static_cast<float>(v) != 0.f;
  else return v != T(0);  // NaN counts as non-zero
}

template <class T>
__global__ void mark_nonzero_kernel(const T* x, int64_t n, int64_t* marks) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    marks[i] = nonzero_value(x[i]) ? 1 : 0;
}

// The inclusive prefix sum of the marks of x's non-zeros (x contiguous, n > 0)
// and its total (read back).
struct Selection {
  Tensor sum;  // int64 [n]
  int64_t total = 0;
};
template <class T>
Selection select(const T* x, int64_t n, Device device, cudaStream_t stream, const char* op) {
  const TensorOptions long_opts = TensorOptions(kInt64).device(device);
  Tensor marks = empty({n}, long_opts);
  mark_nonzero_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(x, n, static_cast<int64_t*>(marks.data_ptr()));
  check_launch(op);
  Selection s{empty({n}, long_opts), 0};
  inclusive_sum_int64(marks, s.sum, n, stream, op);
  s.total = read_int64(static_cast<const int64_t*>(s.sum.data_ptr()) + (n - 1), stream, op);
  return s;
}

template <class T>
__global__ void masked_select_fill_kernel(const T* x, const bool* mask, const int64_t* sum, int64_t n, T* out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (mask[i]) out[sum[i] - 1] = x[i];
}

Tensor masked_select_cuda(const Tensor& self, const Tensor& mask) {
  constexpr const char* kOp = "masked_select";
  const int64_t n = self.numel();
  if (n == 0) return empty({0}, self.options());
  check_same_device(kOp, self, mask, "mask");
  const int16_t device = launch_device(self.device());
  detail::ScopedDevice on(device, kOp);
  cudaStream_t stream = detail::current_cuda_stream(device);
  const bool* m = static_cast<const bool*>(mask.data_ptr());
  Selection s = select(m, n, self.device(), stream, kOp);
  Tensor out = empty({s.total}, self.options());
  if (s.total == 0) return out;
  dispatch_element_size(self.element_size(), kOp, [&](auto tag) {
    using T = decltype(tag);
    masked_select_fill_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        static_cast<const T*>(self.data_ptr()), m, static_cast<const int64_t*>(s.sum.data_ptr()), n,
        static_cast<T*>(out.data_ptr()));
  });
  check_launch(kOp);
  return out;
}

// Row sum[i] - 1 of out gets the coordinates of element i (row-major).
template <class T>
__global__ void nonzero_fill_kernel(const T* x, const int64_t* sum, int64_t n, NonzeroSizes s, int64_t* out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (!nonzero_value(x[i])) continue;
    int64_t* row = out + (sum[i] - 1) * s.nd;
    int64_t rest = i;
    for (int d = s.nd - 1; d >= 0; --d) {
      row[d] = rest % s.sizes[d];
      rest /= s.sizes[d];
    }
  }
}

Tensor nonzero_cuda(const Tensor& self) {
  constexpr const char* kOp = "nonzero";
  const int64_t n = self.numel(), nd = self.dim();
  EMBER_CHECK(nd <= kMaxNonzeroDims, kOp, ": the CUDA kernel takes tensors of at most ", kMaxNonzeroDims,
              " dimensions, got ", nd);
  const TensorOptions long_opts = TensorOptions(kInt64).device(self.device());
  if (n == 0) return empty({0, nd}, long_opts);
  const int16_t device = launch_device(self.device());
  detail::ScopedDevice on(device, kOp);
  cudaStream_t stream = detail::current_cuda_stream(device);
  NonzeroSizes sizes{static_cast<int>(nd), {}};
  for (int64_t d = 0; d < nd; ++d) sizes.sizes[d] = self.size(d);
  Tensor out;
  dispatch_all(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(self.data_ptr());
    Selection s = select(x, n, self.device(), stream, kOp);
    out = empty({s.total, nd}, long_opts);
    if (s.total == 0 || nd == 0) return;
    nonzero_fill_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        x, static_cast<const int64_t*>(s.sum.data_ptr()), n, sizes, static_cast<int64_t*>(out.data_ptr()));
    check_launch(kOp);
  });
  return out;
}

template <class T>
__global__ void masked_scatter_fill_kernel(T* self, const bool* mask, const int64_t* sum, int64_t n, const T* src) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (mask[i]) self[i] = src[sum[i] - 1];
}

void masked_scatter_cuda(Tensor& self, const Tensor& mask, const Tensor& source) {
  constexpr const char* kOp = "masked_scatter_";
  const int64_t n = self.numel();
  if (n == 0) return;
  check_same_device(kOp, self, mask, "mask");
  check_same_device(kOp, self, source, "source");
  const int16_t device = launch_device(self.device());
  detail::ScopedDevice on(device, kOp);
  cudaStream_t stream = detail::current_cuda_stream(device);
  const bool* m = static_cast<const bool*>(mask.data_ptr());
  Selection s = select(m, n, self.device(), stream, kOp);
  EMBER_CHECK(s.total <= source.numel(), "masked_scatter_: number of elements of source (", source.numel(),
              ") < number of ones in mask (", s.total, ")");
  if (s.total == 0) return;
  dispatch_element_size(self.element_size(), kOp, [&](auto tag) {
    using T = decltype(tag);
    masked_scatter_fill_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        static_cast<T*>(self.data_ptr()), m, static_cast<const int64_t*>(s.sum.data_ptr()), n,
        static_cast<const T*>(source.data_ptr()));
  });
  check_launch(kOp);
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(masked_select_slot, masked_select_cuda, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(nonzero_slot, nonzero_cuda, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(masked_scatter_slot, masked_scatter_cuda, kMaskAll);

}  // namespace ember::cuda::kernels
