// CUDA kernels of advanced indexing: element offsets (index_offsets_slot),
// index (index_gather_slot), index_put_ (index_put_slot) and the contiguous
// index_select (index_select_slot). Index values are checked on the device
// (Note [CUDA index bound checks] in index_common.cuh); index_put_ with
// accumulate sorts its writes (Note [Sorted accumulation]), as PyTorch's
// CUDA index_put_ does, so it is deterministic.
#include "ember/core/determinism.h"
#include "ember/ops/factories.h"
#include "index_common.cuh"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

// out = [acc +] checked(index) * stride; a bad index gives offset 0 (never
// used: the host raises before any kernel follows the offsets).
struct OffsetOp {
  DeviceBound bound;
  int64_t stride;
  unsigned long long* flag;
  __device__ int64_t operator()(int64_t i) const {
    const int64_t k = device_checked_index(i, bound, flag);
    return k < 0 ? 0 : k * stride;
  }
  __device__ int64_t operator()(int64_t acc, int64_t i) const {
    const int64_t k = device_checked_index(i, bound, flag);
    return k < 0 ? acc : acc + k * stride;
  }
};

void index_offsets_kernel(TensorIterator& iter, const IndexBound& bound, int64_t stride) {
  if (iter.numel() == 0) return;
  const int16_t device = launch_device(iter.device());
  detail::ScopedDevice on(device, bound.op);
  IndexErrorFlag flag(iter.device(), bound.op);
  const OffsetOp op{device_bound(bound), stride, flag.get()};
  if (iter.ninputs() == 1) elementwise_launch<int64_t, int64_t>(iter, op);
  else elementwise_launch<int64_t, int64_t, int64_t>(iter, op);
  flag.raise_if_set(bound);
}

// Operands (out, src, offsets): out = src[offsets]; src is read as an address.
template <class T>
struct GatherOp {
  __device__ T operator()(RawElement src, int64_t off) const { return reinterpret_cast<const T*>(src.p)[off]; }
};

void index_gather_kernel(TensorIterator& iter) {
  dispatch_element_size(element_size(iter.dtype(0)), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    elementwise_launch<T, RawElement, int64_t>(iter, GatherOp<T>{});
  });
}

// Operands (dst, values, offsets): dst[offsets] = values; repeated offsets:
// one of the values wins, as in PyTorch.
template <class T>
__global__ void index_put_assign_kernel(Geometry g) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.numel; i += stride) {
    int64_t off[3];
    offsets_of(g, i, 3, off);
    const int64_t f = *reinterpret_cast<const int64_t*>(g.data[2] + off[2]);
    reinterpret_cast<T*>(g.data[0] + off[0])[f] = load_arg<T>(g, 1, off[1]);
  }
}

// Each write's destination (in elements from data[0]) and value (byte offset
// from data[1]), in the iterator's order: the keys of the sorted accumulation.
__global__ void index_put_keys_kernel(Geometry g, int64_t element_size, int64_t* keys, int64_t* value_off) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.numel; i += stride) {
    int64_t off[3];
    offsets_of(g, i, 3, off);
    keys[i] = off[0] / element_size + *reinterpret_cast<const int64_t*>(g.data[2] + off[2]);
    value_off[i] = off[1];
  }
}

void index_put_kernel(TensorIterator& iter, bool accumulate) {
  const int64_t n = iter.numel();
  if (n == 0) return;
  const char* op = iter.op_name();
  const Geometry g = make_geometry(iter);
  EMBER_CHECK(g.host_scalars == 0, op, ": values must be on ", iter.device());
  const int16_t device = launch_device(iter.device());
  detail::ScopedDevice on(device, op);
  cudaStream_t stream = detail::current_cuda_stream(device);
  // Without accumulate, repeated offsets race (one value wins): with
  // deterministic algorithms on, the sorted path makes the last one win, as
  // PyTorch's deterministic index_put_.
  if (!accumulate && !are_deterministic_algorithms_enabled()) {
    dispatch_element_size(element_size(iter.dtype(0)), op, [&](auto tag) {
      index_put_assign_kernel<decltype(tag)><<<grid_for(n), kThreads, 0, stream>>>(g);
    });
    check_launch(op);
    return;
  }
  const TensorOptions long_opts = TensorOptions(kInt64).device(iter.device());
  Tensor keys = empty({n}, long_opts), value_off = empty({n}, long_opts);
  index_put_keys_kernel<<<grid_for(n), kThreads, 0, stream>>>(g, static_cast<int64_t>(element_size(iter.dtype(0))),
                                                              static_cast<int64_t*>(keys.data_ptr()),
                                                              static_cast<int64_t*>(value_off.data_ptr()));
  check_launch(op);
  sorted_accumulate(iter.dtype(0), accumulate ? ScatterOp::Add : ScatterOp::Assign, g.data[0], g.data[1], Scalar(0),
                    keys, value_off, n, device, stream, op);
}

// out[o, j, k] = self[o, index[j], k] over contiguous self [outer, size, inner]
// and out [outer, n, inner].
template <class T>
__global__ void index_select_rows_kernel(const T* self, T* out, const int64_t* index, int64_t n, int64_t size,
                                         int64_t inner, int64_t total, DeviceBound bound, unsigned long long* flag) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const int64_t k = e % inner;
    const int64_t r = e / inner;  // row of out: o * n + j
    const int64_t j = r % n, o = r / n;
    const int64_t i = device_checked_index(index[j], bound, flag);
    if (i >= 0) out[e] = self[(o * size + i) * inner + k];
  }
}

__global__ void check_indices_kernel(const int64_t* index, int64_t n, DeviceBound bound, unsigned long long* flag) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += stride)
    device_checked_index(index[j], bound, flag);
}

void index_select_kernel(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out, const IndexBound& b) {
  const int64_t n = index.numel();
  if (n == 0) return;
  check_same_device(b.op, self, index, "index");
  check_same_device(b.op, self, out, "out");
  const int16_t device = launch_device(self.device());
  detail::ScopedDevice on(device, b.op);
  cudaStream_t stream = detail::current_cuda_stream(device);
  IndexErrorFlag flag(self.device(), b.op);
  const int64_t* idx = static_cast<const int64_t*>(index.data_ptr());
  const int64_t total = out.numel();
  if (total == 0) {
    // Nothing to copy, but the indices are still checked (as the CPU).
    check_indices_kernel<<<grid_for(n), kThreads, 0, stream>>>(idx, n, device_bound(b), flag.get());
  } else {
    int64_t inner = 1;
    for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
    dispatch_element_size(self.element_size(), b.op, [&](auto tag) {
      using T = decltype(tag);
      index_select_rows_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(
          static_cast<const T*>(self.data_ptr()), static_cast<T*>(out.data_ptr()), idx, n, self.size(dim), inner,
          total, device_bound(b), flag.get());
    });
  }
  check_launch(b.op);
  flag.raise_if_set(b);
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(index_offsets_slot, index_offsets_kernel, dtype_bit(kInt64));
EMBER_REGISTER_CUDA_KERNEL(index_gather_slot, index_gather_kernel, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(index_put_slot, index_put_kernel, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(index_select_slot, index_select_kernel, kMaskAll);
constexpr uint32_t kCudaIndexPutOpDTypes[] = {kMaskAll, kMaskAll};  // index_put, index_put_accumulate
static_assert(std::size(kCudaIndexPutOpDTypes) == std::size(kIndexPutOpNames));
EMBER_REGISTER_CUDA_OP_DTYPES(index_put_slot, kCudaIndexPutOpDTypes);

}  // namespace ember::cuda::kernels
