#pragma once
// The CUDA scan engine behind cumsum/cumprod/logcumsumexp (scan_arith.cu,
// scan_log_minmax.cu) and cummax/cummin.
//
// Note [CUDA scans]: the op hands over a contiguous input and output, seen as
// [outer, n, inner] around the scanned dim (the CPU kernel's geometry).
// Results are deterministic: no atomics, and every combination happens in an
// order fixed by the sizes alone, never by timing. Two layouts:
//  - rows (inner == 1, n > 16): a block of 256 threads scans a row tile by tile
//    (2048 elements: each thread scans 8 consecutive ones, the thread totals
//    are scanned in shared memory, the carry passes to the next tile). Long
//    rows in few rows are cut into chunks so the GPU fills up: pass 1 reduces
//    each chunk (with the same tile scan, so elements combine left to right),
//    pass 2 scans each row's chunk totals serially, pass 3 scans each chunk
//    from the total of the chunks before it;
//  - columns (inner > 1, or short rows): a thread walks one lane from 0 to n
//    (adjacent threads read adjacent elements), in the CPU's order; when there
//    are few lanes they are cut into chunks the same three-pass way.
// Every combination keeps positions in order (left operand earlier), which the
// cummax/cummin tie rule (the later index wins) needs.
//
// An Ops type describes a scan:
//   using acc_t = ...;
//   __device__ acc_t identity() const;
//   __device__ acc_t load(int64_t offset, int64_t position) const;
//   __device__ acc_t combine(acc_t earlier, acc_t later) const;
//   __device__ void store(int64_t offset, acc_t inclusive) const;
#include <algorithm>

#include "common.cuh"
#include "ember/ops/factories.h"

namespace ember::cuda::kernels {

inline constexpr int kScanThreads = 256;
inline constexpr int kScanItems = 8;
inline constexpr int64_t kScanTile = int64_t{kScanThreads} * kScanItems;
// Rows at most this long, and lanes along an outer dim, take the column kernel.
inline constexpr int64_t kShortRow = 16;

// Pass 1 of a chunked scan writes each chunk's total; passes 3 (and a
// single-pass scan) store the inclusive results.
enum class ScanMode { Store, Total };

// Scans the tile in shared memory (kScanTile values) in place from `carry`;
// returns the carry for the next tile. `totals` is 2 * kScanThreads values of
// scratch. Ends with a barrier, so the caller may read the tile.
template <class Ops>
__device__ typename Ops::acc_t block_scan_tile(const Ops& ops, typename Ops::acc_t* tile,
                                               typename Ops::acc_t* totals, typename Ops::acc_t carry) {
  using Acc = typename Ops::acc_t;
  const int t = threadIdx.x;
  Acc* mine = tile + t * kScanItems;
  Acc local[kScanItems];
  local[0] = mine[0];
#pragma unroll
  for (int i = 1; i < kScanItems; ++i) local[i] = ops.combine(local[i - 1], mine[i]);
  // Inclusive scan of the thread totals (Hillis-Steele, double-buffered).
  Acc* a = totals;
  Acc* b = totals + kScanThreads;
  a[t] = local[kScanItems - 1];
  __syncthreads();
  for (int off = 1; off < kScanThreads; off *= 2) {
    b[t] = t >= off ? ops.combine(a[t - off], a[t]) : a[t];
    __syncthreads();
    Acc* swap = a;
    a = b;
    b = swap;
  }
  const Acc prefix = t > 0 ? ops.combine(carry, a[t - 1]) : carry;
#pragma unroll
  for (int i = 0; i < kScanItems; ++i) mine[i] = ops.combine(prefix, local[i]);
  const Acc next = ops.combine(carry, a[kScanThreads - 1]);
  __syncthreads();
  return next;
}

// Rows: block b scans chunk b % chunks of row b / chunks (element i of a row
// at row * n + i). Mode Total writes the chunk's total to totals[b]; mode
// Store starts from totals[b - 1] (the inclusive total of the chunks before)
// when chunk > 0 and totals is given.
template <class Ops, ScanMode Mode>
__global__ void __launch_bounds__(kScanThreads)
    scan_rows_kernel(Ops ops, int64_t rows, int64_t n, int64_t chunk, int64_t chunks, typename Ops::acc_t* totals) {
  using Acc = typename Ops::acc_t;
  __shared__ alignas(16) unsigned char smem[(kScanTile + 2 * kScanThreads) * sizeof(Acc)];
  Acc* tile = reinterpret_cast<Acc*>(smem);
  Acc* scratch = tile + kScanTile;
  const int t = threadIdx.x;
  for (int64_t b = blockIdx.x; b < rows * chunks; b += gridDim.x) {
    const int64_t row = b / chunks, c = b % chunks;
    const int64_t begin = c * chunk, end = begin + chunk < n ? begin + chunk : n;
    const int64_t base = row * n;
    Acc carry = (Mode == ScanMode::Store && c > 0 && totals != nullptr) ? totals[b - 1] : ops.identity();
    for (int64_t t0 = begin; t0 < end; t0 += kScanTile) {
#pragma unroll
      for (int k = 0; k < kScanItems; ++k) {
        const int64_t i = t0 + k * kScanThreads + t;
        tile[k * kScanThreads + t] = i < end ? ops.load(base + i, i) : ops.identity();
      }
      __syncthreads();
      carry = block_scan_tile(ops, tile, scratch, carry);
      if constexpr (Mode == ScanMode::Store) {
#pragma unroll
        for (int k = 0; k < kScanItems; ++k) {
          const int64_t i = t0 + k * kScanThreads + t;
          if (i < end) ops.store(base + i, tile[k * kScanThreads + t]);
        }
        __syncthreads();  // the tile is reloaded next
      }
    }
    if constexpr (Mode == ScanMode::Total) {
      if (t == 0) totals[b] = carry;
    }
  }
}

// Columns: thread (lane, chunk) walks lane `lane` (of outer * inner) over
// positions [chunk * len, ...); element i of lane l at
// (l / inner) * n * inner + i * inner + l % inner.
template <class Ops, ScanMode Mode>
__global__ void scan_columns_kernel(Ops ops, int64_t lanes, int64_t n, int64_t inner, int64_t chunk,
                                    int64_t chunks, typename Ops::acc_t* totals) {
  using Acc = typename Ops::acc_t;
  const int64_t lane = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (lane >= lanes) return;
  const int64_t c = blockIdx.y;
  const int64_t begin = c * chunk, end = begin + chunk < n ? begin + chunk : n;
  const int64_t base = (lane / inner) * n * inner + lane % inner;
  Acc acc = (Mode == ScanMode::Store && c > 0 && totals != nullptr) ? totals[lane * chunks + c - 1] : ops.identity();
  for (int64_t i = begin; i < end; ++i) {
    acc = ops.combine(acc, ops.load(base + i * inner, i));
    if constexpr (Mode == ScanMode::Store) ops.store(base + i * inner, acc);
  }
  if constexpr (Mode == ScanMode::Total) totals[lane * chunks + c] = acc;
}

// Pass 2: each of `count` runs of `chunks` totals becomes its inclusive scan.
template <class Ops>
__global__ void scan_totals_kernel(Ops ops, int64_t count, int64_t chunks, typename Ops::acc_t* totals) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= count) return;
  typename Ops::acc_t* p = totals + r * chunks;
  auto acc = p[0];
  for (int64_t c = 1; c < chunks; ++c) {
    acc = ops.combine(acc, p[c]);
    p[c] = acc;
  }
}

inline unsigned scan_blocks_for(int64_t n) { return static_cast<unsigned>((n + kScanThreads - 1) / kScanThreads); }

// Runs the scan over [outer, n, inner] on the current stream of `device`.
template <class Ops>
void run_scan(const Ops& ops, int64_t outer, int64_t n, int64_t inner, Device device, const char* op) {
  using Acc = typename Ops::acc_t;
  if (outer == 0 || n == 0 || inner == 0) return;
  const int16_t index = launch_device(device);
  detail::ScopedDevice on(index, op);
  cudaStream_t stream = detail::current_cuda_stream(index);
  auto scratch = [&](int64_t count) {
    return empty({count * static_cast<int64_t>(sizeof(Acc))}, TensorOptions(kUInt8).device(device));
  };
  if (inner == 1 && n > kShortRow) {
    // About 2048 blocks: one per row when there are that many rows, else
    // chunks of whole tiles.
    const int64_t tiles = (n + kScanTile - 1) / kScanTile;
    int64_t chunks = 1;
    if (outer < 1024 && tiles > 1) chunks = std::min(tiles, (int64_t{2048} + outer - 1) / outer);
    const int64_t chunk = (tiles + chunks - 1) / chunks * kScanTile;
    chunks = (n + chunk - 1) / chunk;
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>(outer * chunks, int64_t{1} << 20));
    if (chunks == 1) {
      scan_rows_kernel<Ops, ScanMode::Store><<<grid, kScanThreads, 0, stream>>>(ops, outer, n, chunk, 1, nullptr);
      check_launch(op);
      return;
    }
    Tensor buffer = scratch(outer * chunks);
    Acc* totals = static_cast<Acc*>(buffer.data_ptr());
    scan_rows_kernel<Ops, ScanMode::Total><<<grid, kScanThreads, 0, stream>>>(ops, outer, n, chunk, chunks, totals);
    check_launch(op);
    scan_totals_kernel<Ops><<<scan_blocks_for(outer), kScanThreads, 0, stream>>>(ops, outer, chunks, totals);
    check_launch(op);
    scan_rows_kernel<Ops, ScanMode::Store><<<grid, kScanThreads, 0, stream>>>(ops, outer, n, chunk, chunks, totals);
    check_launch(op);
    return;
  }
  // Lanes: about 64 Ki threads in all, each chunk at least 64 positions.
  const int64_t lanes = outer * inner;
  int64_t chunks = 1;
  if (lanes < 65536) chunks = std::min({(int64_t{65536} + lanes - 1) / lanes, (n + 63) / 64, int64_t{65535}});
  chunks = std::max<int64_t>(chunks, 1);
  const int64_t chunk = (n + chunks - 1) / chunks;
  chunks = (n + chunk - 1) / chunk;
  EMBER_CHECK(lanes <= (int64_t{1} << 31) * kScanThreads, op, ": too many lanes for the CUDA scan (", lanes, ")");
  const dim3 grid(scan_blocks_for(lanes), static_cast<unsigned>(chunks));
  if (chunks == 1) {
    scan_columns_kernel<Ops, ScanMode::Store><<<grid, kScanThreads, 0, stream>>>(ops, lanes, n, inner, chunk, 1, nullptr);
    check_launch(op);
    return;
  }
  Tensor buffer = scratch(lanes * chunks);
  Acc* totals = static_cast<Acc*>(buffer.data_ptr());
  scan_columns_kernel<Ops, ScanMode::Total><<<grid, kScanThreads, 0, stream>>>(ops, lanes, n, inner, chunk, chunks, totals);
  check_launch(op);
  scan_totals_kernel<Ops><<<scan_blocks_for(lanes), kScanThreads, 0, stream>>>(ops, lanes, chunks, totals);
  check_launch(op);
  scan_columns_kernel<Ops, ScanMode::Store><<<grid, kScanThreads, 0, stream>>>(ops, lanes, n, inner, chunk, chunks, totals);
  check_launch(op);
}

// [outer, n, inner] around `dim` (a 0-dim tensor is one element).
struct ScanGeometry {
  int64_t outer = 1, n = 1, inner = 1;
  ScanGeometry(const Tensor& t, int64_t dim) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d < dim) outer *= t.size(d);
      else if (d > dim) inner *= t.size(d);
    }
    n = t.dim() == 0 ? 1 : t.size(dim);
  }
};

}  // namespace ember::cuda::kernels

namespace ember::cuda::kernels {
// scan_log_minmax.cu: logcumsumexp of a floating input (scan_slot's third op).
void logcumsumexp_kernel(const Tensor& in, Tensor& out, int64_t dim);
}  // namespace ember::cuda::kernels
