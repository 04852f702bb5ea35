#pragma once
// What the CUDA sort family shares (sort.cu, select_mode.cu, unique.cu).
//
// Note [CUDA sorting]: every kernel of the family starts from one stable
// ascending radix sort of (key, position) pairs (sort_radix.cu, CUB's
// DeviceRadixSort; its only instantiations are 32- and 64-bit keys with int64
// values). A value becomes an unsigned key whose order is the CPU's value
// order: NaN (any sign, any payload) above +inf, -0 and +0 one key (the CPU's
// comparisons call them equal, so a stable sort keeps them in input order),
// signed integers and floats with their sign bit flipped as usual. Descending
// sorts flip the key's bits, so the sort stays stable: equal values keep input
// order, NaNs come first, as the CPU's stable_sort with ValueGreater. Rows are
// sorted together: the row number goes above the key bits in one key when
// both fit in 64 bits; otherwise (64-bit dtypes in several rows) a second
// stable sort by row follows the sort by value. The result is a permutation
// of global positions; the kernels gather values and indices through it. As
// radix sorts are stable, every result (values and indices) is deterministic
// and equal to the CPU's, whose tie rules (stable order; topk/kthvalue ties
// and NaNs by the lower index) are exactly what a stable sort gives.
#include "common.cuh"
#include "ember/ops/factories.h"

namespace ember::cuda::kernels {

inline constexpr int kSortThreads = 256;

// The input with `dim` moved last, contiguous, as [rows, n] (a 0-dim tensor: [1, 1]).
Tensor rows_along(const Tensor& in, int64_t dim);  // sort.cu

// Positions 0..rows*n of `x` (contiguous, `rows` rows of `n`) sorted stably by
// (row, value), ascending or descending in value: an int64 tensor of rows * n
// global positions (row r's entries come at [r * n, (r + 1) * n)).
Tensor sorted_positions(const Tensor& x, int64_t rows, int64_t n, bool descending, const char* op);  // sort_radix.cu

inline unsigned sort_grid_for(int64_t n) {
  const int64_t blocks = (n + kSortThreads - 1) / kSortThreads;
  return static_cast<unsigned>(blocks < (int64_t{1} << 20) ? (blocks > 0 ? blocks : 1) : (int64_t{1} << 20));
}

// Unsigned integers of an element's size: the type a gather moves.
template <size_t Bytes> struct bits_of;
template <> struct bits_of<1> { using type = uint8_t; };
template <> struct bits_of<2> { using type = uint16_t; };
template <> struct bits_of<4> { using type = uint32_t; };
template <> struct bits_of<8> { using type = uint64_t; };

// Calls f(tag) with tag a value of the device type of `dt`: the real dtypes
// and bool, which the CPU sorts (kSortable); complex raises naming the op.
template <class F>
void dispatch_sortable(DType dt, const char* op, F&& f) {
  dispatch_real_bool(dt, op, static_cast<F&&>(f));
}

}  // namespace ember::cuda::kernels
