#include "kernels/cpu/small_m_gemm.h"

#include <algorithm>

#include "ember/core/parallel.h"
#include "kernels/cpu/vec.h"

namespace ember::detail {

// Note [Small-M products]
// A step of an autoregressive model multiplies a few rows (the batch) by a
// weight matrix: WaveRNN's infer runs [4, 512] @ [512, 1024] and [512, 512]
// per GRU layer and step. OpenBLAS's sgemm copies ("packs") the whole weight
// into its panel layout on every call; with 4 rows that copy is where the
// time goes (perf: 67% of WaveRNN.infer in sgemm_itcopy, 12% in the kernel),
// as it is the first read of a weight that does not fit the L2 cache. Here
// each block of 16 output columns keeps its rows' sums in registers while the
// loop walks down k, so the weight is read once, straight from where it is,
// and each value loaded feeds one FMA per row (8 accumulators of 8 floats, 2
// loads and a broadcast: within AVX2's 16 registers). Column blocks are split
// over the threads. Measured on the development VM (Xeon with AVX-512, 2 MB
// L2 per core), CPU time per call on one thread, under other load: 4 x 512 x
// 1536 302 us vs OpenBLAS's 392, 4 x 512 x 512 30 us vs 58; but 4 x 512 x
// 256 17 us vs 7 (the weight stays in L2 and OpenBLAS's AVX-512 kernels win
// against these AVX2 ones) and 8 x 512 x 1024 309 us vs 257 (two passes over
// the weight): small_m_gemm_pays keeps those on BLAS.

namespace {

using V = vec::Vec<float>;
constexpr int64_t kCols = 2 * V::size;  // columns per register block

// Rows [0, R) of the block of columns [j, j + 2 * V::size) (full vectors).
template <int R>
inline void block16(int64_t k, const float* a, int64_t ars, int64_t acs, const float* b, int64_t ldb, float* c,
                    int64_t ldc, float alpha, float beta, bool beta_zero) {
  V acc0[R], acc1[R];
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = V(0.f);
  for (int64_t p = 0; p < k; ++p) {
    const float* bp = b + p * ldb;
    const V b0 = V::load(bp), b1 = V::load(bp + V::size);
    for (int r = 0; r < R; ++r) {
      const V x(a[r * ars + p * acs]);
      acc0[r] = acc0[r] + x * b0;
      acc1[r] = acc1[r] + x * b1;
    }
  }
  for (int r = 0; r < R; ++r) {
    float* cr = c + r * ldc;
    V out0 = acc0[r] * V(alpha), out1 = acc1[r] * V(alpha);
    if (!beta_zero) {
      out0 = out0 + V(beta) * V::load(cr);
      out1 = out1 + V(beta) * V::load(cr + V::size);
    }
    out0.store(cr);
    out1.store(cr + V::size);
  }
}

// The same for the last columns [0, width), width < 16, one at a time.
template <int R>
inline void block_tail(int64_t width, int64_t k, const float* a, int64_t ars, int64_t acs, const float* b,
                       int64_t ldb, float* c, int64_t ldc, float alpha, float beta, bool beta_zero) {
  for (int64_t j = 0; j < width; ++j) {
    float acc[R] = {};
    for (int64_t p = 0; p < k; ++p) {
      const float bv = b[p * ldb + j];
      for (int r = 0; r < R; ++r) acc[r] += a[r * ars + p * acs] * bv;
    }
    for (int r = 0; r < R; ++r) {
      float& out = c[r * ldc + j];
      out = beta_zero ? alpha * acc[r] : alpha * acc[r] + beta * out;
    }
  }
}

template <int R>
void rows(int64_t j0, int64_t j1, int64_t n, int64_t k, const float* a, int64_t ars, int64_t acs, const float* b,
          int64_t ldb, float* c, int64_t ldc, float alpha, float beta, bool beta_zero) {
  for (int64_t j = j0; j < j1; j += kCols) {
    if (j + kCols <= n)
      block16<R>(k, a, ars, acs, b + j, ldb, c + j, ldc, alpha, beta, beta_zero);
    else
      block_tail<R>(n - j, k, a, ars, acs, b + j, ldb, c + j, ldc, alpha, beta, beta_zero);
  }
}

void rows_dispatch(int64_t r, int64_t j0, int64_t j1, int64_t n, int64_t k, const float* a, int64_t ars,
                   int64_t acs, const float* b, int64_t ldb, float* c, int64_t ldc, float alpha, float beta,
                   bool beta_zero) {
  switch (r) {
    case 1: return rows<1>(j0, j1, n, k, a, ars, acs, b, ldb, c, ldc, alpha, beta, beta_zero);
    case 2: return rows<2>(j0, j1, n, k, a, ars, acs, b, ldb, c, ldc, alpha, beta, beta_zero);
    case 3: return rows<3>(j0, j1, n, k, a, ars, acs, b, ldb, c, ldc, alpha, beta, beta_zero);
    default: return rows<4>(j0, j1, n, k, a, ars, acs, b, ldb, c, ldc, alpha, beta, beta_zero);
  }
}

}  // namespace

bool small_m_gemm_pays(int64_t m, int64_t n, int64_t k) {
  // Below 1 MB of float32 weights, b stays in the L2 cache for BLAS's copy, and its
  // AVX-512 kernels beat these AVX2 ones (4 x 512 x 256: 7 us vs 17 us).
  return m >= 2 && m <= kSmallGemmMaxRows && n >= kCols && k >= 16 && n * k >= (int64_t{1} << 18);
}

void small_m_gemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_row_stride,
                  int64_t a_col_stride, const float* b, int64_t ldb, float beta, bool beta_zero, float* c,
                  int64_t ldc) {
  const int64_t blocks = (n + kCols - 1) / kCols;
  // ~32K multiply-adds per task: enough to pay for waking a thread.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, m * k * kCols));
  parallel_for(0, blocks, grain, [&](int64_t begin, int64_t end) {
    const int64_t j0 = begin * kCols, j1 = std::min(n, end * kCols);
    for (int64_t r0 = 0; r0 < m; r0 += 4) {
      rows_dispatch(std::min<int64_t>(4, m - r0), j0, j1, n, k, a + r0 * a_row_stride, a_row_stride,
                    a_col_stride, b, ldb, c + r0 * ldc, ldc, alpha, beta, beta_zero);
    }
  });
}

}  // namespace ember::detail
