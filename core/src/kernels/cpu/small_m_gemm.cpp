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
// the weight is read once, straight from where it is, and each value loaded
// feeds one FMA per row (Note [Small-M products, streaming the weight] below
// has the loop order). Column blocks are split over the threads. The first
// version (sums of 16 columns in registers while k walked down the weight,
// one cache line per weight row) measured on the development VM (Xeon with AVX-512, 2 MB
// L2 per core), CPU time per call on one thread, under other load: 4 x 512 x
// 1536 302 us vs OpenBLAS's 392, 4 x 512 x 512 30 us vs 58; but 4 x 512 x
// 256 17 us vs 7 (the weight stays in L2 and OpenBLAS's AVX-512 kernels win
// against these AVX2 ones) and 8 x 512 x 1024 309 us vs 257 (two passes over
// the weight): small_m_gemm_pays keeps those on BLAS.

namespace {

using V = vec::Vec<float>;
constexpr int64_t kCols = 2 * V::size;  // columns per block that the threads share out

// The last columns [0, width), width < 16, one at a time.
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

// Rows [0, R) of the columns [j0, j1).
// Note [Small-M products, streaming the weight]
// The sums of a chunk of 512 columns stay in an L1-resident buffer while k
// walks down the weight four rows at a time, so the weight is read as long
// contiguous runs (2 KB per row and chunk) that the prefetchers follow.
// Walking down k per 16-column block (the first version) read one 64-byte
// line per weight row, rows a page or more apart: 84% of WaveRNN.infer's CPU
// time sat in that loop, and infer took 2.4x longer than with this order
// (one thread, 2-core AMD EPYC VM, docs/audio.md "Speech model benchmarks").
template <int R>
void rows(int64_t j0, int64_t j1, int64_t n, int64_t k, const float* a, int64_t ars, int64_t acs, const float* b,
          int64_t ldb, float* c, int64_t ldc, float alpha, float beta, bool beta_zero) {
  constexpr int64_t kChunk = 512;
  alignas(64) float acc[R][kChunk];
  const int64_t full_end = j0 + (std::min(j1, n) - j0) / kCols * kCols;
  for (int64_t jc = j0; jc < full_end; jc += kChunk) {
    const int64_t w = std::min(kChunk, full_end - jc);  // a multiple of kCols
    for (int r = 0; r < R; ++r) std::fill(acc[r], acc[r] + w, 0.f);
    int64_t p = 0;
    for (; p + 4 <= k; p += 4) {
      const float* b0 = b + p * ldb + jc;
      const float* b1 = b0 + ldb;
      const float* b2 = b1 + ldb;
      const float* b3 = b2 + ldb;
      float x[R][4];
      for (int r = 0; r < R; ++r)
        for (int q = 0; q < 4; ++q) x[r][q] = a[r * ars + (p + q) * acs];
      for (int64_t j = 0; j < w; j += V::size) {
        const V v0 = V::load(b0 + j), v1 = V::load(b1 + j), v2 = V::load(b2 + j), v3 = V::load(b3 + j);
        for (int r = 0; r < R; ++r) {
          V s = V::load(acc[r] + j);
          s = s + V(x[r][0]) * v0;
          s = s + V(x[r][1]) * v1;
          s = s + V(x[r][2]) * v2;
          s = s + V(x[r][3]) * v3;
          s.store(acc[r] + j);
        }
      }
    }
    for (; p < k; ++p) {
      const float* bp = b + p * ldb + jc;
      for (int r = 0; r < R; ++r) {
        const V x(a[r * ars + p * acs]);
        for (int64_t j = 0; j < w; j += V::size) (V::load(acc[r] + j) + x * V::load(bp + j)).store(acc[r] + j);
      }
    }
    for (int r = 0; r < R; ++r) {
      float* cr = c + r * ldc + jc;
      for (int64_t j = 0; j < w; j += V::size) {
        V out = V::load(acc[r] + j) * V(alpha);
        if (!beta_zero) out = out + V(beta) * V::load(cr + j);
        out.store(cr + j);
      }
    }
  }
  if (full_end < j1)
    block_tail<R>(j1 - full_end, k, a, ars, acs, b + full_end, ldb, c + full_end, ldc, alpha, beta, beta_zero);
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
