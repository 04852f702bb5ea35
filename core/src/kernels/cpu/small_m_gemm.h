#pragma once
// Products with a few rows on the left and a wide row-major right operand,
// without BLAS's packing (Note [Small-M products]).
#include <cstdint>

namespace ember::detail {

// The most rows of `a` small_m_gemm takes.
inline constexpr int64_t kSmallGemmMaxRows = 8;

// Whether small_m_gemm is the better path for a float product of m x k by
// k x n with b and c row-major (unit column stride): m <= kSmallGemmMaxRows
// and a right operand large enough for packing to dominate BLAS's time.
bool small_m_gemm_pays(int64_t m, int64_t n, int64_t k);

// c[i, j] = beta * c[i, j] + alpha * sum_p a[i, p] b[p, j] for i < m, j < n;
// a at (a_row_stride, a_col_stride), b and c row-major with row strides ldb,
// ldc. With beta_zero c is only written (its old values, NaN included, are
// ignored). The k sums run in order p = 0, 1, ... (one FMA chain per element).
void small_m_gemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_row_stride,
                  int64_t a_col_stride, const float* b, int64_t ldb, float beta, bool beta_zero, float* c,
                  int64_t ldc);

}  // namespace ember::detail
