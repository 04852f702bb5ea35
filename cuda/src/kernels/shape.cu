// CUDA kernels of the shape family (kernels/slots/shape_kernels.h):
// remap_copy_slot (flip, roll, non-constant pad, repeat_interleave,
// the sampling ops' index maps) and triangle_slot (tril, triu). Both only
// move elements, so they dispatch on the element size.
#include <vector>

#include "ember/ops/factories.h"
#include "index_common.cuh"
#include "kernels/slots/shape_kernels.h"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

constexpr int kMaxRemapDims = 25;
struct RemapGeometry {
  int nd;
  int64_t sizes[kMaxRemapDims];        // out's
  int64_t out_strides[kMaxRemapDims];  // in elements
  int64_t table_start[kMaxRemapDims];  // where dim d's source offsets start in the table
};

// out[j0, ..., jn] = src[sum_d table[start_d + j_d]] (the table holds each
// map entry times src's stride, in elements).
template <class T>
__global__ void remap_copy_kernel(const T* src, T* out, const int64_t* table, RemapGeometry g, int64_t total) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    int64_t rest = e, in_off = 0, out_off = 0;
    for (int d = g.nd - 1; d >= 0; --d) {
      const int64_t c = rest % g.sizes[d];
      rest /= g.sizes[d];
      in_off += table[g.table_start[d] + c];
      out_off += c * g.out_strides[d];
    }
    out[out_off] = src[in_off];
  }
}

void remap_copy_cuda(const Tensor& src, Tensor& out, const std::vector<std::vector<int64_t>>& maps) {
  constexpr const char* kOp = "remap_copy";
  const int64_t total = out.numel();
  if (total == 0) return;
  const int64_t nd = out.dim();
  check_same_device(kOp, out, src, "the input");
  EMBER_CHECK(nd <= kMaxRemapDims, kOp, ": the CUDA kernel takes tensors of at most ", kMaxRemapDims,
              " dimensions, got ", nd);
  RemapGeometry g{static_cast<int>(nd), {}, {}, {}};
  int64_t entries = 0;
  for (int64_t d = 0; d < nd; ++d) {
    g.sizes[d] = out.size(d);
    g.out_strides[d] = out.stride(d);
    g.table_start[d] = entries;
    entries += static_cast<int64_t>(maps[d].size());
  }
  // The maps as source offsets, one table on the host, copied to the device.
  Tensor table = empty({std::max<int64_t>(entries, 1)}, TensorOptions(kInt64));
  int64_t* t = table.data_ptr<int64_t>();
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t s = src.stride(d);
    for (size_t j = 0; j < maps[d].size(); ++j) *t++ = maps[d][j] * s;
  }
  const Tensor device_table = table.to(src.device());
  const int16_t device = launch_device(out.device());
  detail::ScopedDevice on(device, kOp);
  cudaStream_t stream = detail::current_cuda_stream(device);
  dispatch_element_size(out.element_size(), kOp, [&](auto tag) {
    using T = decltype(tag);
    remap_copy_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(
        static_cast<const T*>(src.data_ptr()), static_cast<T*>(out.data_ptr()),
        static_cast<const int64_t*>(device_table.data_ptr()), g, total);
  });
  check_launch(kOp);
}

// Contiguous src and out of one shape: keep where col - row <= diagonal
// (lower) or >= diagonal (upper), zero bits (zero in every dtype) elsewhere.
template <class T>
__global__ void triangle_kernel(const T* src, T* out, int64_t rows, int64_t cols, int64_t diagonal, bool lower,
                                int64_t total) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const int64_t col = e % cols;
    const int64_t row = (e / cols) % rows;
    const int64_t k = col - row;
    const bool keep = lower ? k <= diagonal : k >= diagonal;
    out[e] = keep ? src[e] : T{};
  }
}

void triangle_cuda(const Tensor& src, Tensor& out, int64_t diagonal, bool lower) {
  const char* op = kTriangleOpNames[lower ? 1 : 0];
  const int64_t total = out.numel();
  if (total == 0) return;
  const int16_t device = launch_device(out.device());
  detail::ScopedDevice on(device, op);
  cudaStream_t stream = detail::current_cuda_stream(device);
  dispatch_element_size(out.element_size(), op, [&](auto tag) {
    using T = decltype(tag);
    triangle_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(static_cast<const T*>(src.data_ptr()),
                                                                 static_cast<T*>(out.data_ptr()), src.size(-2),
                                                                 src.size(-1), diagonal, lower, total);
  });
  check_launch(op);
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(remap_copy_slot, remap_copy_cuda, kMaskAll);
EMBER_REGISTER_CUDA_KERNEL(triangle_slot, triangle_cuda, kMaskAll);
constexpr uint32_t kCudaTriangleOpDTypes[] = {kMaskAll, kMaskAll};  // triu, tril
static_assert(std::size(kCudaTriangleOpDTypes) == std::size(kTriangleOpNames));
EMBER_REGISTER_CUDA_OP_DTYPES(triangle_slot, kCudaTriangleOpDTypes);

}  // namespace ember::cuda::kernels
