// The host half of elementwise_launch (common.cuh).
#include <cstring>

#include "../check.h"
#include "../stream_internal.h"
#include "common.cuh"
#include "reduce.cuh"

namespace ember::cuda::kernels {

Geometry make_geometry(const TensorIterator& iter) {
  EMBER_CHECK(iter.ndim() <= kMaxDims, iter.op_name(), ": the CUDA kernels take at most ", kMaxDims,
              " dimensions after coalescing, got ", iter.ndim());
  EMBER_CHECK(iter.ntensors() <= kMaxArgs, iter.op_name(), ": the CUDA kernels take at most ", kMaxArgs,
              " operands, got ", iter.ntensors());
  Geometry g;
  g.ndim = iter.ndim();
  g.numel = iter.numel();
  for (int d = 0; d < g.ndim; ++d) g.sizes[d] = iter.shape()[d];
  if (g.ndim == 0) {  // a 0-dim result: one element
    g.ndim = 1;
    g.sizes[0] = 1;
  }
  for (int k = 0; k < iter.ntensors(); ++k) {
    const Tensor& t = iter.tensor(k);
    if (t.device().is_cuda()) {
      g.data[k] = iter.data(k);
      for (int d = 0; d < iter.ndim(); ++d) g.strides[k][d] = iter.strides(k)[d];
      continue;
    }
    EMBER_CHECK(k >= iter.noutputs() && t.numel() == 1 && t.device().is_cpu(), iter.op_name(),
                ": operand ", k, " is on ", t.device(), ", the others on ", iter.device(),
                " (only 0-dim CPU inputs may meet CUDA tensors)");
    std::memcpy(g.scalar[k], iter.data(k), element_size(t.dtype()));
    g.host_scalars |= 1u << k;
  }
  return g;
}

int16_t launch_device(Device device) { return detail::resolve_index(device.index, "cuda kernel"); }

int grid_for(int64_t n) {
  const int64_t per_block = int64_t{kThreads} * 4;
  const int64_t blocks = (n + per_block - 1) / per_block;
  return static_cast<int>(blocks < (int64_t{1} << 20) ? (blocks > 0 ? blocks : 1) : (int64_t{1} << 20));
}

void check_launch(const char* op) { EMBER_CUDA_CHECK(cudaGetLastError(), op); }

}  // namespace ember::cuda::kernels

namespace ember::cuda::kernels {

RowLayout to_rows(const Tensor& in, uint64_t mask) {
  std::vector<int64_t> perm;
  RowLayout r;
  for (int64_t d = 0; d < in.dim(); ++d)
    if (!((mask >> d) & 1u)) {
      perm.push_back(d);
      r.num_rows *= in.size(d);
    }
  for (int64_t d = 0; d < in.dim(); ++d)
    if ((mask >> d) & 1u) {
      perm.push_back(d);
      r.num_cols *= in.size(d);
    }
  // Reduced dims leading (mask = the first k of n > k dims) in a contiguous input: no copy.
  const int64_t nd = in.dim();
  const uint64_t all = nd >= 64 ? ~uint64_t{0} : (uint64_t{1} << nd) - 1;
  const uint64_t m = mask & all;
  const bool prefix = m != 0 && m != all && (m & (m + 1)) == 0;
  if (prefix && in.is_contiguous() && r.num_rows > 1) {
    r.rows = in;
    r.reduced_outer = true;
    return r;
  }
  r.rows = in.permute(perm).contiguous();
  return r;
}

}  // namespace ember::cuda::kernels
