#pragma once
// The CUDA reduction engine. The input is laid out as a [rows, cols] matrix
// whose rows are the kept positions and whose columns are the reduced ones
// (to_rows: a permuted copy unless the layout already is that), and each row
// is reduced in a fixed order, so results are deterministic: a row is split
// into `splits` chunks, a block of 256 threads reduces a chunk (each thread
// a strided run, then a tree over the block in shared memory), and a second
// kernel combines each row's chunk results in chunk order and stores them.
// Narrow rows (32 columns or fewer) are reduced by one thread each. An input
// whose reduced dims are its leading ones, contiguous (sum over dim 0 of a
// matrix), is reduced where it lies instead: a thread per output walks down
// its column (adjacent threads read adjacent elements), the rows split into
// chunks combined in order as above.
//
// An Ops type describes a reduction:
//   using acc_t = ...;
//   __device__ acc_t identity() const;
//   __device__ acc_t reduce(acc_t, T value, int64_t col) const;
//   __device__ acc_t combine(acc_t a, acc_t b) const;
//   __device__ void store(acc_t, int64_t row) const;   // writes the outputs it holds
#include "common.cuh"
#include "ember/ops/factories.h"
#include "kernels/slots/reduce_kernels.h"
#include "math.cuh"

namespace ember::cuda::kernels {

struct RowLayout {
  Tensor rows;  // contiguous, [num_rows, num_cols] in memory ([num_cols, num_rows] if reduced_outer)
  int64_t num_rows = 1, num_cols = 1;  // outputs, reduced elements per output
  bool reduced_outer = false;
};
// in with the dims of `mask` moved last (in their order), contiguous; or in
// itself, reduced_outer, when it is contiguous and the dims of `mask` are its
// leading ones.
RowLayout to_rows(const Tensor& in, uint64_t mask);  // launch.cu

template <class T, class Ops>
__global__ void reduce_chunks_kernel(const T* in, int64_t cols, int64_t chunk, int splits,
                                     typename Ops::acc_t* partial, Ops ops) {
  using Acc = typename Ops::acc_t;
  __shared__ alignas(16) unsigned char smem[kThreads * sizeof(Acc)];
  Acc* buf = reinterpret_cast<Acc*>(smem);
  const int64_t row = blockIdx.x;
  const int split = blockIdx.y;
  const int64_t begin = split * chunk;
  const int64_t end = begin + chunk < cols ? begin + chunk : cols;
  const T* p = in + row * cols;
  Acc acc = ops.identity();
  for (int64_t c = begin + threadIdx.x; c < end; c += blockDim.x) acc = ops.reduce(acc, p[c], c);
  buf[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) buf[threadIdx.x] = ops.combine(buf[threadIdx.x], buf[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[row * splits + split] = buf[0];
}

template <class Ops>
__global__ void combine_chunks_kernel(const typename Ops::acc_t* partial, int64_t rows, int splits, Ops ops) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  auto acc = partial[row * splits];
  for (int s = 1; s < splits; ++s) acc = ops.combine(acc, partial[row * splits + s]);
  ops.store(acc, row);
}

// Reduced dims outer: element (output o, reduced r) at in[r * outputs + o].
template <class T, class Ops>
__global__ void reduce_columns_kernel(const T* in, int64_t outputs, int64_t reduced, int64_t chunk, int splits,
                                      typename Ops::acc_t* partial, Ops ops) {
  const int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= outputs) return;
  const int split = blockIdx.y;
  const int64_t begin = split * chunk;
  const int64_t end = begin + chunk < reduced ? begin + chunk : reduced;
  auto acc = ops.identity();
  for (int64_t r = begin; r < end; ++r) acc = ops.reduce(acc, in[r * outputs + o], r);
  if (splits == 1) ops.store(acc, o);
  else partial[o * splits + split] = acc;
}

template <class T, class Ops>
__global__ void reduce_narrow_rows_kernel(const T* in, int64_t rows, int64_t cols, Ops ops) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  auto acc = ops.identity();
  for (int64_t c = 0; c < cols; ++c) acc = ops.reduce(acc, in[row * cols + c], c);
  ops.store(acc, row);
}

// Runs the reduction on the current stream of r.rows's device.
template <class T, class Ops>
void run_reduction(const RowLayout& r, const Ops& ops, const char* op) {
  using Acc = typename Ops::acc_t;
  const int16_t index = launch_device(r.rows.device());
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  const T* in = static_cast<const T*>(r.rows.data_ptr());
  const int64_t rows = r.num_rows, cols = r.num_cols;
  auto blocks_for = [](int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); };
  EMBER_CHECK(rows <= 2147483647, op, ": the CUDA reduction takes at most 2^31 - 1 output elements, got ", rows);
  if (r.reduced_outer) {
    // About 4096 blocks in all, each chunk at least 16 rows.
    const int64_t column_blocks = (rows + kThreads - 1) / kThreads;
    int64_t splits = (4096 + column_blocks - 1) / column_blocks;
    splits = std::max<int64_t>(1, std::min({splits, (cols + 15) / 16, int64_t{65535}}));
    const int64_t chunk = (cols + splits - 1) / splits;
    Tensor partial;
    Acc* partial_ptr = nullptr;
    if (splits > 1) {
      partial = empty({static_cast<int64_t>(rows * splits * sizeof(Acc))}, TensorOptions(kUInt8).device(r.rows.device()));
      partial_ptr = static_cast<Acc*>(partial.data_ptr());
    }
    reduce_columns_kernel<T, Ops><<<dim3(blocks_for(rows), static_cast<unsigned>(splits)), kThreads, 0, stream>>>(
        in, rows, cols, chunk, static_cast<int>(splits), partial_ptr, ops);
    check_launch(op);
    if (splits > 1) {
      combine_chunks_kernel<Ops><<<blocks_for(rows), kThreads, 0, stream>>>(partial_ptr, rows, static_cast<int>(splits), ops);
      check_launch(op);
    }
    return;
  }
  if (cols <= 32) {
    reduce_narrow_rows_kernel<T, Ops><<<blocks_for(rows), kThreads, 0, stream>>>(in, rows, cols, ops);
    check_launch(op);
    return;
  }
  // Enough blocks to fill the GPU (about 4096), each chunk at least 4096 columns.
  constexpr int64_t kTargetBlocks = 4096, kMinChunk = 4096, kMaxSplits = 65535;
  int64_t splits = (kTargetBlocks + rows - 1) / rows;
  const int64_t max_by_size = (cols + kMinChunk - 1) / kMinChunk;
  splits = std::max<int64_t>(1, std::min({splits, max_by_size, kMaxSplits}));
  const int64_t chunk = (cols + splits - 1) / splits;
  Tensor partial = empty({static_cast<int64_t>(rows * splits * sizeof(Acc))},
                         TensorOptions(kUInt8).device(r.rows.device()));
  Acc* partial_ptr = static_cast<Acc*>(partial.data_ptr());
  reduce_chunks_kernel<T, Ops><<<dim3(static_cast<unsigned>(rows), static_cast<unsigned>(splits)), kThreads, 0, stream>>>(
      in, cols, chunk, static_cast<int>(splits), partial_ptr, ops);
  check_launch(op);
  combine_chunks_kernel<Ops><<<blocks_for(rows), kThreads, 0, stream>>>(partial_ptr, rows, static_cast<int>(splits), ops);
  check_launch(op);
}

// The tensor the kernel stores into: `out` itself when it is contiguous and of
// `dtype`, else a contiguous temporary that finish_output copies into out.
inline Tensor output_buffer(const Tensor& out, DType dtype) {
  if (out.is_contiguous() && out.dtype() == dtype) return out;
  return empty(out.sizes(), TensorOptions(dtype).device(out.device()));
}
inline void finish_output(Tensor& out, const Tensor& buffer) {
  if (!buffer.is_same(out)) out.copy_(buffer);
}

// reduce_sum.cu: sum, prod, mean, the norms, var/std (input and output of
// one dtype: reduce_kernel casts first where they differ).
void reduce_arithmetic(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params);

}  // namespace ember::cuda::kernels
