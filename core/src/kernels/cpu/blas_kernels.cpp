// CPU kernels of the linear algebra family: float, double and complex
// products through OpenBLAS's CBLAS (OpenMP flavour, see Note [One thread
// pool]); the other types through the blocked loop of gemm_loop.h.
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <type_traits>
#include <optional>

#include "ember/core/parallel.h"
#include "ember/ops/factories.h"
#include "kernels/cpu/gemm_loop.h"
#include "kernels/cpu/small_m_gemm.h"
#include "kernels/slots/linalg_kernels.h"
#include "runtime/openmp_calls.h"

namespace ember {
namespace {

// How BLAS (column-major) reads a rows x cols matrix: either as is (unit row
// stride, ld = column stride) or as the transpose of a column-major matrix
// (unit column stride, ld = row stride). Sliced or transposed operands are
// passed this way without a copy.
struct BlasLayout {
  bool transposed;
  int ld;
};

std::optional<BlasLayout> blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  auto fits = [](int64_t v) { return v <= INT_MAX; };
  if (!fits(rows) || !fits(cols)) return std::nullopt;
  // The stride of a size-1 dim is never used: any value fits (a contiguous
  // tensor may carry any stride there, and contiguous() then returns it as is).
  if ((rs == 1 || rows == 1) && (cols == 1 || (cs >= std::max<int64_t>(1, rows) && fits(cs))))
    return BlasLayout{false, static_cast<int>(cols == 1 ? std::max<int64_t>(1, rows) : cs)};
  if ((cs == 1 || cols == 1) && (rows == 1 || (rs >= std::max<int64_t>(1, cols) && fits(rs))))
    return BlasLayout{true, static_cast<int>(rows == 1 ? std::max<int64_t>(1, cols) : rs)};
  return std::nullopt;
}
std::optional<BlasLayout> matrix_layout(const Tensor& t) {
  return blas_layout(t.size(1), t.size(2), t.stride(1), t.stride(2));
}

// Note [Conjugate bit] in BLAS: a conjugate view is passed with the flag that
// makes BLAS conjugate while reading: CblasConjTrans where it is read
// transposed, and OpenBLAS's CblasConjNoTrans extension (cblas.h) where it is
// not. gemv's vector operand has no such flag, so it is resolved first (see
// conj_fusable).
CBLAS_TRANSPOSE trans_flag(bool transposed, bool conj) {
  if (conj) return transposed ? CblasConjTrans : CblasConjNoTrans;
  return transposed ? CblasTrans : CblasNoTrans;
}
// The memory of an operand (conjugate views included: the flags above apply the bit).
template <class T>
const T* memory_of(const Tensor& t) {
  return static_cast<const T*>(t.data_ptr());
}

// One typed entry point per BLAS precision.
template <class T>
struct Blas;
template <>
struct Blas<float> {
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
                   const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
    cblas_sgemm(CblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, int m, int n, float alpha, const float* a, int lda,
                   const float* x, int incx, float beta, float* y, int incy) {
    cblas_sgemv(CblasColMajor, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  static float dot(int n, const float* x, int incx, const float* y, int incy, bool) {
    return cblas_sdot(n, x, incx, y, incy);
  }
};
template <>
struct Blas<double> {
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha,
                   const double* a, int lda, const double* b, int ldb, double beta, double* c,
                   int ldc) {
    cblas_dgemm(CblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, int m, int n, double alpha, const double* a, int lda,
                   const double* x, int incx, double beta, double* y, int incy) {
    cblas_dgemv(CblasColMajor, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  static double dot(int n, const double* x, int incx, const double* y, int incy, bool) {
    return cblas_ddot(n, x, incx, y, incy);
  }
};
template <>
struct Blas<complex64> {
  using T = complex64;
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T alpha,
                   const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
    cblas_cgemm(CblasColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, int m, int n, T alpha, const T* a, int lda, const T* x,
                   int incx, T beta, T* y, int incy) {
    cblas_cgemv(CblasColMajor, t, m, n, &alpha, a, lda, x, incx, &beta, y, incy);
  }
  static T dot(int n, const T* x, int incx, const T* y, int incy, bool conjugate_x) {
    T r;
    if (conjugate_x) cblas_cdotc_sub(n, x, incx, y, incy, &r);
    else cblas_cdotu_sub(n, x, incx, y, incy, &r);
    return r;
  }
};
template <>
struct Blas<complex128> {
  using T = complex128;
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T alpha,
                   const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
    cblas_zgemm(CblasColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, int m, int n, T alpha, const T* a, int lda, const T* x,
                   int incx, T beta, T* y, int incy) {
    cblas_zgemv(CblasColMajor, t, m, n, &alpha, a, lda, x, incx, &beta, y, incy);
  }
  static T dot(int n, const T* x, int incx, const T* y, int incy, bool conjugate_x) {
    T r;
    if (conjugate_x) cblas_zdotc_sub(n, x, incx, y, incy, &r);
    else cblas_zdotu_sub(n, x, incx, y, incy, &r);
    return r;
  }
};

// One product c = beta * c + alpha * a @ b (a: m x k, b: k x n) with the
// layouts of blas_layout. Vector shapes go to gemv, which is faster there.
template <class T>
void blas_product(int64_t m, int64_t n, int64_t k, T alpha, const T* a, BlasLayout la,
                  int64_t a_col_stride, int64_t a_row_stride, const T* b, BlasLayout lb,
                  int64_t b_row_stride, int64_t b_col_stride, T beta, T* c, BlasLayout lc,
                  int64_t c_row_stride, int64_t c_col_stride, bool beta_zero, bool conj_a, bool conj_b) {
  runtime::prepare_openmp_library_call();  // Note [OpenMP libraries]
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  if (n == 1 && b_row_stride != 0 && c_row_stride != 0) {
    // y[m] = A x: x is column 0 of b, y column 0 of c. Some BLAS scale y by
    // beta with a multiply, so a zero beta must not see y's old NaNs.
    if (beta_zero) for (int64_t i = 0; i < m; ++i) c[i * c_row_stride] = T(0);
    if (!la.transposed)
      Blas<T>::gemv(trans_flag(false, conj_a), im, ik, alpha, a, la.ld, b, static_cast<int>(b_row_stride), beta,
                    c, static_cast<int>(c_row_stride));
    else
      Blas<T>::gemv(trans_flag(true, conj_a), ik, im, alpha, a, la.ld, b, static_cast<int>(b_row_stride), beta, c,
                    static_cast<int>(c_row_stride));
    return;
  }
  if (m == 1 && a_col_stride != 0 && c_col_stride != 0) {
    // y[n] = B^T x: x is row 0 of a, y row 0 of c.
    if (beta_zero) for (int64_t j = 0; j < n; ++j) c[j * c_col_stride] = T(0);
    if (!lb.transposed)
      Blas<T>::gemv(trans_flag(true, conj_b), ik, in, alpha, b, lb.ld, a, static_cast<int>(a_col_stride), beta, c,
                    static_cast<int>(c_col_stride));
    else
      Blas<T>::gemv(trans_flag(false, conj_b), in, ik, alpha, b, lb.ld, a, static_cast<int>(a_col_stride), beta,
                    c, static_cast<int>(c_col_stride));
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    // A few rows times a wide row-major b (Note [Small-M products]).
    if (!conj_a && !conj_b && b_col_stride == 1 && c_col_stride == 1 && detail::small_m_gemm_pays(m, n, k)) {
      detail::small_m_gemm(m, n, k, alpha, a, a_row_stride, a_col_stride, b, b_row_stride, beta, beta_zero, c,
                           c_row_stride);
      return;
    }
  }
  if (lc.transposed) {
    // c is row-major: compute c^T = b^T a^T into the column-major c^T.
    Blas<T>::gemm(trans_flag(!lb.transposed, conj_b), trans_flag(!la.transposed, conj_a), in, im, ik, alpha, b,
                  lb.ld, a, la.ld, beta, c, lc.ld);
  } else {
    Blas<T>::gemm(trans_flag(la.transposed, conj_a), trans_flag(lb.transposed, conj_b), im, in, ik, alpha, a,
                  la.ld, b, lb.ld, beta, c, lc.ld);
  }
}

// Note [Batched GEMM threading]
// A batch of small products runs one single-threaded GEMM per batch entry in
// a parallel_for (OpenBLAS's OpenMP build runs serially inside a parallel
// region); large products run one after another, each threaded by OpenBLAS
// on the same OpenMP pool. Measured on 2 threads, bmm of 64 x [128x128] @
// [128x128] float32 (best of 200): 1.8 ms batch-parallel vs 4.1-7.8 ms for 64
// threaded GEMMs in a row (libtorch 1.13, which loops over threaded GEMMs:
// 4.2 ms). Threading each small GEMM costs a fork/join per product and splits
// a 128x128 output too finely.
constexpr int64_t kBatchParallelMaxFlops = int64_t{1} << 24;  // per product, m*n*k

// Whether blas_product reads each conjugate operand as a matrix (any layout:
// see trans_flag) rather than as gemv's vector (mirrors its choice of call).
std::pair<bool, bool> conj_fusable(int64_t m, int64_t n, int64_t a_col_stride, int64_t b_row_stride,
                                   int64_t c_row_stride, int64_t c_col_stride) {
  if (n == 1 && b_row_stride != 0 && c_row_stride != 0) return {true, false};  // b is gemv's x
  if (m == 1 && a_col_stride != 0 && c_col_stride != 0) return {false, true};  // a is gemv's x
  return {true, true};
}

template <class T>
void blas_gemm(const Tensor& a_in, const Tensor& b_in, const Tensor& out, const Scalar& beta_s,
               const Scalar& alpha_s) {
  // Operands BLAS can't read in place (e.g. both strides non-unit) are copied.
  Tensor a = matrix_layout(a_in) ? a_in : a_in.contiguous();
  Tensor b = matrix_layout(b_in) ? b_in : b_in.contiguous();
  const bool beta_zero = beta_s.toComplexDouble() == complex128(0, 0);
  const int64_t nb = a.size(0);
  if ((a.is_conj() || b.is_conj()) && matrix_layout(out) && !(nb > 1 && out.stride(0) == 0)) {
    const auto [fa, fb] = conj_fusable(a.size(1), b.size(2), a.stride(2), b.stride(1), out.stride(1), out.stride(2));
    if ((a.is_conj() && !fa) || (b.is_conj() && !fb)) {
      // Note [Conjugate bit]: a conjugate gemv vector; resolve it.
      blas_gemm<T>(a.is_conj() && !fa ? a.resolve_conj() : a, b.is_conj() && !fb ? b.resolve_conj() : b, out,
                   beta_s, alpha_s);
      return;
    }
  }
  if (!matrix_layout(out) || (nb > 1 && out.stride(0) == 0)) {
    Tensor tmp = beta_zero ? empty(out.sizes(), out.options()) : out.contiguous().clone();
    blas_gemm<T>(a, b, tmp, beta_s, alpha_s);
    Tensor(out).copy_(tmp);
    return;
  }
  const BlasLayout la = *matrix_layout(a), lb = *matrix_layout(b), lc = *matrix_layout(out);
  const int64_t m = a.size(1), k = a.size(2), n = b.size(2);
  const T alpha = alpha_s.to<T>(), beta = beta_s.to<T>();
  const T* pa = memory_of<T>(a);
  const T* pb = memory_of<T>(b);
  T* pc = out.data_ptr<T>();
  const bool ca = a.is_conj(), cb = b.is_conj();
  auto one = [&](int64_t i) {
    blas_product<T>(m, n, k, alpha, pa + i * a.stride(0), la, a.stride(2), a.stride(1),
                    pb + i * b.stride(0), lb, b.stride(1), b.stride(2), beta,
                    pc + i * out.stride(0), lc, out.stride(1), out.stride(2), beta_zero, ca, cb);
  };
  const bool batch_parallel = nb > 1 && m * n * k <= kBatchParallelMaxFlops;
  if (batch_parallel) {
    parallel_for(0, nb, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < nb; ++i) one(i);
  }
}

void gemm_kernel(const Tensor& a, const Tensor& b, Tensor& out, const Scalar& beta,
                 const Scalar& alpha) {
  dispatch<kMaskNumber>(out.dtype(), "gemm", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || is_complex_v<T>)
      blas_gemm<T>(a, b, out, beta, alpha);
    else
      gemm_loop<T>(a, b, out, beta, alpha);
  });
}

void dot_kernel(const Tensor& a_in, const Tensor& b_in, Tensor& out, bool conjugate_a) {
  dispatch<kMaskNumber>(out.dtype(), "dot", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || is_complex_v<T>) {
      // BLAS takes non-zero int strides: expanded operands are copied. Complex
      // operands must also be unit-stride: OpenBLAS 0.3.21's ?dotu/?dotc
      // kernels read 8 bytes past the last element when an increment is not 1
      // (cblas_cdotu_sub(4, x, 1, y, 2) faults when y ends at a page boundary),
      // so strided complex operands are copied; real ?dot is exact there.
      auto blas_ready = [](const Tensor& t) {
        const int64_t s = t.size(0) <= 1 ? 1 : t.stride(0);
        const bool ok = is_complex_v<T> ? s == 1 : s != 0 && s <= INT_MAX;
        return ok ? t : t.contiguous();
      };
      Tensor a = blas_ready(a_in), b = blas_ready(b_in);
      // Note [Conjugate bit]: conjugate views are consumed by the choice of
      // dotu/dotc. With ca = conjugate_a xor a's bit and cb = b's bit:
      // sum(a b) = dotu(a, b); sum(conj(a) b) = dotc(a, b);
      // sum(a conj(b)) = dotc(b, a); sum(conj(a) conj(b)) = conj(dotu(a, b)).
      const bool ca = conjugate_a != a.is_conj(), cb = b.is_conj();
      bool conj_first = ca, conj_result = false;
      if (cb && !ca) std::swap(a, b), conj_first = true;
      if (cb && ca) conj_first = false, conj_result = true;
      const T* pa = memory_of<T>(a);
      const T* pb = memory_of<T>(b);
      // One element: any stride reads the same (and a size-1 view may keep a stride > 1).
      const int64_t sa = a.size(0) <= 1 ? 1 : a.stride(0), sb = b.size(0) <= 1 ? 1 : b.stride(0);
      T sum = T(0);
      runtime::prepare_openmp_library_call();  // Note [OpenMP libraries]
      constexpr int64_t kChunk = int64_t{1} << 30;  // BLAS counts are int
      for (int64_t i = 0; i < a.size(0); i += kChunk) {
        const int n = static_cast<int>(std::min(kChunk, a.size(0) - i));
        sum += Blas<T>::dot(n, pa + i * sa, static_cast<int>(sa), pb + i * sb, static_cast<int>(sb),
                            conj_first);
      }
      if constexpr (is_complex_v<T>)
        if (conj_result) sum = std::conj(sum);
      *out.data_ptr<T>() = sum;
    } else {
      *out.data_ptr<T>() = dot_loop<T>(a_in, b_in);
    }
  });
}

}  // namespace

// The output's dtype: every number dtype (BLAS for float and complex, loops for the rest).
EMBER_REGISTER_KERNEL_FOR_DTYPES(gemm_slot, CPU, gemm_kernel, kMaskNumber);
EMBER_REGISTER_KERNEL_FOR_DTYPES(dot_slot, CPU, dot_kernel, kMaskNumber);

}  // namespace ember
