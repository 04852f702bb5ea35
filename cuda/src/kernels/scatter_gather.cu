// CUDA kernels of gather and scatter along one dim (gather_slot, scatter_slot,
// scatter_scalar_slot). As on the CPU, the iterator walks every position but
// `dim` (operands restrided to size 1 there) and the kernel walks the `n`
// entries along dim with the strides of ScatterGatherDims: one thread per
// (position, entry) pair.
//
// Scatters with a reduction use atomics (atomic_combine in index_common.cuh),
// so float add and multiply are not deterministic run to run, as in PyTorch.
// With deterministic algorithms on (Note [Sorted accumulation]), as PyTorch's
// use_deterministic_algorithms: scatter with a src tensor (a race on repeated
// indices), scatter_add / index_add / scatter_reduce sum and mean sort their
// writes and apply them in the CPU's order; scatter_reduce prod and scatter
// with reduce "multiply" raise (PyTorch has no deterministic kernel for them);
// amax/amin keep their atomics (their result does not depend on the order) and
// a scatter of one scalar value writes the same value whatever the order.
#include <string>

#include "ember/core/determinism.h"
#include "ember/ops/factories.h"
#include "index_common.cuh"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

// ScatterGatherDims as the kernels see them.
struct PairDims {
  int64_t positions;     // iterator elements
  int64_t n;             // entries along dim per position
  int64_t self_stride;   // in elements
  int64_t index_stride;  // in elements
  int64_t src_stride;    // in elements (src of scatter, out of gather)
  bool entry_inner;      // consecutive threads walk entries (dim innermost)
  DeviceBound bound;
};

PairDims pair_dims(const TensorIterator& iter, const ScatterGatherDims& d) {
  return {iter.numel(), d.n, d.self_stride, d.index_stride, d.src_stride, d.dim_is_inner, device_bound(d.bound)};
}

__device__ __forceinline__ void split_pair(const PairDims& d, int64_t e, int64_t& p, int64_t& j) {
  if (d.entry_inner) {
    p = e / d.n;
    j = e - p * d.n;
  } else {
    j = e / d.positions;
    p = e - j * d.positions;
  }
}

// Operands (out, self, index): out[j] = self[index[j]].
template <class T>
__global__ void gather_kernel(Geometry g, PairDims d, unsigned long long* flag) {
  const int64_t total = d.positions * d.n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    int64_t p, j;
    split_pair(d, e, p, j);
    int64_t off[3];
    offsets_of(g, p, 3, off);
    const int64_t raw = reinterpret_cast<const int64_t*>(g.data[2] + off[2])[j * d.index_stride];
    const int64_t k = device_checked_index(raw, d.bound, flag);
    if (k < 0) continue;
    reinterpret_cast<T*>(g.data[0] + off[0])[j * d.src_stride] =
        reinterpret_cast<const T*>(g.data[1] + off[1])[k * d.self_stride];
  }
}

void gather_cuda(TensorIterator& iter, const ScatterGatherDims& dims) {
  const PairDims d = pair_dims(iter, dims);
  const int64_t total = d.positions * d.n;
  if (total == 0) return;
  const Geometry g = make_geometry(iter);
  EMBER_CHECK(g.host_scalars == 0, dims.bound.op, ": every tensor must be on ", iter.device());
  const int16_t device = launch_device(iter.device());
  detail::ScopedDevice on(device, dims.bound.op);
  cudaStream_t stream = detail::current_cuda_stream(device);
  IndexErrorFlag flag(iter.device(), dims.bound.op);
  dispatch_element_size(element_size(iter.dtype(0)), dims.bound.op, [&](auto tag) {
    gather_kernel<decltype(tag)><<<grid_for(total), kThreads, 0, stream>>>(g, d, flag.get());
  });
  check_launch(dims.bound.op);
  flag.raise_if_set(dims.bound);
}

// Operands (self, src, index) with kHasSrc... as a run-time flag: index is
// operand 2 with src, 1 without (then every value is `constant`).
template <ScatterOp Op, class T>
__global__ void scatter_kernel(Geometry g, PairDims d, bool has_src, T constant, unsigned long long* flag) {
  const int ix = has_src ? 2 : 1;
  const int64_t total = d.positions * d.n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    int64_t p, j;
    split_pair(d, e, p, j);
    int64_t off[3];
    offsets_of(g, p, 3, off);
    const int64_t raw = reinterpret_cast<const int64_t*>(g.data[ix] + off[ix])[j * d.index_stride];
    const int64_t k = device_checked_index(raw, d.bound, flag);
    if (k < 0) continue;
    T* dst = reinterpret_cast<T*>(g.data[0] + off[0]) + k * d.self_stride;
    const T v = has_src ? reinterpret_cast<const T*>(g.data[1] + off[1])[j * d.src_stride] : constant;
    if constexpr (Op == ScatterOp::Assign) *dst = v;
    else atomic_combine<Op>(dst, v);
  }
}

// The writes of a scatter as sorted-accumulation keys (Note [Sorted
// accumulation]): pair e = p * n + j (the CPU's order for each destination),
// destination in elements from data[0], value as a byte offset from data[1].
__global__ void scatter_keys_kernel(Geometry g, PairDims d, bool has_src, int64_t element_size, int64_t* keys,
                                    int64_t* value_off, unsigned long long* flag) {
  const int ix = has_src ? 2 : 1;
  const int64_t total = d.positions * d.n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const int64_t p = e / d.n, j = e - p * d.n;
    int64_t off[3];
    offsets_of(g, p, 3, off);
    const int64_t raw = reinterpret_cast<const int64_t*>(g.data[ix] + off[ix])[j * d.index_stride];
    const int64_t k = device_checked_index(raw, d.bound, flag);
    keys[e] = off[0] / element_size + (k < 0 ? 0 : k) * d.self_stride;
    value_off[e] = has_src ? off[1] + j * d.src_stride * element_size : 0;
  }
}

std::string op_label(const ScatterGatherDims& dims, ScatterOp op) {
  return std::string(dims.bound.op) + " (reduce " + kScatterOpNames[static_cast<int>(op)] + ")";
}

void scatter_cuda(TensorIterator& iter, const ScatterGatherDims& dims, ScatterOp op, bool has_src,
                  const Scalar& value) {
  const PairDims d = pair_dims(iter, dims);
  const int64_t total = d.positions * d.n;
  if (total == 0) return;
  const char* name = dims.bound.op;
  const DType dt = iter.dtype(0);
  EMBER_CHECK(!(dt == kComplex128 && op != ScatterOp::Assign && op != ScatterOp::Add), name,
              ": no CUDA kernel for reduce \"", kScatterOpNames[static_cast<int>(op)], "\" on ", dt);
  EMBER_CHECK(!(is_complex(dt) && (op == ScatterOp::Amax || op == ScatterOp::Amin)), name,
              ": no CUDA kernel for reduce \"", kScatterOpNames[static_cast<int>(op)], "\" on ", dt);
  const Geometry g = make_geometry(iter);
  EMBER_CHECK(g.host_scalars == 0, name, ": every tensor must be on ", iter.device());
  const int16_t device = launch_device(iter.device());
  detail::ScopedDevice on(device, name);
  cudaStream_t stream = detail::current_cuda_stream(device);
  IndexErrorFlag flag(iter.device(), name);

  const bool deterministic = are_deterministic_algorithms_enabled();
  if (deterministic && op == ScatterOp::Multiply) ::ember::detail::alert_not_deterministic(op_label(dims, op).c_str());
  if (deterministic && (op == ScatterOp::Add || (op == ScatterOp::Assign && has_src))) {
    const TensorOptions long_opts = TensorOptions(kInt64).device(iter.device());
    Tensor keys = empty({total}, long_opts), value_off = empty({total}, long_opts);
    scatter_keys_kernel<<<grid_for(total), kThreads, 0, stream>>>(
        g, d, has_src, static_cast<int64_t>(element_size(dt)), static_cast<int64_t*>(keys.data_ptr()),
        static_cast<int64_t*>(value_off.data_ptr()), flag.get());
    check_launch(name);
    flag.raise_if_set(dims.bound);  // before any write
    sorted_accumulate(dt, op, g.data[0], has_src ? g.data[1] : nullptr, value, keys, value_off, total, device,
                      stream, name);
    return;
  }

  dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    const T c = has_src ? T{} : device_value<T>(value);
    const dim3 grid(grid_for(total)), block(kThreads);
    switch (op) {
      case ScatterOp::Assign:
        scatter_kernel<ScatterOp::Assign, T><<<grid, block, 0, stream>>>(g, d, has_src, c, flag.get());
        break;
      case ScatterOp::Add:
        scatter_kernel<ScatterOp::Add, T><<<grid, block, 0, stream>>>(g, d, has_src, c, flag.get());
        break;
      case ScatterOp::Multiply:
        if constexpr (!std::is_same_v<T, Complex<double>>)
          scatter_kernel<ScatterOp::Multiply, T><<<grid, block, 0, stream>>>(g, d, has_src, c, flag.get());
        break;
      case ScatterOp::Amax:
        if constexpr (!is_complex_device_v<T>)
          scatter_kernel<ScatterOp::Amax, T><<<grid, block, 0, stream>>>(g, d, has_src, c, flag.get());
        break;
      case ScatterOp::Amin:
        if constexpr (!is_complex_device_v<T>)
          scatter_kernel<ScatterOp::Amin, T><<<grid, block, 0, stream>>>(g, d, has_src, c, flag.get());
        break;
    }
  });
  check_launch(name);
  flag.raise_if_set(dims.bound);
}

void scatter_src_cuda(TensorIterator& iter, const ScatterGatherDims& dims, ScatterOp op) {
  scatter_cuda(iter, dims, op, true, Scalar(0));
}
void scatter_scalar_cuda(TensorIterator& iter, const ScatterGatherDims& dims, ScatterOp op, const Scalar& value) {
  scatter_cuda(iter, dims, op, false, value);
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(gather_slot, gather_cuda, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(scatter_slot, scatter_src_cuda, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(scatter_scalar_slot, scatter_scalar_cuda, kMaskAll);
// assign and add: every dtype; multiply: not complex128 (a 16-byte
// compare-and-swap); amax/amin: real and bool (the op refuses complex).
constexpr uint32_t kCudaScatterOpDTypes[] = {kMaskAll, kMaskAll, kMaskAll & ~dtype_bit(kComplex128),
                                             kMaskReal | kMaskBool, kMaskReal | kMaskBool};
static_assert(std::size(kCudaScatterOpDTypes) == std::size(kScatterOpNames));
EMBER_REGISTER_CUDA_OP_DTYPES(scatter_slot, kCudaScatterOpDTypes);
EMBER_REGISTER_CUDA_OP_DTYPES(scatter_scalar_slot, kCudaScatterOpDTypes);

}  // namespace ember::cuda::kernels
